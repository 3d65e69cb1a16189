//! Client profiles (`server.profile` / `mcpgen generate --profile`): every shipped spec under
//! every profile generates, its advertised schemas are valid in the profile's dialect (checked
//! against the dialect's meta-schema and compiled by a validator of that dialect), `inline`
//! leaves no `$ref` or `$defs`, `draft-07` leaves no 2020-12 keyword, and the types do not
//! change; the transforms themselves on hand-written schemas; the override and the errors.

use std::path::{Path, PathBuf};
use std::process::Command;

use jsonschema::Draft;
use mcpgen_codegen::profile::{self, Profile};
use mcpgen_codegen::{RuntimeDep, Settings};
use serde_json::{Value, json};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("repo root")
}

fn generate(folder: &mcpgen_codegen::SpecFolder, profile: Profile) -> mcpgen_codegen::Generation {
    let settings = Settings::new()
        .with_runtime(RuntimeDep::Workspace)
        .with_default_name(folder.folder.clone())
        .with_profile(profile);
    mcpgen_codegen::generate(&folder.spec, &folder.tools, &settings)
        .unwrap_or_else(|e| panic!("{} under {profile}: {e}", folder.folder))
}

/// Schema keywords that hold subschemas, by shape (as the generator's own walks read them).
const ONE: &[&str] = &[
    "items",
    "additionalItems",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
];
const LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
const MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];

/// Every keyword used anywhere in `schema` (not property names, not data), with its pointer.
fn keywords(schema: &Value, ptr: &str, out: &mut Vec<(String, String)>) {
    let Value::Object(map) = schema else {
        return;
    };
    for (key, value) in map {
        let at = format!("{ptr}/{key}");
        out.push((key.clone(), at.clone()));
        if LIST.contains(&key.as_str()) || (key == "items" && value.is_array()) {
            for (i, v) in value.as_array().into_iter().flatten().enumerate() {
                keywords(v, &format!("{at}/{i}"), out);
            }
        } else if ONE.contains(&key.as_str()) {
            keywords(value, &at, out);
        } else if MAP.contains(&key.as_str()) {
            for (name, v) in value.as_object().into_iter().flatten() {
                keywords(v, &format!("{at}/{name}"), out);
            }
        }
    }
}

fn keywords_of(schema: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    keywords(schema, "", &mut out);
    out
}

const ONLY_2020_12: &[&str] = &[
    "$defs",
    "prefixItems",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
    "unevaluatedItems",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "contentSchema",
    "minContains",
    "maxContains",
];

/// Checks one advertised schema against the rules of `profile`; `what` names it in messages.
fn check_schema(schema: &Value, profile: Profile, what: &str) {
    let draft = match profile {
        Profile::Draft07 => {
            jsonschema::draft7::meta::validate(schema)
                .unwrap_or_else(|e| panic!("{what}: not a valid draft-07 schema: {e}"));
            Draft::Draft7
        }
        _ => {
            jsonschema::draft202012::meta::validate(schema)
                .unwrap_or_else(|e| panic!("{what}: not a valid 2020-12 schema: {e}"));
            Draft::Draft202012
        }
    };
    if let Err(e) = jsonschema::options().with_draft(draft).build(schema) {
        panic!("{what}: does not compile as {draft:?}: {e}");
    }
    let used = keywords_of(schema);
    match profile {
        Profile::Inline | Profile::Cursor => {
            for (key, at) in &used {
                assert!(
                    !["$ref", "$defs", "definitions"].contains(&key.as_str()),
                    "{what}: `{key}` at {at}"
                );
            }
        }
        Profile::Draft07 => {
            assert_eq!(
                schema["$schema"],
                json!(profile::DRAFT_07_SCHEMA),
                "{what}: $schema"
            );
            for (key, at) in &used {
                assert!(
                    !ONLY_2020_12.contains(&key.as_str()),
                    "{what}: 2020-12 keyword `{key}` at {at}"
                );
            }
            let mut refs = Vec::new();
            collect_refs(schema, &mut refs);
            for r in refs {
                assert!(r.starts_with("#/definitions/"), "{what}: $ref `{r}`");
            }
        }
        Profile::Default => {}
    }
}

