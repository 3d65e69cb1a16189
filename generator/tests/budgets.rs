//! Schema budgets, trimmed descriptions and the `output_schema` modes: generated from a small
//! spec with deep and recursive schemas, written to a temporary folder.

use std::path::PathBuf;

use mcpgen_codegen::{Errors, Generation, Settings, Warning};
use serde_json::{Value, json};

/// A spec whose schemas nest deeply (`Level1` → … → `Level5`) and recurse (`Node.children`).
fn spec() -> Value {
    let mut schemas = serde_json::Map::new();
    for i in 1..=5 {
        let mut props = serde_json::Map::new();
        props.insert(
            format!("name{i}"),
            json!({"type": "string", "description": format!("Name at level {i}. More words here.")}),
        );
        props.insert(
            format!("padding{i}"),
            json!({"type": "string", "description": "x".repeat(100)}),
        );
        if i < 5 {
            props.insert(
                format!("next{i}"),
                json!({"$ref": format!("#/components/schemas/Level{}", i + 1)}),
            );
        }
        schemas.insert(
            format!("Level{i}"),
            json!({"type": "object", "title": format!("Level {i}"),
                   "description": format!("The **level** {i} object. It nests."),
                   "required": [format!("name{i}")], "properties": props}),
        );
    }
    schemas.insert(
        "Node".into(),
        json!({"type": "object", "description": "A tree node.",
               "properties": {
                   "id": {"type": "integer"},
                   "label": {"type": "string", "enum": ["a", "b"]},
                   "description": {"type": "string", "description": "Free text.", "examples": ["x"]},
                   "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}
               },
               "required": ["id"]}),
    );
    json!({
        "openapi": "3.0.3",
        "info": {"title": "Deep", "version": "1.0.0"},
        "servers": [{"url": "https://deep.example.com"}],
        "paths": {
            "/deep": {
                "post": {
                    "operationId": "postDeep",
                    "summary": "Post a deep thing",
                    "description": "Creates a **deep** thing, see [the docs](https://example.com/docs).\nStill the first paragraph.\n\nA second paragraph that is left out.",
                    "parameters": [{"name": "mode", "in": "query", "required": true,
                                    "description": "How to post. Everything after the first sentence goes.",
                                    "schema": {"type": "string"}}],
                    "requestBody": {"required": true, "content": {"application/json": {
                        "schema": {"$ref": "#/components/schemas/Level1"}}}},
                    "responses": {"200": {"description": "ok", "content": {"application/json": {
                        "schema": {"$ref": "#/components/schemas/Level1"}}}}}
                }
            },
            "/tree": {
                "get": {
                    "operationId": "getTree",
                    "summary": "Get the tree",
                    "responses": {"200": {"description": "ok", "content": {"application/json": {
                        "schema": {"$ref": "#/components/schemas/Node"}}}}}
                }
            },
            "/list": {
                "get": {
                    "operationId": "listNodes",
                    "summary": "List nodes",
                    "responses": {"200": {"description": "ok", "content": {"application/json": {
                        "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}}}
                }
            }
        },
        "components": {"schemas": schemas}
    })
}

struct Fixture {
    _dir: tempfile::TempDir,
    spec: PathBuf,
    tools: PathBuf,
}

fn fixture(allowlist: &str) -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let spec_path = dir.path().join("openapi.json");
    std::fs::write(&spec_path, spec().to_string()).expect("write spec");
    let tools = dir.path().join("mcp_tools.yaml");
    std::fs::write(&tools, allowlist).expect("write allowlist");
    Fixture {
        _dir: dir,
        spec: spec_path,
        tools,
    }
}

fn generate(allowlist: &str) -> Result<Generation, Errors> {
    let f = fixture(allowlist);
    mcpgen_codegen::generate(&f.spec, &f.tools, &Settings::new().with_name("deep"))
}

fn generated(allowlist: &str) -> Generation {
    generate(allowlist).unwrap_or_else(|e| panic!("generates: {e}"))
}

fn tool<'g>(generation: &'g Generation, name: &str) -> &'g mcpgen_codegen::ir::Tool {
    generation
        .server
        .tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

fn assert_valid(schema: &Value, what: &str) {
    if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
        panic!("{what} is not valid 2020-12: {e}\n{schema:#}");
    }
    if let Err(e) = jsonschema::draft202012::new(schema) {
        panic!("{what} does not compile: {e}\n{schema:#}");
    }
    assert_eq!(schema["type"], "object", "{what}: root is an object");
}

fn size(value: &Value) -> usize {
    value.to_string().len()
}

fn cut_warnings<'w>(warnings: &'w [Warning], tool: &str) -> Vec<&'w Warning> {
    warnings
        .iter()
        .filter(|w| w.location.starts_with(&format!("tool `{tool}`")))
        .collect()
}

