//! Plugin manifests: `plugins/<plugin>/manifest.json` files whose `mcp_tools` entries become
//! tools carrying the plugin's name, checked like allowlist entries, with errors that name the
//! manifest, the entry and the field.

use std::path::{Path, PathBuf};
use std::process::Command;

use mcpgen_codegen::{Error, Errors, Generation, Settings};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn synaplan_spec() -> PathBuf {
    root().join("specs/synaplan/openapi.yaml")
}

const ALLOWLIST: &str = "server:\n  name: synaplan\nmcp_tools:\n  - operation_id: get_api_chats_list\n    name: synaplan_list_chats\n";

/// A temporary folder with `mcp_tools.yaml` ([`ALLOWLIST`]) and `plugins/<name>/manifest.json`
/// for each `(name, text)`.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new(manifests: &[(&str, &str)]) -> Fixture {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("mcp_tools.yaml"), ALLOWLIST).expect("write allowlist");
        for (name, text) in manifests {
            let folder = dir.path().join("plugins").join(name);
            std::fs::create_dir_all(&folder).expect("plugin folder");
            std::fs::write(folder.join("manifest.json"), text).expect("write manifest");
        }
        Fixture { dir }
    }

    fn tools(&self) -> PathBuf {
        self.dir.path().join("mcp_tools.yaml")
    }

    fn plugins(&self) -> PathBuf {
        self.dir.path().join("plugins")
    }

    fn manifest(&self, name: &str) -> PathBuf {
        self.plugins().join(name).join("manifest.json")
    }

    fn generate(&self) -> Result<Generation, Errors> {
        mcpgen_codegen::generate(
            &synaplan_spec(),
            &self.tools(),
            &Settings::new().with_plugins(self.plugins()),
        )
    }

    fn errors(&self) -> Vec<Error> {
        match self.generate() {
            Ok(_) => panic!("generation succeeded; expected errors"),
            Err(Errors(errors)) => errors,
        }
    }
}

/// `(name, plugin)` of every generated tool, in order.
fn tool_plugins(generation: &Generation) -> Vec<(String, Option<String>)> {
    generation
        .server
        .tools
        .iter()
        .map(|t| (t.name.clone(), t.plugin.clone()))
        .collect()
}

/// The one `Error::Allowlist` of `errors`, as `(file, location, message)`.
fn only_allowlist_error(errors: &[Error]) -> (&Path, &str, &str) {
    assert_eq!(errors.len(), 1, "{errors:#?}");
    match &errors[0] {
        Error::Allowlist {
            path,
            location,
            message,
        } => (path, location, message),
        other => panic!("expected an allowlist error, got {other:?}"),
    }
}

#[test]
fn the_synaplan_folder_reads_its_plugin() {
    let root = root();
    let folders = mcpgen_codegen::spec_folders(&root).expect("specs/ readable");
    let synaplan = folders
        .iter()
        .find(|f| f.folder == "synaplan")
        .expect("synaplan folder");
    assert_eq!(
        synaplan.plugins.as_deref(),
        Some(root.join("specs/synaplan/plugins").as_path())
    );
    let generation = mcpgen_codegen::generate_folder(&root, synaplan).expect("generates");
    let tools = tool_plugins(&generation);
    assert_eq!(
        tools.last(),
        Some(&(
            "synaplan_rename_chat".to_owned(),
            Some("chat-organizer".to_owned())
        ))
    );
    assert!(
        tools[..tools.len() - 1].iter().all(|(_, p)| p.is_none()),
        "{tools:?}"
    );
    let listed: serde_json::Value =
        serde_json::from_str(&generation.emitted.files["tools.json"]).expect("JSON");
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"synaplan_rename_chat"), "{names:?}");
    // The table the server uses to hide the tool names the plugin.
    assert!(
        generation.emitted.files["src/tools.rs"].contains("\"chat-organizer\""),
        "the tool table carries the plugin"
    );
}

#[test]
fn manifests_add_tools_in_sorted_order_and_ignore_other_data() {
    let fixture = Fixture::new(&[
        (
            "zeta",
            r#"{"name": "zeta", "mcp_tools": [{"operation_id": "get_api_files_list", "name": "zeta_files"}]}"#,
        ),
        (
            "alpha",
            r#"{
  "name": "alpha",
  "version": "2.0",
  "settings": {"anything": [1, 2, 3]},
  "mcp_tools": [
	{
	  "operation_id": "post_api_rag_search",
	  "name": "alpha_search",
	  "access": "read",
	  "scope": "rag:search",
	  "plugin": "alpha",
	  "annotations": {"idempotent": true}
	},
	{"operation_id": "put_api_chats_update", "enabled": false}
  ]
}"#,
        ),
        (
            "data-only",
            r#"{"name": "data-only", "hooks": ["on_message"]}"#,
        ),
        ("empty-list", r#"{"name": "empty-list", "mcp_tools": []}"#),
    ]);
    // A sub-folder without a manifest is not a plugin.
    std::fs::create_dir_all(fixture.plugins().join("notes")).expect("folder");

    let generation = fixture.generate().expect("generates");
    assert_eq!(
        tool_plugins(&generation),
        [
            ("synaplan_list_chats".to_owned(), None),
            ("alpha_search".to_owned(), Some("alpha".to_owned())),
            ("zeta_files".to_owned(), Some("zeta".to_owned())),
        ]
    );
    let search = &generation.server.tools[1];
    assert_eq!(search.access, mcpgen_codegen::ir::Access::Read);
    assert_eq!(search.required_scope.as_deref(), Some("rag:search"));
    assert_eq!(search.annotations.idempotent, Some(true));
}