/// Every full schema of `full` (a profile's `tools.full.json`) stands for the default
/// profile's: its full schema, or the complete schema it lists; every default full schema is
/// there.
fn assert_full_schemas_are_the_default_ones(
    full: &Value,
    default: &mcpgen_codegen::Generation,
    profile: Profile,
    folder: &str,
) {
    let default_full: Value =
        serde_json::from_str(&default.emitted.files["tools.full.json"]).expect("parses");
    let listed: Value = serde_json::from_str(&default.emitted.files["tools.json"]).expect("parses");
    let find = |doc: &Value, name: &Value| {
        doc["tools"]
            .as_array()
            .and_then(|tools| tools.iter().find(|t| &t["name"] == name))
            .cloned()
    };
    // A full schema with the shared definitions it reaches, standing on its own.
    let whole = |doc: &Value, tool: &Value, key: &str, defs: &str| {
        let defs: std::collections::BTreeMap<String, Value> = doc
            .get(defs)
            .and_then(Value::as_object)
            .map(|d| d.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        Some(mcpgen_codegen::budget::with_defs(tool.get(key)?, &defs))
    };
    for tool in default_full["tools"].as_array().expect("tools") {
        assert!(
            find(full, &tool["name"]).is_some(),
            "{folder}/{profile}: {} has no full schema",
            tool["name"]
        );
    }
    for tool in full["tools"].as_array().expect("tools") {
        for (key, defs) in [("inputSchema", "inputDefs"), ("outputSchema", "outputDefs")] {
            let Some(schema) = whole(full, tool, key, defs) else {
                continue;
            };
            let expected = match find(&default_full, &tool["name"]) {
                Some(t) if t.get(key).is_some() => whole(&default_full, &t, key, defs),
                _ => find(&listed, &tool["name"]).and_then(|t| t.get(key).cloned()),
            };
            assert_eq!(
                Some(&schema),
                expected.as_ref(),
                "{folder}/{profile}: full {key} of {}",
                tool["name"]
            );
        }
    }
}

fn collect_refs(schema: &Value, out: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref") {
                out.push(r.clone());
            }
            map.values().for_each(|v| collect_refs(v, out));
        }
        Value::Array(list) => list.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