const ALL: &str = "mcp_tools:\n  - operation_id: postDeep\n  - operation_id: getTree\n  - operation_id: listNodes\n";

#[test]
fn a_small_budget_cuts_deep_schemas_and_names_each_cut() {
    let allowlist = format!("server:\n  schema_budget: 700\n  output_schema: full\n{ALL}");
    let generation = generated(&allowlist);
    let post = tool(&generation, "post_deep");
    let input = &post.input_schema;
    assert_valid(input, "input");
    // Every top-level argument stays, and so does `required`.
    let props = input["properties"].as_object().expect("properties");
    for arg in ["mode", "name1", "padding1", "next1"] {
        assert!(props.contains_key(arg), "{arg} kept: {input:#}");
    }
    assert_eq!(input["required"], json!(["mode", "name1"]));
    assert!(size(input) <= 700, "{} bytes: {input:#}", size(input));
    // Something was summarised, and the summary says what it was.
    let text = input.to_string();
    assert!(text.contains("(nested fields omitted)"), "{input:#}");
    let warnings = cut_warnings(&generation.warnings, "post_deep");
    assert!(!warnings.is_empty(), "cuts are reported");
    for w in &warnings {
        assert!(
            w.location.contains("inputSchema at `/") || w.location.contains("outputSchema at `/"),
            "{w}"
        );
        assert!(w.message.contains("700 bytes"), "{w}");
        // The pointer names a node that is a summary in the schema.
        let (which, pointer) = w
            .location
            .split_once(" at `")
            .map(|(a, b)| (a, b.trim_end_matches('`')))
            .expect("pointer");
        let schema = if which.ends_with("inputSchema") {
            input
        } else {
            post.output_schema.as_ref().expect("output schema")
        };
        let node = schema
            .pointer(pointer)
            .unwrap_or_else(|| panic!("{pointer} in {schema:#}"));
        assert!(
            node["description"]
                .as_str()
                .is_some_and(|d| d.ends_with("(nested fields omitted)")),
            "{pointer}: {node}"
        );
    }
    let output = post.output_schema.as_ref().expect("output");
    assert_valid(output, "output");
    assert!(size(output) <= 700, "{output:#}");
}

#[test]
fn budgets_are_deterministic_and_recursion_terminates() {
    let allowlist = format!("server:\n  schema_budget: 600\n  output_schema: full\n{ALL}");
    let a = generated(&allowlist);
    let b = generated(&allowlist);
    assert_eq!(a.emitted.files["tools.json"], b.emitted.files["tools.json"]);
    assert_eq!(a.warnings, b.warnings);
    // The recursive tree keeps its own definition once, referring to itself.
    let unlimited = generated(&format!(
        "server:\n  schema_budget: 0\n  output_schema: full\n{ALL}"
    ));
    let tree = tool(&unlimited, "get_tree")
        .output_schema
        .clone()
        .expect("output");
    assert_valid(&tree, "tree output");
    assert_eq!(
        tree["properties"]["children"]["items"]["$ref"], "#/$defs/Node",
        "{tree:#}"
    );
    assert!(tree["$defs"]["Node"].is_object(), "{tree:#}");
    assert!(cut_warnings(&unlimited.warnings, "get_tree").is_empty());
    // With no budget nothing deep is summarised.
    let deep = tool(&unlimited, "post_deep").input_schema.to_string();
    assert!(!deep.contains("nested fields omitted"), "{deep}");
    assert!(deep.contains("name5"), "{deep}");
}