#[test]
fn without_plugins_nothing_is_added_and_a_missing_folder_is_an_error() {
    let fixture = Fixture::new(&[]);
    let generation = mcpgen_codegen::generate(&synaplan_spec(), &fixture.tools(), &Settings::new())
        .expect("generates");
    assert_eq!(generation.server.tools.len(), 1);

    let errors = fixture.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let Error::Io { path, message } = &errors[0] else {
        panic!("expected an I/O error, got {errors:?}");
    };
    assert_eq!(path, &fixture.plugins());
    assert!(message.contains("manifest.json"), "{message}");
}

#[test]
fn an_unknown_operation_names_the_manifest_entry_and_the_closest_ids() {
    let fixture = Fixture::new(&[(
        "chats",
        "{\n  \"name\": \"chats\",\n  \"mcp_tools\": [\n    {\"operation_id\": \"get_api_files_list\"},\n    {\"operation_id\": \"put_api_chat_update\"}\n  ]\n}\n",
    )]);
    let errors = fixture.errors();
    let (file, location, message) = only_allowlist_error(&errors);
    assert_eq!(file, fixture.manifest("chats"));
    assert_eq!(
        location,
        "entry 2 (operation_id `put_api_chat_update`) at line 5, column 22"
    );
    assert!(
        message.starts_with("operation_id `put_api_chat_update` not found"),
        "{message}"
    );
    assert!(message.contains("closest: `"), "{message}");
    assert!(message.contains("`put_api_chats_update`"), "{message}");
}

#[test]
fn an_entry_naming_another_plugin_is_an_error() {
    let fixture = Fixture::new(&[(
        "chats",
        r#"{"name": "chats", "mcp_tools": [{"operation_id": "put_api_chats_update", "plugin": "billing"}]}"#,
    )]);
    let errors = fixture.errors();
    let (file, location, message) = only_allowlist_error(&errors);
    assert_eq!(file, fixture.manifest("chats"));
    assert!(
        location.starts_with("entry 1 (operation_id `put_api_chats_update`)"),
        "{location}"
    );
    assert!(message.contains("`plugin: billing`"), "{message}");
    assert!(message.contains("`chats`"), "{message}");
}

#[test]
fn a_name_used_by_the_allowlist_and_a_manifest_names_both_places() {
    let fixture = Fixture::new(&[(
        "chats",
        r#"{"name": "chats", "mcp_tools": [{"operation_id": "put_api_chats_update", "name": "synaplan_list_chats"}]}"#,
    )]);
    let errors = fixture.errors();
    let (file, location, message) = only_allowlist_error(&errors);
    assert_eq!(file, fixture.manifest("chats"));
    assert!(location.starts_with("entry 1 "), "{location}");
    let allowlist = fixture.tools();
    assert!(
        message.contains(&format!(
            "tool name `synaplan_list_chats` is already used by entry 1 of {}",
            allowlist.display()
        )),
        "{message}"
    );
}