#[test]
fn every_spec_under_every_profile_advertises_valid_schemas_of_its_dialect() {
    let folders = mcpgen_codegen::spec_folders(&root()).expect("specs");
    assert!(folders.iter().any(|f| f.folder == "graph_cycles"));
    for folder in &folders {
        let default = generate(folder, Profile::Default);
        for profile in Profile::ALL {
            let generation = generate(folder, profile);
            let files = &generation.emitted.files;
            let text = &files["tools.json"];
            let tools: Value = serde_json::from_str(text).expect("tools.json parses");
            if matches!(profile, Profile::Inline | Profile::Cursor) {
                assert!(
                    !text.contains("\"$ref\":") && !text.contains("\"$defs\":"),
                    "{}/{profile}: tools.json has $ref or $defs",
                    folder.folder
                );
            }
            let table = &files["src/tools.rs"];
            for tool in tools["tools"].as_array().expect("tools") {
                let name = tool["name"].as_str().expect("name");
                for key in ["inputSchema", "outputSchema"] {
                    let Some(schema) = tool.get(key) else {
                        continue;
                    };
                    let what = format!("{}/{profile}: tool `{name}` {key}", folder.folder);
                    if name == mcpgen_runtime::DESCRIBE_TOOLS.name {
                        // The meta-tool listed next to summarised tools comes from mcpgen-core;
                        // its schema uses only keywords every dialect reads alike.
                        let core: Value =
                            serde_json::from_str(mcpgen_runtime::DESCRIBE_TOOLS.input_schema)
                                .expect("JSON");
                        assert_eq!(schema, &core, "{what}");
                        continue;
                    }
                    check_schema(schema, profile, &what);
                    // The tool table serves exactly what tools.json shows.
                    let pretty = serde_json::to_string_pretty(schema).expect("a schema prints");
                    assert!(table.contains(&pretty), "{what}: not in src/tools.rs");
                }
            }
            // The full schemas kept beside summarised ones are the default profile's (2020-12,
            // references into shared definitions): clients never read them as a tool's schema.
            // A tool summarised only once inlined keeps its default schema as its full one.
            let full: Value =
                serde_json::from_str(&files["tools.full.json"]).expect("tools.full.json parses");
            assert_full_schemas_are_the_default_ones(&full, &default, profile, &folder.folder);
            for tool in full["tools"].as_array().expect("tools") {
                for (key, defs) in [("inputSchema", "inputDefs"), ("outputSchema", "outputDefs")] {
                    if let Some(schema) = tool.get(key) {
                        let what = format!(
                            "{}/{profile}: full {key} of {}",
                            folder.folder, tool["name"]
                        );
                        let mut whole = schema.clone();
                        if let Some(defs) = full.get(defs) {
                            whole["$defs"] = defs.clone();
                        }
                        check_schema(&whole, Profile::Default, &what);
                    }
                }
            }
            // A profile changes what is advertised, never the Rust types (`cursor` may rename
            // tools, and types are named after tools).
            let (types, default_types) = (
                &files["src/types.rs"],
                &default.emitted.files["src/types.rs"],
            );
            if types != default_types && profile != Profile::Cursor {
                let first = types
                    .lines()
                    .zip(default_types.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(0);
                panic!(
                    "{}/{profile}: src/types.rs differs from the default profile's at line {}: {:?} vs {:?}",
                    folder.folder,
                    first + 1,
                    types.lines().nth(first),
                    default_types.lines().nth(first)
                );
            }
            // Deterministic.
            let again = generate(folder, profile);
            assert_eq!(files, &again.emitted.files, "{}/{profile}", folder.folder);
        }
    }
}

#[test]
fn inline_cuts_recursion_with_a_stub_and_a_warning_naming_tool_and_pointer() {
    let folders = mcpgen_codegen::spec_folders(&root()).expect("specs");
    let graph = folders
        .iter()
        .find(|f| f.folder == "graph_cycles")
        .expect("graph_cycles");
    let generation = generate(graph, Profile::Inline);
    let tools: Value =
        serde_json::from_str(&generation.emitted.files["tools.json"]).expect("tools.json");
    let cuts: Vec<&mcpgen_codegen::Warning> = generation
        .warnings
        .iter()
        .filter(|w| w.message.contains("nested levels cut") && w.message.contains("`inline`"))
        .collect();
    assert!(!cuts.is_empty(), "{:#?}", generation.warnings);
    for cut in &cuts {
        // "tool `NAME` inputSchema at `#/POINTER`": the pointer names the stub.
        let (tool_part, pointer) = cut
            .location
            .split_once(" at `#")
            .unwrap_or_else(|| panic!("{cut}"));
        let name = tool_part
            .strip_prefix("tool `")
            .and_then(|t| t.split_once('`'))
            .map(|(n, which)| (n, which.trim()))
            .unwrap_or_else(|| panic!("{cut}"));
        let pointer = pointer.trim_end_matches('`');
        let tool = tools["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .find(|t| t["name"] == name.0)
            .unwrap_or_else(|| panic!("{cut}: no such tool"));
        let stub = tool[name.1]
            .pointer(pointer)
            .unwrap_or_else(|| panic!("{cut}: no node at the pointer"));
        let description = stub["description"].as_str().expect("stub description");
        assert!(
            description.ends_with("(recursive; nested levels omitted)"),
            "{cut}: {stub}"
        );
        assert!(stub.get("properties").is_none(), "{cut}: {stub}");
    }
}

#[test]
fn inline_expands_references_once_and_stubs_the_recursion() {
    let schema = json!({
        "type": "object",
        "properties": {
            "root": {"$ref": "#/$defs/Node", "description": "The root node"},
            "owner": {"$ref": "#/$defs/Person"},
            "nullable": {"anyOf": [{"$ref": "#/$defs/Person"}, {"type": "null"}]},
            "strict": {"$ref": "#/$defs/Person", "required": ["name"]}
        },
        "$defs": {
            "Node": {
                "type": "object",
                "description": "A tree node",
                "properties": {
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                    "parent": {"$ref": "#/$defs/Node", "description": "Up."}
                }
            },
            "Person": {"type": "object", "properties": {"name": {"type": "string"}}}
        }
    });
    let (out, notes) = profile::inline(&schema);
    let person = json!({"type": "object", "properties": {"name": {"type": "string"}}});
    assert_eq!(
        out,
        json!({
            "type": "object",
            "properties": {
                "root": {
                    "type": "object",
                    "description": "The root node",
                    "properties": {
                        "children": {"type": "array", "items": {
                            "type": "object",
                            "description": "A Node (recursive; nested levels omitted)"
                        }},
                        "parent": {
                            "type": "object",
                            "description": "Up. A Node (recursive; nested levels omitted)"
                        }
                    }
                },
                "owner": person,
                "nullable": {"anyOf": [person, {"type": "null"}]},
                "strict": {"required": ["name"], "allOf": [person]}
            }
        })
    );
    let pointers: Vec<&str> = notes.iter().map(|n| n.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        [
            "/properties/root/properties/children/items",
            "/properties/root/properties/parent"
        ]
    );
    assert!(notes[0].message.contains("`Node`"), "{:?}", notes[0]);
    assert_eq!(profile::inline(&schema).0, out, "deterministic");
}

#[test]
fn inline_terminates_on_mutual_and_self_recursion() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}, "me": {"$ref": "#"}},
        "$defs": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
            "B": {"type": ["object", "null"], "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/$defs/B"}}}
        }
    });
    let (out, notes) = profile::inline(&schema);
    let text = out.to_string();
    assert!(!text.contains("$ref") && !text.contains("$defs"), "{out:#}");
    assert_eq!(
        out.pointer("/properties/a/properties/b/properties/a"),
        Some(&json!({"type": "object", "description": "A A (recursive; nested levels omitted)"}))
    );
    assert_eq!(
        out.pointer("/properties/a/properties/b/properties/b/type"),
        Some(&json!(["object", "null"]))
    );
    assert!(notes.len() >= 3, "{notes:?}");
    jsonschema::draft202012::meta::validate(&out).expect("valid 2020-12");
}