#[test]
fn schemas_hold_only_the_definitions_they_reach() {
    let generation = generated(&format!("server:\n  output_schema: full\n{ALL}"));
    for t in &generation.server.tools {
        for schema in [Some(&t.input_schema), t.output_schema.as_ref()]
            .into_iter()
            .flatten()
        {
            let text = schema.to_string();
            if let Some(defs) = schema.get("$defs").and_then(Value::as_object) {
                for name in defs.keys() {
                    assert!(
                        text.contains(&format!("\"#/$defs/{name}\"")),
                        "{}: $defs/{name} unreferenced",
                        t.name
                    );
                }
            }
        }
    }
    // The tree's input reaches no definition at all.
    assert!(
        tool(&generation, "get_tree")
            .input_schema
            .get("$defs")
            .is_none()
    );
}

#[test]
fn descriptions_are_trimmed_unless_the_entry_gives_one() {
    let generation = generated(ALL);
    let post = tool(&generation, "post_deep");
    assert_eq!(
        post.description,
        "Creates a deep thing, see the docs. Still the first paragraph."
    );
    assert_eq!(
        post.input_schema["properties"]["mode"]["description"],
        "How to post."
    );
    // No description: the summary.
    assert_eq!(tool(&generation, "get_tree").description, "Get the tree");

    let limited = generated(&format!("server:\n  max_description_len: 20\n{ALL}"));
    assert_eq!(tool(&limited, "post_deep").description, "Creates a deep…");

    let verbatim = "Keep **this** exactly.\n\nAll of it.";
    let own = generated(&format!(
        "mcp_tools:\n  - operation_id: postDeep\n    description: {}\n",
        serde_json::to_string(verbatim).expect("json")
    ));
    assert_eq!(tool(&own, "post_deep").description, verbatim);
}

#[test]
fn output_schema_modes() {
    // compact (the default): the root's properties with their types, nothing nested, no $defs,
    // tolerant of null.
    let compact = generated(ALL);
    let post = tool(&compact, "post_deep");
    let out = post.output_schema.as_ref().expect("compact output");
    assert_valid(out, "compact");
    assert!(out.get("$defs").is_none(), "{out:#}");
    assert_eq!(
        out["properties"]["name1"],
        json!({"type": ["string", "null"]})
    );
    assert_eq!(
        out["properties"]["next1"],
        json!({"type": ["object", "null"]}),
        "{out:#}"
    );
    assert!(out.get("required").is_none());
    // Compact is the mode, not a budget cut: no warnings for its summaries.
    assert!(
        cut_warnings(&compact.warnings, "post_deep")
            .iter()
            .all(|w| !w.location.contains("outputSchema")),
        "{:#?}",
        compact.warnings
    );
    // A drifted result (missing required field, nulls, extra fields) fits the advertised one.
    let drifted = json!({"name1": null, "next1": {"whatever": 1}, "extra": true});
    let validator = jsonschema::draft202012::new(out).expect("compiles");
    assert!(validator.is_valid(&drifted));
    // Strict mode checks a documented schema at least as deep, which rejects the drift.
    let documented = post.documented_output_schema.as_ref().expect("documented");
    assert_valid(documented, "documented");
    let strict = jsonschema::draft202012::new(documented).expect("compiles");
    assert!(!strict.is_valid(&drifted));
    assert!(strict.is_valid(&json!({"name1": "a"})));
    // Typed outputs follow the advertised schema.
    let types = &compact.emitted.files["src/types.rs"];
    assert!(types.contains("PostDeepOutput"), "typed output");

    // A property named like an annotation keyword stays; its own annotations go.
    let tree = tool(&compact, "get_tree")
        .output_schema
        .clone()
        .expect("tree");
    assert_eq!(
        tree["properties"]["description"],
        json!({"type": ["string", "null"]}),
        "{tree:#}"
    );
    assert_eq!(
        tree["description"], "A tree node.",
        "the root keeps its description"
    );

    // A wrapped array in compact form.
    let list = tool(&compact, "list_nodes")
        .output_schema
        .clone()
        .expect("list");
    assert_eq!(
        list["properties"]["result"],
        json!({"type": ["array", "null"]})
    );

    // full: the tolerant schema with its definitions.
    let full = generated(&format!(
        "server:\n  output_schema: full\n  schema_budget: 0\n{ALL}"
    ));
    let out = tool(&full, "post_deep")
        .output_schema
        .clone()
        .expect("full");
    assert_valid(&out, "full");
    assert!(out["$defs"]["Level5"].is_object(), "{out:#}");

    // none: no output schema (and so no typed output), per server or per entry.
    let none = generated(&format!("server:\n  output_schema: none\n{ALL}"));
    for t in &none.server.tools {
        assert!(t.output_schema.is_none() && t.documented_output_schema.is_none());
    }
    assert!(!none.emitted.files["tools.json"].contains("outputSchema"));
    assert!(!none.emitted.files["src/types.rs"].contains("PostDeepOutput"));
    let mixed = generated(
        "server:\n  output_schema: none\nmcp_tools:\n  - operation_id: postDeep\n    output_schema: full\n  - operation_id: getTree\n",
    );
    assert!(tool(&mixed, "post_deep").output_schema.is_some());
    assert!(tool(&mixed, "get_tree").output_schema.is_none());
}

