//! Budgets under the profiles that inline references (`inline`, `cursor`). Inlining repeats a
//! definition wherever it is referenced, so a schema that fits its budget with `$defs` can be
//! far over it once inlined (specs/graph_cycles: `graph_cycles_create_project` went from 1,992
//! to 4,880 bytes). On that cyclic spec, with output schemas in `full` mode: every listed
//! schema stays within its budget, every required argument path stays visible, a tool
//! summarised only once inlined keeps its default schema as its full one, recursion stubs keep
//! their mark, each summary is reported, and the Rust types are the default profile's.

use std::path::Path;

use mcpgen_codegen::budget::{DEFAULT_FULL_OUTPUT_SCHEMA_BUDGET, DEFAULT_INPUT_SCHEMA_BUDGET};
use mcpgen_codegen::coverage::{COVERAGE_DEPTH, Coverage};
use mcpgen_codegen::profile::{self, Profile};
use mcpgen_codegen::{Generation, Settings};
use serde_json::Value;

/// specs/graph_cycles in `dir`, its allowlist asking for full output schemas.
fn graph_cycles(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let specs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs/graph_cycles");
    for file in ["openapi.yaml", "common.yaml"] {
        std::fs::copy(specs.join(file), dir.join(file)).expect("copy the spec");
    }
    let allowlist = std::fs::read_to_string(specs.join("mcp_tools.yaml")).expect("allowlist");
    let allowlist = allowlist.replacen("server:\n", "server:\n  output_schema: full\n", 1);
    assert!(allowlist.contains("output_schema: full"));
    let tools = dir.join("mcp_tools.yaml");
    std::fs::write(&tools, allowlist).expect("write the allowlist");
    (dir.join("openapi.yaml"), tools)
}

fn generate(spec: &Path, tools: &Path, profile: Profile) -> Generation {
    let settings = Settings::new().with_profile(profile);
    mcpgen_codegen::generate(spec, tools, &settings)
        .unwrap_or_else(|e| panic!("graph_cycles under {profile}: {e}"))
}

fn size(value: &Value) -> usize {
    value.to_string().len()
}

#[test]
fn inlined_schemas_are_fitted_to_the_budget_again() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (spec, tools) = graph_cycles(tmp.path());
    let default = generate(&spec, &tools, Profile::Default);
    let project = "graph_cycles_create_project";
    let default_project = default
        .server
        .tools
        .iter()
        .find(|t| t.name == project)
        .expect(project);
    assert!(
        default_project.full_input_schema.is_none(),
        "{project} fits with $defs: the case this test is about"
    );
    for profile in [Profile::Inline, Profile::Cursor] {
        let generation = generate(&spec, &tools, profile);
        assert_eq!(
            generation.emitted.files["src/types.rs"], default.emitted.files["src/types.rs"],
            "{profile}: the types are the default profile's"
        );
        let listed: Value =
            serde_json::from_str(&generation.emitted.files["tools.json"]).expect("tools.json");
        let listed = listed["tools"].as_array().expect("tools");
        let advertised = profile::advertised(&generation.server, profile, &mut Vec::new());
        for tool in &advertised.tools {
            let entry = listed
                .iter()
                .find(|t| t["name"] == tool.name.as_str())
                .expect("listed");
            assert_eq!(entry["inputSchema"], tool.input_schema, "{}", tool.name);
            let input = size(&tool.input_schema);
            assert!(
                input <= DEFAULT_INPUT_SCHEMA_BUDGET,
                "{profile}: {} inputSchema is {input} bytes",
                tool.name
            );
            if let Some(output) = &tool.output_schema {
                assert!(
                    size(output) <= DEFAULT_FULL_OUTPUT_SCHEMA_BUDGET,
                    "{profile}: {} outputSchema is {} bytes",
                    tool.name,
                    size(output)
                );
            }
            // Every required path of the complete default schema is still listed.
            let full = advertised.full_input_schema(tool);
            let full = full.as_ref().unwrap_or(&tool.input_schema);
            let c = Coverage::of(&tool.input_schema, full, COVERAGE_DEPTH);
            assert_eq!(c.required_visible, c.required, "{profile}: {}", tool.name);
        }

        // Every recursion stub still reported is in the listed schema and keeps its mark,
        // also where nested descriptions were trimmed; stubs inside a summary are not reported.
        let stubs: Vec<&mcpgen_codegen::Warning> = generation
            .warnings
            .iter()
            .filter(|w| w.message.contains("recurs inside itself"))
            .collect();
        assert!(!stubs.is_empty());
        for stub in stubs {
            // "tool `NAME` inputSchema at `#/POINTER`"
            let (tool, which, pointer) = stub
                .location
                .strip_prefix("tool `")
                .and_then(|rest| rest.split_once("` "))
                .and_then(|(tool, rest)| {
                    let (which, pointer) = rest.split_once(" at `#")?;
                    Some((tool, which, pointer.trim_end_matches('`')))
                })
                .unwrap_or_else(|| panic!("{stub}"));
            let entry = listed.iter().find(|t| t["name"] == tool).expect("listed");
            let node = entry[which]
                .pointer(pointer)
                .unwrap_or_else(|| panic!("{profile}: no node for {stub}"));
            assert!(
                node["description"]
                    .as_str()
                    .is_some_and(|d| d.ends_with("(recursive; nested levels omitted)")),
                "{profile}: {stub}: {node}"
            );
        }

        // Summarised only once inlined: the default schema is its full one, `describe_tools`
        // is listed and the description says so.
        let tool = advertised
            .tools
            .iter()
            .find(|t| t.name == project)
            .expect(project);
        assert_eq!(
            advertised.full_input_schema(tool).as_ref(),
            Some(&default_project.input_schema),
            "{profile}"
        );
        let entry = listed.iter().find(|t| t["name"] == project).expect(project);
        assert!(
            entry["description"]
                .as_str()
                .is_some_and(|d| d.contains("describe_tools")),
            "{entry}"
        );
        assert!(listed.iter().any(|t| t["name"] == "describe_tools"));
        let full_json: Value =
            serde_json::from_str(&generation.emitted.files["tools.full.json"]).expect("full");
        assert!(
            full_json["tools"]
                .as_array()
                .is_some_and(|t| t.iter().any(|t| t["name"] == project)),
            "tools.full.json lists {project}"
        );

        // Each summary is a warning naming the tool and a pointer of the listed schema.
        let cuts: Vec<&str> = generation
            .warnings
            .iter()
            .filter(|w| w.message.contains("once references were inlined"))
            .filter_map(|w| {
                w.location
                    .strip_prefix(&format!("tool `{project}`: inputSchema at `"))
            })
            .map(|p| p.trim_end_matches('`'))
            .collect();
        assert!(!cuts.is_empty(), "{:#?}", generation.warnings);
        for pointer in cuts {
            assert!(
                tool.input_schema.pointer(pointer).is_some(),
                "{profile}: no node at {pointer}"
            );
        }

        // The whole list stays within 10% of the default profile's.
        let (listed_bytes, default_bytes) = (
            generation.emitted.list_size.bytes,
            default.emitted.list_size.bytes,
        );
        assert!(
            listed_bytes * 10 <= default_bytes * 11,
            "{profile}: tools/list {listed_bytes} bytes, default {default_bytes}"
        );
    }
}