#[test]
fn draft07_rewrites_the_2020_12_keywords() {
    let schema = json!({
        "type": "object",
        "properties": {
            "pair": {
                "type": "array",
                "prefixItems": [{"type": "string"}, {"$ref": "#/$defs/Count"}],
                "items": false
            },
            "prefixItems": {"type": "string", "enum": ["$defs", "prefixItems"]},
            "card": {
                "type": "object",
                "properties": {"number": {"type": "string"}, "cvc": {"type": "string"}},
                "dependentRequired": {"number": ["cvc"]},
                "dependentSchemas": {"cvc": {"required": ["number"]}, "number": {"minProperties": 2}},
                "unevaluatedProperties": false
            },
            "mixed": {
                "allOf": [{"type": "object"}],
                "unevaluatedProperties": false
            },
            "tags": {"type": "array", "contains": {"const": "x"}, "minContains": 1},
            "count": {"$ref": "#/$defs/Count", "description": "How many"},
            "big": {"type": "integer", "exclusiveMinimum": 10},
            "settings": {"type": "object", "default": {"prefixItems": 1, "$defs": 2}}
        },
        "$defs": {"Count": {"type": "integer", "minimum": 0}}
    });
    let (out, notes) = profile::draft07(&schema);
    assert_eq!(
        out,
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "pair": {
                    "type": "array",
                    "items": [{"type": "string"}, {"$ref": "#/definitions/Count"}],
                    "additionalItems": false
                },
                "prefixItems": {"type": "string", "enum": ["$defs", "prefixItems"]},
                "card": {
                    "type": "object",
                    "properties": {"number": {"type": "string"}, "cvc": {"type": "string"}},
                    "dependencies": {
                        "number": {"allOf": [{"required": ["cvc"]}, {"minProperties": 2}]},
                        "cvc": {"required": ["number"]}
                    }
                },
                "mixed": {"allOf": [{"type": "object"}]},
                "tags": {"type": "array", "contains": {"const": "x"}},
                "count": {"description": "How many", "allOf": [{"$ref": "#/definitions/Count"}]},
                "big": {"type": "integer", "exclusiveMinimum": 10},
                "settings": {"type": "object", "default": {"prefixItems": 1, "$defs": 2}}
            },
            "definitions": {"Count": {"type": "integer", "minimum": 0}}
        })
    );
    // Next to an in-place applicator (`dependentSchemas`, `allOf`), `unevaluatedProperties`
    // cannot become `additionalProperties`: dropped, with a note naming the pointer.
    let pointers: Vec<&str> = notes.iter().map(|n| n.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        [
            "/properties/card/unevaluatedProperties",
            "/properties/mixed/unevaluatedProperties",
            "/properties/tags/minContains"
        ]
    );
    jsonschema::draft7::meta::validate(&out).expect("valid draft-07");
    let validator = jsonschema::draft7::new(&out).expect("compiles as draft-07");
    assert!(validator.is_valid(&json!({"pair": ["a", 1], "count": 3})));
    assert!(!validator.is_valid(&json!({"pair": ["a", 1, 2]})));
    assert!(!validator.is_valid(&json!({"pair": ["a", -1]})));
    assert!(!validator.is_valid(&json!({"card": {"number": "4"}})));
    assert!(!validator.is_valid(&json!({"big": 10})));
}