#[test]
fn invalid_allowlist_values_are_errors_naming_the_entry() {
    let e = generate("mcp_tools:\n  - operation_id: postDeep\n  - operation_id: getTree\n    output_schema: tiny\n")
        .expect_err("an error")
        .to_string();
    assert!(e.contains("entry 2 (operation_id `getTree`)"), "{e}");
    assert!(e.contains("output_schema `tiny`"), "{e}");
    assert!(e.contains("line 4"), "{e}");

    let e = generate("server:\n  output_schema: big\nmcp_tools:\n  - operation_id: postDeep\n")
        .expect_err("an error")
        .to_string();
    assert!(e.contains("big") && e.contains("line 2"), "{e}");

    let e = generate("mcp_tools:\n  - operation_id: postDeep\n    schema_budget: lots\n")
        .expect_err("an error")
        .to_string();
    assert!(e.contains("line 3"), "{e}");

    for bad in ["10/fortnight", "0/min", "ten/s", "2.5/s", "10"] {
        let e = generate(&format!(
            "mcp_tools:\n  - operation_id: postDeep\n  - operation_id: getTree\n    rate_limit: {bad}\n"
        ))
        .expect_err("an error")
        .to_string();
        assert!(e.contains("entry 2 (operation_id `getTree`)"), "{e}");
        assert!(e.contains(&format!("rate_limit `{bad}`")), "{e}");
        assert!(e.contains("line 4") && e.contains("10/min"), "{e}");
    }
}

#[test]
fn a_rate_limit_reaches_the_tool_table() {
    let g = generated(
        "mcp_tools:\n  - operation_id: postDeep\n    rate_limit: 10/min\n  - operation_id: getTree\n",
    );
    assert_eq!(tool(&g, "post_deep").rate_limit, Some((10.0 / 60.0, 10.0)));
    assert_eq!(tool(&g, "get_tree").rate_limit, None);
    let tools = &g.emitted.files["src/tools.rs"];
    assert!(tools.contains("RATE_LIMITS"), "{tools}");
    assert!(tools.contains(".with_rate_limits(RATE_LIMITS)"), "{tools}");
    assert!(
        !g.emitted.files["tools.json"].contains("rate"),
        "limits are not advertised"
    );
}

#[test]
fn every_budget_keeps_schemas_valid() {
    for budget in [1, 100, 300, 500, 800, 1200, 2048, 0] {
        for mode in ["full", "compact"] {
            let generation = generated(&format!(
                "server:\n  schema_budget: {budget}\n  output_schema: {mode}\n{ALL}"
            ));
            for t in &generation.server.tools {
                assert_valid(&t.input_schema, &format!("{} input ({budget})", t.name));
                for schema in [
                    t.output_schema.as_ref(),
                    t.documented_output_schema.as_ref(),
                ]
                .into_iter()
                .flatten()
                {
                    assert_valid(schema, &format!("{} output ({budget}, {mode})", t.name));
                }
            }
            let post = tool(&generation, "post_deep");
            assert_eq!(post.input_schema["required"], json!(["mode", "name1"]));
        }
    }
}

