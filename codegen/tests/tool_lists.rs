//! Properties every generated tool list must have: valid names, `type: object` input schemas,
//! and schemas that are valid JSON Schema 2020-12.

use std::path::PathBuf;

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn all_tool_lists() -> Vec<(String, Value)> {
    let root = root();
    let mut out = Vec::new();
    for folder in mcpgen_codegen::spec_folders(&root).expect("specs/ readable") {
        let generation = mcpgen_codegen::generate_folder(&root, &folder).expect("generates");
        let text = &generation.emitted.files["tools.json"];
        out.push((
            folder.folder.clone(),
            serde_json::from_str(text).expect("tools.json is JSON"),
        ));
    }
    let hostile = root.join("generator/tests/fixtures/hostile");
    let generation = mcpgen_codegen::generate(
        &hostile.join("openapi.yaml"),
        &hostile.join("mcp_tools.yaml"),
        &mcpgen_codegen::Settings::new(),
    )
    .expect("hostile spec generates");
    out.push((
        "hostile".into(),
        serde_json::from_str(&generation.emitted.files["tools.json"]).expect("JSON"),
    ));
    out
}

fn tools(list: &Value) -> &Vec<Value> {
    list["tools"].as_array().expect("tools array")
}

#[test]
fn every_schema_is_valid_json_schema_2020_12() {
    for (spec, list) in all_tool_lists() {
        for tool in tools(&list) {
            let name = tool["name"].as_str().unwrap_or_default();
            for key in ["inputSchema", "outputSchema"] {
                let Some(schema) = tool.get(key) else {
                    continue;
                };
                if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
                    panic!("{spec}/{name} {key} is not valid 2020-12: {e}\n{schema:#}");
                }
                // It also compiles as a validator (all $refs resolve).
                if let Err(e) = jsonschema::draft202012::new(schema) {
                    panic!("{spec}/{name} {key} does not compile: {e}");
                }
                assert_eq!(
                    schema["type"], "object",
                    "{spec}/{name} {key} root must be an object"
                );
            }
        }
    }
}

#[test]
fn every_tool_name_matches_the_mcp_pattern() {
    for (spec, list) in all_tool_lists() {
        for tool in tools(&list) {
            let name = tool["name"].as_str().expect("name");
            assert!(
                mcpgen_codegen::naming::is_valid_tool_name(name, 64),
                "{spec}: invalid tool name {name:?}"
            );
        }
    }
}

#[test]
fn synaplan_exposes_the_v1_allowlist_and_nothing_else() {
    let lists = all_tool_lists();
    let (_, synaplan) = lists
        .iter()
        .find(|(s, _)| s == "synaplan")
        .expect("synaplan");
    let names: Vec<&str> = tools(synaplan)
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "synaplan_send_message",
            "synaplan_list_chats",
            "synaplan_list_prompts",
            "synaplan_search_documents",
            "synaplan_upload_file",
            "synaplan_list_files",
            "synaplan_get_config",
            // The `chat-organizer` plugin's (specs/synaplan/plugins/), after the allowlist's.
            "synaplan_rename_chat",
            // Listed after the tools: `synaplan_get_config`'s output schema is summarised.
            "describe_tools"
        ]
    );
    let search = &tools(synaplan)[3];
    let props = &search["inputSchema"]["properties"];
    assert!(props.get("query").is_some() && props.get("group_key").is_some());
    assert_eq!(
        search["inputSchema"]["required"],
        serde_json::json!(["query"])
    );
    let group_type = &props["group_key"]["type"];
    assert!(
        group_type
            .as_array()
            .is_some_and(|t| t.contains(&Value::from("null"))),
        "nullable group_key must allow null: {group_type}"
    );
    assert_eq!(tools(synaplan)[2]["annotations"]["readOnlyHint"], true);
}

#[test]
fn read_only_properties_are_left_out_of_inputs() {
    let lists = all_tool_lists();
    for (spec, list) in &lists {
        for tool in tools(list) {
            let input = tool["inputSchema"].to_string();
            assert!(
                !input.contains("\"readOnly\":true"),
                "{spec}/{}: readOnly in input",
                tool["name"]
            );
        }
    }
}