#[test]
fn draft07_translates_unevaluated_keywords_where_they_mean_additional_ones() {
    let schema = json!({
        "type": "object",
        "properties": {
            "closed": {"type": "object", "properties": {"a": {}}, "unevaluatedProperties": false},
            "tuple": {"type": "array", "prefixItems": [{"type": "string"}], "unevaluatedItems": false},
            "list": {"type": "array", "unevaluatedItems": {"type": "string"}}
        }
    });
    let (out, notes) = profile::draft07(&schema);
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(
        out["properties"]["closed"],
        json!({"type": "object", "properties": {"a": {}}, "additionalProperties": false})
    );
    assert_eq!(
        out["properties"]["tuple"],
        json!({"type": "array", "items": [{"type": "string"}], "additionalItems": false})
    );
    assert_eq!(
        out["properties"]["list"],
        json!({"type": "array", "items": {"type": "string"}})
    );
}

fn mcpgen(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(args)
        .output()
        .expect("mcpgen runs")
}

/// The graph_cycles allowlist with `profile: <profile>` in its `server:` block, in `dir`.
fn allowlist_with_profile(dir: &Path, profile: &str) -> PathBuf {
    let original =
        std::fs::read_to_string(root().join("specs/graph_cycles/mcp_tools.yaml")).expect("read");
    assert!(
        original.contains("\nserver:\n"),
        "graph_cycles has a server block"
    );
    let text = original.replacen(
        "\nserver:\n",
        &format!("\nserver:\n  profile: {profile}\n"),
        1,
    );
    let path = dir.join("mcp_tools.yaml");
    std::fs::write(&path, text).expect("write allowlist");
    path
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[test]
fn the_profile_flag_overrides_the_allowlist() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let tools = allowlist_with_profile(tmp.path(), "draft-07");
    let spec = root().join("specs/graph_cycles/openapi.yaml");
    let run = |out: &Path, extra: &[&str]| {
        let mut args = vec![
            "generate",
            "--spec",
            path_str(&spec),
            "--tools",
            path_str(&tools),
            "--out",
            path_str(out),
        ];
        args.extend_from_slice(extra);
        let o = mcpgen(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(out.join("tools.json")).expect("tools.json")
    };
    let from_allowlist = run(&tmp.path().join("a"), &[]);
    assert!(from_allowlist.contains(profile::DRAFT_07_SCHEMA));
    assert!(from_allowlist.contains("\"#/definitions/"));
    let overridden = run(&tmp.path().join("b"), &["--profile", "inline"]);
    assert!(!overridden.contains(profile::DRAFT_07_SCHEMA));
    assert!(!overridden.contains("\"$ref\":") && !overridden.contains("\"definitions\":"));
    let default = run(&tmp.path().join("c"), &["--profile", "default"]);
    assert!(!default.contains(profile::DRAFT_07_SCHEMA));
    assert!(default.contains("\"$ref\": \"#/$defs/"));
}

#[test]
fn an_unknown_profile_is_an_error_naming_where_and_the_valid_values() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let spec = root().join("specs/graph_cycles/openapi.yaml");
    let tools = allowlist_with_profile(tmp.path(), "fancy");
    let o = mcpgen(&[
        "check",
        "--spec",
        path_str(&spec),
        "--tools",
        path_str(&tools),
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    for needle in [
        "server.profile",
        "`fancy`",
        "line 3",
        "`default`",
        "`inline`",
        "`draft-07`",
        "`cursor`",
    ] {
        assert!(err.contains(needle), "{needle} missing: {err}");
    }

    let good = root().join("specs/graph_cycles/mcp_tools.yaml");
    let out = tmp.path().join("out");
    let o = mcpgen(&[
        "generate",
        "--spec",
        path_str(&spec),
        "--tools",
        path_str(&good),
        "--out",
        path_str(&out),
        "--profile",
        "draft07",
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    for needle in [
        "--profile",
        "draft07",
        "`default`",
        "`inline`",
        "`draft-07`",
        "`cursor`",
    ] {
        assert!(err.contains(needle), "{needle} missing: {err}");
    }
    assert!(!out.exists(), "nothing is written");

    let help = mcpgen(&["generate", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("--profile <P>") && help.contains("draft-07"),
        "{help}"
    );
}

/// A one-operation spec whose operationId is `len` characters long, and its allowlist with
/// `extra` lines in the entry.
fn long_id_spec(dir: &Path, len: usize, extra: &str, server: &str) -> (PathBuf, PathBuf) {
    let id: String = "list_every_widget_"
        .chars()
        .cycle()
        .take(len)
        .collect::<String>()
        .trim_end_matches('_')
        .to_owned()
        + "x";
    let spec = dir.join("openapi.yaml");
    std::fs::write(
        &spec,
        format!(
            "openapi: 3.0.3\ninfo: {{title: W, version: '1'}}\nservers: [{{url: 'https://w.example'}}]\n\
             paths:\n  /w:\n    get:\n      operationId: {id}\n      responses:\n        '200':\n          description: ok\n"
        ),
    )
    .expect("write spec");
    let tools = dir.join("mcp_tools.yaml");
    std::fs::write(
        &tools,
        format!("server:\n  name: widgets\n{server}mcp_tools:\n  - operation_id: {id}\n{extra}"),
    )
    .expect("write allowlist");
    (spec, tools)
}

#[test]
fn the_cursor_profile_keeps_tool_names_within_60_characters() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (spec, tools) = long_id_spec(tmp.path(), 70, "", "");
    let name_under = |profile: Profile| {
        let settings = Settings::new().with_profile(profile);
        let generation = mcpgen_codegen::generate(&spec, &tools, &settings).expect("generates");
        generation.server.tools[0].name.clone()
    };
    assert_eq!(name_under(Profile::Default).len(), 64);
    assert_eq!(name_under(Profile::Inline).len(), 64);
    let cursor = name_under(Profile::Cursor);
    assert_eq!(cursor.len(), 60, "{cursor}");
    assert_eq!(cursor, name_under(Profile::Cursor), "stable");

    // An explicit name longer than 60 is an error under `cursor`, naming the entry.
    let long = "n".repeat(62);
    let (spec, tools) = long_id_spec(
        tmp.path(),
        20,
        &format!("    name: {long}\n"),
        "  profile: cursor\n",
    );
    let err = mcpgen_codegen::generate(&spec, &tools, &Settings::new())
        .expect_err("too long for cursor")
        .to_string();
    assert!(err.contains("entry 1") && err.contains("{1,60}"), "{err}");
    // A lower `max_name_len` still applies.
    let (spec, tools) = long_id_spec(
        tmp.path(),
        70,
        "",
        "  profile: cursor\n  max_name_len: 40\n",
    );
    let generation = mcpgen_codegen::generate(&spec, &tools, &Settings::new()).expect("generates");
    assert_eq!(generation.server.tools[0].name.len(), 40);
}