#[test]
fn summarised_schemas_keep_their_full_versions_beside_them() {
    let allowlist = format!("server:\n  schema_budget: 700\n  output_schema: full\n{ALL}");
    let generation = generated(&allowlist);
    let post = tool(&generation, "post_deep");
    let full = &generation
        .server
        .full_input_schema(post)
        .expect("a full input schema");
    assert_valid(full, "full input");
    let text = full.to_string();
    assert!(!text.contains("(nested fields omitted)"), "{full:#}");
    // The deepest level, summarised away in the listed schema, is all there.
    assert!(
        text.contains("name5") && text.contains("padding5"),
        "{full:#}"
    );
    assert!(!post.input_schema.to_string().contains("name5"));
    let full_output = &generation
        .server
        .full_output_schema(post)
        .expect("a full output schema");
    assert!(full_output.to_string().contains("name5"), "{full_output:#}");

    // `tools.json` (the `tools/list` payload) says the rest can be asked for;
    // `tools.full.json` holds it.
    let files = &generation.emitted.files;
    let list: Value = serde_json::from_str(&files["tools.json"]).expect("tools.json");
    let described: Value = serde_json::from_str(&files["tools.full.json"]).expect("full");
    let listed = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "post_deep")
        .unwrap();
    assert!(
        listed["description"]
            .as_str()
            .unwrap()
            .ends_with(mcpgen_runtime::SUMMARISED_NOTE),
        "{listed:#}"
    );
    let kept = described["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "post_deep")
        .expect("post_deep in tools.full.json");
    // Each tool's full schemas there are its roots; the definitions they reach are listed once
    // for all tools.
    assert_eq!(Some(&kept["inputSchema"]), post.full_input_schema.as_ref());
    assert_eq!(
        Some(&kept["outputSchema"]),
        post.full_output_schema.as_ref()
    );
    for (key, defs) in [("inputSchema", "inputDefs"), ("outputSchema", "outputDefs")] {
        let mut whole = kept[key].clone();
        whole["$defs"] = described[defs].clone();
        let expected = if key == "inputSchema" {
            full
        } else {
            full_output
        };
        let ok = jsonschema::draft202012::new(&whole).expect("compiles with the shared defs");
        let strict = jsonschema::draft202012::new(expected).expect("compiles on its own");
        for instance in [json!({}), json!({"name1": "x", "mode": "a"}), json!(3)] {
            assert_eq!(
                ok.is_valid(&instance),
                strict.is_valid(&instance),
                "{key}: {instance}"
            );
        }
    }
    assert!(files["src/tools.rs"].contains(".full_input_schema("));
    assert!(files["src/tools.rs"].contains("pub static FULL_DEFS"));

    // Without a budget nothing is summarised, and nothing is kept twice.
    let unbudgeted = generated(&format!(
        "server:\n  schema_budget: 0\n  output_schema: full\n{ALL}"
    ));
    for t in &unbudgeted.server.tools {
        assert!(t.full_input_schema.is_none() && t.full_output_schema.is_none());
    }
    let empty: Value =
        serde_json::from_str(&unbudgeted.emitted.files["tools.full.json"]).expect("full");
    assert_eq!(empty, json!({"tools": []}));
}

/// `full` output schemas have a smaller default budget than `compact` ones: nested structure
/// takes the room that examples and nested descriptions leave. On specs/library2 with full
/// output schemas, every output schema fits it and, under every profile, `tools/list` stays
/// within 10% of its size before the budget rework (SIZES.md at 76e9388: 6,985 bytes, 6,811
/// inline and cursor, 7,593 draft-07), when `library2_list_books` showed nothing of its books.
#[test]
fn full_output_schemas_fit_their_default_budget() {
    use mcpgen_codegen::budget::DEFAULT_FULL_OUTPUT_SCHEMA_BUDGET;
    use mcpgen_codegen::profile::Profile;

    let specs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../specs/library2");
    let dir = tempfile::tempdir().expect("tempdir");
    let allowlist = std::fs::read_to_string(specs.join("mcp_tools.yaml")).expect("allowlist");
    let allowlist = allowlist.replacen("server:\n", "server:\n  output_schema: full\n", 1);
    let tools = dir.path().join("mcp_tools.yaml");
    std::fs::write(&tools, allowlist).expect("write the allowlist");
    for (profile, before) in [
        (Profile::Default, 6985),
        (Profile::Inline, 6811),
        (Profile::Draft07, 7593),
        (Profile::Cursor, 6811),
    ] {
        let settings = Settings::new().with_profile(profile);
        let generation = mcpgen_codegen::generate(&specs.join("openapi.json"), &tools, &settings)
            .unwrap_or_else(|e| panic!("library2 under {profile}: {e}"));
        if profile == Profile::Default {
            for t in &generation.server.tools {
                let Some(out) = &t.output_schema else {
                    continue;
                };
                assert!(
                    size(out) <= DEFAULT_FULL_OUTPUT_SCHEMA_BUDGET,
                    "{}: {} bytes",
                    t.name,
                    size(out)
                );
            }
            // The books a list returns show their fields' names and types.
            let list = tool(&generation, "library2_list_books");
            let out = list.output_schema.as_ref().expect("output");
            let items = &out["properties"]["items"]["items"];
            assert!(items["properties"]["title"].is_object(), "{out:#}");
        }
        let bytes = generation.emitted.list_size.bytes;
        assert!(
            bytes * 10 <= before * 11,
            "{profile}: tools/list {bytes} bytes, {before} before the budget rework"
        );
    }
}