#[test]
fn a_name_used_by_two_manifests_names_both_places() {
    let entry = r#"[{"operation_id": "get_api_files_list", "name": "shared_files"}]"#;
    let fixture = Fixture::new(&[
        (
            "one",
            &format!(r#"{{"name": "one", "mcp_tools": {entry}}}"#),
        ),
        (
            "two",
            &format!(r#"{{"name": "two", "mcp_tools": {entry}}}"#),
        ),
    ]);
    let errors = fixture.errors();
    let (file, _, message) = only_allowlist_error(&errors);
    // Manifests are read in sorted path order: `one` first, so `two` is the duplicate.
    assert_eq!(file, fixture.manifest("two"));
    assert!(
        message.contains(&format!(
            "tool name `shared_files` is already used by entry 1 of {}",
            fixture.manifest("one").display()
        )),
        "{message}"
    );
}

#[test]
fn two_manifests_of_one_plugin_are_an_error() {
    let fixture = Fixture::new(&[("a", r#"{"name": "same"}"#), ("b", r#"{"name": "same"}"#)]);
    let errors = fixture.errors();
    let (file, _, message) = only_allowlist_error(&errors);
    assert_eq!(file, fixture.manifest("b"));
    assert!(
        message.contains(&fixture.manifest("a").display().to_string()),
        "{message}"
    );
}

#[test]
fn a_bad_plugin_name_is_an_error() {
    for bad in ["", "has space", "slash/name", &"p".repeat(65)] {
        let text = serde_json::json!({ "name": bad }).to_string();
        let fixture = Fixture::new(&[("bad", &text)]);
        let errors = fixture.errors();
        let (file, location, message) = only_allowlist_error(&errors);
        assert_eq!(file, fixture.manifest("bad"));
        assert!(location.starts_with("`name` at line 1"), "{location}");
        assert!(
            message.contains(&format!("plugin name `{bad}` is invalid")),
            "{message}"
        );
        assert!(message.contains("^[A-Za-z0-9_.-]{1,64}$"), "{message}");
    }
    let fixture = Fixture::new(&[("ok", &format!(r#"{{"name": "{}"}}"#, "p".repeat(64)))]);
    fixture
        .generate()
        .expect("a 64-character plugin name is valid");
}

#[test]
fn malformed_json_names_the_file_and_line() {
    let fixture = Fixture::new(&[(
        "broken",
        "{\n  \"name\": \"broken\",\n  \"mcp_tools\": [\n    {\"operation_id\": \"get_api_files_list\",}\n  ]\n}\n",
    )]);
    let errors = fixture.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let Error::Syntax {
        path,
        line,
        message,
        ..
    } = &errors[0]
    else {
        panic!("expected a syntax error, got {errors:?}");
    };
    assert_eq!(path, &fixture.manifest("broken"));
    assert_eq!(*line, 4);
    assert!(message.contains("must be JSON"), "{message}");
    let shown = errors[0].to_string();
    assert!(
        shown.starts_with(&format!("{}:4:", fixture.manifest("broken").display())),
        "{shown}"
    );

    // YAML is not JSON, even though a YAML reader would accept it.
    let fixture = Fixture::new(&[("yaml", "name: yaml\n")]);
    assert!(matches!(
        &fixture.errors()[..],
        [Error::Syntax { line: 1, .. }]
    ));
}

#[test]
fn a_bad_entry_field_names_the_entry_and_the_field() {
    let fixture = Fixture::new(&[(
        "chats",
        "{\n  \"name\": \"chats\",\n  \"mcp_tools\": [\n    {\"operation_id\": \"get_api_files_list\"},\n    {\"operation_id\": \"put_api_chats_update\", \"schema_budget\": [1]}\n  ]\n}\n",
    )]);
    let errors = fixture.errors();
    let (file, location, message) = only_allowlist_error(&errors);
    assert_eq!(file, fixture.manifest("chats"));
    assert!(
        location.starts_with("entry 2, field `schema_budget`, line 5"),
        "{location}"
    );
    assert!(!message.is_empty());

    let fixture = Fixture::new(&[(
        "chats",
        "{\"name\": \"chats\",\n \"mcp_tools\": [{\"operation_id\": \"get_api_files_list\", \"colour\": \"red\"}]}",
    )]);
    let errors = fixture.errors();
    let (_, location, message) = only_allowlist_error(&errors);
    assert!(
        location.starts_with("entry 1, field `colour`, line 2"),
        "{location}"
    );
    assert!(message.contains("colour"), "{message}");

    let fixture = Fixture::new(&[(
        "chats",
        r#"{"name": "chats", "mcp_tools": [{"operation_id": "get_api_files_list", "access": "admin"}]}"#,
    )]);
    let errors = fixture.errors();
    let (_, location, message) = only_allowlist_error(&errors);
    assert!(
        location.starts_with("entry 1 (operation_id `get_api_files_list`), `access` at line 1"),
        "{location}"
    );
    assert!(message.contains("access `admin` is not valid"), "{message}");

    let fixture = Fixture::new(&[("nameless", r#"{"mcp_tools": []}"#)]);
    let errors = fixture.errors();
    let (_, _, message) = only_allowlist_error(&errors);
    assert!(message.contains("name"), "{message}");
}

#[test]
fn the_generate_command_takes_a_plugins_folder() {
    let fixture = Fixture::new(&[(
        "chats",
        r#"{"name": "chats", "mcp_tools": [{"operation_id": "put_api_chats_update", "name": "rename_chat"}]}"#,
    )]);
    let out = fixture.dir.path().join("out");
    let run = |plugins: Option<&Path>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpgen"));
        cmd.arg("generate")
            .arg("--spec")
            .arg(synaplan_spec())
            .arg("--tools")
            .arg(fixture.tools())
            .arg("--out")
            .arg(&out);
        if let Some(dir) = plugins {
            cmd.arg("--plugins").arg(dir);
        }
        cmd.output().expect("mcpgen runs")
    };
    let done = run(Some(&fixture.plugins()));
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let listed = std::fs::read_to_string(out.join("tools.json")).expect("tools.json");
    assert!(listed.contains("\"rename_chat\""), "{listed}");
    let table = std::fs::read_to_string(out.join("src/tools.rs")).expect("tools.rs");
    assert!(table.contains("\"chats\""));

    let missing = fixture.dir.path().join("no-such-folder");
    let failed = run(Some(&missing));
    assert_eq!(failed.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(stderr.contains(&missing.display().to_string()), "{stderr}");
}