#[test]
fn declarations_show_the_fields_of_returned_types_whatever_the_output_mode() {
    // compact lists only the root's fields; the declaration a program reads has them all.
    let compact = generated(ALL);
    let file = &compact.emitted.files["tools.d.ts"];
    assert!(
        file.contains("list_nodes(args: {}): Promise<Node[] | null>;"),
        "{file}"
    );
    assert!(file.contains("children?: Node[] | null;"), "{file}");
    assert!(file.contains("next1?: Level2 | null;"), "{file}");
    assert!(file.contains("name5?: string | null;"), "{file}");
    let post = tool(&compact, "post_deep");
    let declared = post.declared_output_schema.as_ref().expect("declared");
    assert!(size(declared) <= mcpgen_codegen::budget::DECLARED_OUTPUT_BUDGET);
    // The tool's own declaration, as `describe_tools` returns it, agrees.
    let tools_rs = &compact.emitted.files["src/tools.rs"];
    assert!(
        tools_rs.contains("next1?: Level2 | null;"),
        "the declaration is kept"
    );
}

#[test]
fn a_result_type_past_its_budget_is_shallower_and_never_fails() {
    // 40 fields, each an object of 12 described fields: about 40 KiB of schema.
    let inner: serde_json::Map<String, Value> = (0..12)
        .map(|i| {
            (
                format!("leaf{i}"),
                json!({"type": "string", "description": format!("Leaf {i}, described at some length.")}),
            )
        })
        .collect();
    let outer: serde_json::Map<String, Value> = (0..40)
        .map(|i| {
            (
                format!("part{i}"),
                json!({"type": "object", "properties": inner.clone()}),
            )
        })
        .collect();
    let spec = json!({
        "openapi": "3.0.3",
        "info": {"title": "Wide", "version": "1.0.0"},
        "servers": [{"url": "https://wide.example.com"}],
        "paths": {"/wide": {"get": {
            "operationId": "getWide",
            "summary": "Get a wide thing",
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"type": "object", "properties": outer}}}}}
        }}}
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let spec_path = dir.path().join("openapi.json");
    std::fs::write(&spec_path, spec.to_string()).expect("write spec");
    let tools = dir.path().join("mcp_tools.yaml");
    std::fs::write(&tools, "mcp_tools:\n  - operation_id: getWide\n").expect("write allowlist");
    let generation =
        mcpgen_codegen::generate(&spec_path, &tools, &Settings::new().with_name("wide"))
            .unwrap_or_else(|e| panic!("generates: {e}"));
    let wide = tool(&generation, "get_wide");
    let declared = wide.declared_output_schema.as_ref().expect("declared");
    assert!(
        size(declared) <= mcpgen_codegen::budget::DECLARED_OUTPUT_BUDGET,
        "{}",
        size(declared)
    );
    let file = &generation.emitted.files["tools.d.ts"];
    // Every field of the root is there, their own fields summarised.
    for i in 0..40 {
        assert!(file.contains(&format!("part{i}?: ")), "part{i}: {file}");
    }
    assert!(file.contains("(nested fields omitted)"), "{file}");
    assert!(file.contains("[key: string]: unknown;"), "{file}");
}
