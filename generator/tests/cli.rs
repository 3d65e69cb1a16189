//! The `mcpgen` binary: errors, exit codes and the commands' outputs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `mcpgen mock` as a child process.
mod mock;

/// `mcpgen serve` as a child process, against `generate`'s output and a generated server.
mod serve;

/// `mcpgen serve --watch` held by the official Python client, through edits good and bad.
mod watch;

fn mcpgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("mcpgen runs")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn write(dir: &Path, name: &str, contents: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, contents).expect("write");
    p
}

/// Runs `mcpgen check --spec spec` with `tools` as the allowlist, written to a temporary
/// `mcp_tools.yaml`.
fn check_allowlist(spec: &str, tools: &str) -> Output {
    let dir = tempfile::tempdir().expect("tempdir");
    let tools = write(dir.path(), "mcp_tools.yaml", tools);
    mcpgen(&[
        "check",
        "--spec",
        spec,
        "--tools",
        tools.to_str().expect("utf8"),
    ])
}

#[test]
fn unknown_operation_id_lists_the_closest_real_ones_and_exits_1() {
    let o = check_allowlist(
        "specs/synaplan/openapi.yaml",
        "mcp_tools:\n  - operation_id: sendMessage\n    name: synaplan_send_message\n    description: \"Send a message and get AI response\"\n  - operation_id: listPrompts\n",
    );
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("operation_id `sendMessage` not found"), "{t}");
    assert!(t.contains("`post_api_messages_send`"), "{t}");
    // Both errors are reported in one run, each with its entry and line.
    assert!(t.contains("operation_id `listPrompts` not found"), "{t}");
    assert!(t.contains("`get_api_prompts_list`"), "{t}");
    assert!(t.contains("entry 2"), "{t}");
    assert!(t.contains("line 5"), "{t}");
}

#[test]
fn malformed_yaml_allowlist_shows_line_and_column() {
    let o = check_allowlist(
        "specs/synaplan/openapi.yaml",
        "mcp_tools:\n  - operation_id: [unclosed\n",
    );
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("mcp_tools.yaml: line 2, column"), "{t}");
}

#[test]
fn malformed_yaml_spec_shows_line_and_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let spec = write(
        dir.path(),
        "openapi.yaml",
        "openapi: 3.0.3\ninfo:\n  title: x\n  version: '1'\npaths:\n  /a: [\n",
    );
    let o = mcpgen(&["list", "--spec", spec.to_str().expect("utf8")]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("openapi.yaml:"), "{t}");
    // `…/openapi.yaml:LINE:COLUMN: message`
    let has_line_col = t.split("openapi.yaml:").skip(1).any(|rest| {
        let mut parts = rest.splitn(3, ':');
        let line = parts.next().and_then(|l| l.parse::<u32>().ok());
        let column = parts.next().and_then(|c| c.parse::<u32>().ok());
        line == Some(6) && column.is_some()
    });
    assert!(has_line_col, "{t}");
}

#[test]
fn invalid_and_duplicate_tool_names_are_errors() {
    let long = "x".repeat(65);
    let o = check_allowlist(
        "specs/synaplan/openapi.yaml",
        &format!(
            "mcp_tools:\n  - operation_id: get_api_chats_list\n    name: {long}\n  - operation_id: get_api_prompts_list\n    name: has space\n  - operation_id: get_api_files_list\n    name: same\n  - operation_id: get_api_config_runtime_config\n    name: same\n"
        ),
    );
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains(&format!("tool name `{long}` is invalid")), "{t}");
    assert!(t.contains("tool name `has space` is invalid"), "{t}");
    assert!(
        t.contains("tool name `same` is already used by entry 3"),
        "{t}"
    );
}

#[test]
fn list_shows_operations_with_default_names() {
    let o = mcpgen(&["list", "--spec", "specs/synaplan/openapi.yaml"]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let row = t
        .lines()
        .find(|l| l.starts_with("get_api_prompts_list"))
        .unwrap_or_else(|| panic!("no row: {t}"));
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        cols,
        [
            "get_api_prompts_list",
            "GET",
            "/api/v1/prompts",
            "get_api_prompts_list",
            "read"
        ]
    );
}

#[test]
fn init_output_is_accepted_by_generate() {
    for spec in [
        "specs/synaplan/openapi.yaml",
        "specs/library2/openapi.json",
        "specs/events31/openapi.yaml",
    ] {
        for mode in ["--all", "--read-only"] {
            let o = mcpgen(&["init", "--spec", spec, mode]);
            let yaml = String::from_utf8_lossy(&o.stdout).into_owned();
            assert!(o.status.success(), "{spec} {mode}: {}", text(&o));
            let dir = tempfile::tempdir().expect("tempdir");
            let tools = write(dir.path(), "mcp_tools.yaml", &yaml);
            let c = mcpgen(&[
                "check",
                "--spec",
                spec,
                "--tools",
                tools.to_str().expect("utf8"),
            ]);
            assert!(c.status.success(), "{spec} {mode}: {}\n{yaml}", text(&c));
            if mode == "--read-only" {
                assert!(
                    !yaml.contains("post_") && !yaml.contains("delete_"),
                    "{yaml}"
                );
            }
        }
    }
}

#[test]
fn budget_over_max_list_tokens_fails() {
    let o = check_allowlist(
        "specs/synaplan/openapi.yaml",
        "server:\n  max_list_tokens: 10\nmcp_tools:\n  - operation_id: get_api_prompts_list\n",
    );
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("over the budget of 10"), "{t}");
}

#[test]
fn generate_check_reports_drift_and_names_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let args = [
        "generate",
        "--spec",
        "specs/synaplan/openapi.yaml",
        "--tools",
        "specs/synaplan/mcp_tools.yaml",
        "--out",
        out.to_str().expect("utf8"),
    ];
    let o = mcpgen(&args);
    assert!(o.status.success(), "{}", text(&o));
    let mut check_args = args.to_vec();
    check_args.push("--check");
    assert!(mcpgen(&check_args).status.success());
    std::fs::write(out.join("tools.json"), "{}").expect("write");
    let o = mcpgen(&check_args);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("tools.json (changed)"), "{t}");
}

#[test]
fn every_flag_is_documented_in_help() {
    for cmd in ["generate", "init", "list", "check", "diff"] {
        let o = mcpgen(&[cmd, "--help"]);
        let t = text(&o);
        assert!(o.status.success(), "{t}");
        for line in t.lines().filter(|l| l.trim_start().starts_with("--")) {
            let rest = line.trim_start().split_once("  ").map(|(_, d)| d.trim());
            assert!(
                rest.is_some_and(|d| !d.is_empty()),
                "{cmd}: undocumented flag line {line:?}"
            );
        }
    }
}

#[test]
fn a_malformed_operation_breaks_generation_only_when_selected() {
    let dir = tempfile::tempdir().expect("tempdir");
    let spec = write(
        dir.path(),
        "openapi.yaml",
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /good:\n    get:\n      operationId: good\n      responses: {'200': {description: ok}}\n  /bad:\n    get:\n      operationId: bad\n      parameters: [{$ref: '#/components/parameters/Missing'}]\n      responses: {}\n",
    );
    let spec = spec.to_str().expect("utf8");
    let good = write(
        dir.path(),
        "good.yaml",
        "mcp_tools:\n  - operation_id: good\n",
    );
    let o = mcpgen(&[
        "check",
        "--spec",
        spec,
        "--tools",
        good.to_str().expect("utf8"),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let bad = write(
        dir.path(),
        "bad.yaml",
        "mcp_tools:\n  - operation_id: bad\n",
    );
    let o = mcpgen(&[
        "check",
        "--spec",
        spec,
        "--tools",
        bad.to_str().expect("utf8"),
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("cannot be read from the spec"), "{t}");
    assert!(t.contains("#/components/parameters/Missing"), "{t}");
}

/// Generates `spec` (YAML text) with an allowlist selecting `ids`, returning `tools.json`.
fn generate_tools_json(spec: &str, ids: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().expect("tempdir");
    let spec = write(dir.path(), "openapi.yaml", spec);
    let entries: String = ids
        .iter()
        .map(|id| format!("  - operation_id: {id}\n"))
        .collect();
    let tools = write(
        dir.path(),
        "mcp_tools.yaml",
        &format!("server:\n  name: t\nmcp_tools:\n{entries}"),
    );
    let out = dir.path().join("out");
    let o = mcpgen(&[
        "generate",
        "--spec",
        spec.to_str().expect("utf8"),
        "--tools",
        tools.to_str().expect("utf8"),
        "--out",
        out.to_str().expect("utf8"),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let json = std::fs::read_to_string(out.join("tools.json")).expect("tools.json");
    serde_json::from_str(&json).expect("JSON")
}

const COLLISIONS: &str = "openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /items/{id}:
    get:
      operationId: getItem
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
        - {name: id, in: query, schema: {type: integer}}
        - {name: id, in: header, schema: {type: string}}
      responses: {'200': {description: ok}}
    put:
      operationId: putItem
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      requestBody:
        required: true
        content:
          application/json:
            schema: {type: object, required: [title], properties: {id: {type: string}, title: {type: string}}}
      responses: {'204': {description: done}}
    patch:
      operationId: patchItem
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {title: {type: string}}}
      responses: {'204': {description: done}}
    delete:
      operationId: deleteItem
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses: {'204': {description: done}}
";

fn property_names(tool: &serde_json::Value) -> Vec<String> {
    tool["inputSchema"]["properties"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn colliding_argument_names_are_disambiguated_by_location() {
    let list = generate_tools_json(COLLISIONS, &["getItem", "putItem", "patchItem"]);
    let tools = list["tools"].as_array().expect("tools");
    // Path keeps the name; the others get their location appended.
    assert_eq!(property_names(&tools[0]), ["id", "id_query", "id_header"]);
    // A body property colliding with a parameter: the body is one `body` argument.
    assert_eq!(property_names(&tools[1]), ["id", "body"]);
    assert_eq!(
        tools[1]["inputSchema"]["required"],
        serde_json::json!(["id", "body"])
    );
    // No collision: the body's properties are flattened.
    assert_eq!(property_names(&tools[2]), ["id", "title"]);
}

#[test]
fn annotations_follow_the_http_method() {
    let list = generate_tools_json(
        COLLISIONS,
        &["getItem", "putItem", "patchItem", "deleteItem"],
    );
    let hints: Vec<serde_json::Value> = list["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["annotations"].clone())
        .collect();
    assert_eq!(hints[0]["readOnlyHint"], true);
    assert_eq!(hints[1]["readOnlyHint"], false);
    assert_eq!(hints[1]["idempotentHint"], true);
    assert_eq!(hints[1]["destructiveHint"], false);
    assert_eq!(hints[2]["idempotentHint"], false);
    assert_eq!(hints[3]["destructiveHint"], true);
    assert_eq!(hints[3]["idempotentHint"], true);
}

#[test]
fn content_type_not_offered_is_an_error_naming_the_offered_types_and_the_line() {
    let o = check_allowlist(
        "generator/tests/fixtures/wire/openapi.yaml",
        "mcp_tools:\n  - operation_id: createIssue\n    content_type: text/csv\n  - operation_id: ping\n    content_type: application/json\n  - operation_id: search\n",
    );
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(
        t.contains(
            "entry 1 (operation_id `createIssue`), `content_type` at line 3, column 19: \
             content_type `text/csv` is not offered by POST /issues; it offers \
             `application/x-www-form-urlencoded`, `application/json`, `multipart/form-data`"
        ),
        "{t}"
    );
    assert!(
        t.contains(
            "entry 2 (operation_id `ping`), `content_type` at line 5, column 19: content_type \
             `application/json` is set, but POST /ping has no request body media types"
        ),
        "{t}"
    );
}

#[test]
fn content_type_offered_by_the_operation_is_accepted() {
    let o = check_allowlist(
        "generator/tests/fixtures/wire/openapi.yaml",
        "mcp_tools:\n  - operation_id: createIssue\n    content_type: multipart/form-data\n",
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

/// Runs `mcpgen generate` for the synaplan spec into `out` with `--templates templates`.
fn generate_with_templates(out: &Path, templates: &Path) -> Output {
    mcpgen(&[
        "generate",
        "--spec",
        "specs/synaplan/openapi.yaml",
        "--tools",
        "specs/synaplan/mcp_tools.yaml",
        "--out",
        out.to_str().expect("utf8"),
        "--templates",
        templates.to_str().expect("utf8"),
    ])
}

#[test]
fn templates_folder_replaces_a_built_in_template_by_file_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let templates = dir.path().join("templates");
    std::fs::create_dir(&templates).expect("mkdir");
    write(
        &templates,
        "README.md.jinja",
        "# {{ crate_name }} (team edition)\n{% for tool in tools %}- {{ tool.name }}: {{ tool.access }}\n{% endfor %}",
    );
    let out = dir.path().join("out");
    let o = generate_with_templates(&out, &templates);
    assert!(o.status.success(), "{}", text(&o));
    let readme = std::fs::read_to_string(out.join("README.md")).expect("README.md");
    assert!(
        readme.starts_with("# synaplan-mcp (team edition)\n- synaplan_"),
        "{readme}"
    );
    assert!(!readme.contains("## Run"), "{readme}");
    // Templates not in the folder stay built in.
    let cargo = std::fs::read_to_string(out.join("Cargo.toml")).expect("Cargo.toml");
    assert!(cargo.contains("name = \"synaplan-mcp\""), "{cargo}");
}

#[test]
fn template_errors_name_the_file_and_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let templates = dir.path().join("templates");
    std::fs::create_dir(&templates).expect("mkdir");
    let readme = write(
        &templates,
        "README.md.jinja",
        "# {{ crate_name }}\n{{ server.no_such_field }}\n",
    );
    let shown = readme.display().to_string();

    let o = generate_with_templates(&out, &templates);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(
        t.contains(&format!("{shown}, line 2: undefined value")),
        "{t}"
    );
    assert!(t.contains("`server.no_such_field` is undefined"), "{t}");

    write(
        &templates,
        "README.md.jinja",
        "# title\n\n{% if standalone %}\n",
    );
    let o = generate_with_templates(&out, &templates);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains(&format!("{shown}, line 3: syntax error")), "{t}");

    write(&templates, "README.md.jinja", "ok\n");
    write(&templates, "Readme.md.jinja", "misspelt\n");
    let o = generate_with_templates(&out, &templates);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(
        t.contains("Readme.md.jinja: not a template mcpgen renders"),
        "{t}"
    );
    assert!(t.contains("Cargo.toml.jinja, README.md.jinja"), "{t}");

    let o = generate_with_templates(&out, &dir.path().join("missing"));
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(
        t.contains("missing: cannot read the templates folder"),
        "{t}"
    );
    // Nothing is written when a template fails.
    assert!(!out.exists());
}

/// The operation ids of an allowlist printed by `init`, in order.
fn selected_ids(yaml: &str) -> Vec<String> {
    yaml.lines()
        .filter_map(|l| l.trim().strip_prefix("- operation_id: "))
        .map(|id| id.trim_matches('"').to_owned())
        .collect()
}

/// Runs `mcpgen init --spec <synaplan> <flags>`, expects success, returns the selected ids.
fn init_synaplan(flags: &[&str]) -> Vec<String> {
    let mut args = vec!["init", "--spec", "specs/synaplan/openapi.yaml"];
    args.extend_from_slice(flags);
    let o = mcpgen(&args);
    assert!(o.status.success(), "{flags:?}: {}", text(&o));
    selected_ids(&String::from_utf8_lossy(&o.stdout))
}

#[test]
fn init_tag_selects_operations_carrying_any_given_tag() {
    assert_eq!(
        init_synaplan(&["--tag", "Chats"]),
        ["get_api_chats_list", "put_api_chats_update"]
    );
    assert_eq!(
        init_synaplan(&["--tag", "Chats", "--tag", "Prompts"]),
        [
            "get_api_chats_list",
            "put_api_chats_update",
            "get_api_prompts_list"
        ]
    );
}

#[test]
fn init_path_prefix_selects_paths_starting_with_any_given_prefix() {
    assert_eq!(
        init_synaplan(&["--path-prefix", "/api/v1/admin"]),
        [
            "get_api_admin_users_list",
            "delete_api_admin_user_delete",
            "post_api_admin_settings_update"
        ]
    );
    assert_eq!(
        init_synaplan(&[
            "--path-prefix",
            "/api/v1/files",
            "--path-prefix",
            "/api/v1/rag"
        ]),
        [
            "post_api_rag_search",
            "post_api_files_upload",
            "get_api_files_list"
        ]
    );
}

#[test]
fn init_method_is_case_insensitive_and_repeatable() {
    assert_eq!(
        init_synaplan(&["--method", "delete"]),
        ["delete_api_admin_user_delete"]
    );
    assert_eq!(
        init_synaplan(&["--method", "Put", "--method", "DELETE"]),
        ["put_api_chats_update", "delete_api_admin_user_delete"]
    );
}

#[test]
fn init_filters_combine_as_and_across_flags() {
    assert_eq!(
        init_synaplan(&[
            "--path-prefix",
            "/api/v1/admin",
            "--path-prefix",
            "/api/v1/chats",
            "--method",
            "get",
            "--tag",
            "Admin",
        ]),
        ["get_api_admin_users_list"]
    );
    // `--all` is the default and combines with the filters too.
    assert_eq!(
        init_synaplan(&["--all", "--tag", "Files"]),
        ["post_api_files_upload", "get_api_files_list"]
    );
}

#[test]
fn init_read_only_combines_with_tag() {
    assert_eq!(
        init_synaplan(&["--read-only", "--tag", "Chats", "--tag", "Admin"]),
        ["get_api_chats_list", "get_api_admin_users_list"]
    );
}

#[test]
fn filtered_init_output_is_accepted_by_check() {
    let o = mcpgen(&[
        "init",
        "--spec",
        "specs/synaplan/openapi.yaml",
        "--tag",
        "Admin",
        "--method",
        "post",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let dir = tempfile::tempdir().expect("tempdir");
    let tools = write(
        dir.path(),
        "mcp_tools.yaml",
        &String::from_utf8_lossy(&o.stdout),
    );
    let c = mcpgen(&[
        "check",
        "--spec",
        "specs/synaplan/openapi.yaml",
        "--tools",
        tools.to_str().expect("utf8"),
    ]);
    let t = text(&c);
    assert!(c.status.success(), "{t}");
    assert!(t.contains("ok, 1 tools"), "{t}");
}

#[test]
fn selection_that_matches_nothing_is_an_error_naming_the_closest_values() {
    let o = mcpgen(&[
        "init",
        "--spec",
        "specs/synaplan/openapi.yaml",
        "--tag",
        "chat",
        "--path-prefix",
        "/api/v2",
        "--method",
        "patch",
        "--method",
        "fetch",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(o.stdout.is_empty(), "no allowlist is printed: {t}");
    // Every problem in one run, each with the closest real values.
    assert!(
        t.contains("--tag chat: no operation in specs/synaplan/openapi.yaml carries this tag; closest: `Chats`"),
        "{t}"
    );
    assert!(
        t.contains("--path-prefix /api/v2: no path in specs/synaplan/openapi.yaml starts with it; closest: `/api/v1`"),
        "{t}"
    );
    assert!(
        t.contains("--method patch: no operation in specs/synaplan/openapi.yaml uses it; the spec uses DELETE, GET, POST, PUT"),
        "{t}"
    );
    assert!(t.contains("--method fetch: not an HTTP method"), "{t}");

    // Each filter matches on its own, but not together.
    let o = mcpgen(&[
        "init",
        "--spec",
        "specs/synaplan/openapi.yaml",
        "--read-only",
        "--tag",
        "Messages",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(o.stdout.is_empty(), "no allowlist is printed: {t}");
    assert!(
        t.contains("matches all of --read-only, --tag Messages"),
        "{t}"
    );
    assert!(t.contains("--read-only keeps 5, --tag keeps 1"), "{t}");
}

#[test]
fn list_takes_the_same_filters() {
    let o = mcpgen(&[
        "list",
        "--spec",
        "specs/synaplan/openapi.yaml",
        "--tag",
        "Files",
        "--method",
        "GET",
    ]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let ids: Vec<&str> = t
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(ids, ["get_api_files_list"], "{t}");

    let o = mcpgen(&[
        "list",
        "--spec",
        "specs/synaplan/openapi.yaml",
        "--tag",
        "Nope",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("--tag Nope: no operation"),
        "{}",
        text(&o)
    );
}

/// Approximate tokens of one `tools/list` entry: its compact JSON bytes / 4, rounded up.
fn entry_tokens(tool: &serde_json::Value) -> usize {
    tool.to_string().len().div_ceil(4)
}

#[test]
fn generate_top_names_the_heaviest_tools_on_stderr() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let run = |top: &str| {
        mcpgen(&[
            "generate",
            "--spec",
            "specs/synaplan/openapi.yaml",
            "--tools",
            "specs/synaplan/mcp_tools.yaml",
            "--out",
            out.to_str().expect("utf8"),
            "--top",
            top,
        ])
    };
    let o = run("2");
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{}", text(&o));
    let json = std::fs::read_to_string(out.join("tools.json")).expect("tools.json");
    let list: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let mut tools: Vec<(usize, String)> = list["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| {
            // Sizes are those every client gets: without the views' `_meta`.
            let mut entry = t.clone();
            entry.as_object_mut().map(|e| e.remove("_meta"));
            (
                entry.to_string().len(),
                t["name"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    tools.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let heaviest: Vec<&str> = stderr
        .lines()
        .skip_while(|l| !l.contains("heaviest tools"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(str::trim)
        .collect();
    // Then which tool got which view.
    assert!(
        stderr.contains("synaplan: views for 7 of 7 tools:")
            && stderr
                .contains("synaplan_list_chats        table  ui://synaplan/synaplan_list_chats"),
        "{stderr}"
    );
    assert_eq!(heaviest.len(), 2, "{stderr}");
    for ((bytes, name), line) in tools.iter().zip(&heaviest) {
        let cols: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(cols[0], name, "{stderr}");
        assert_eq!(cols[1], format!("~{}", bytes.div_ceil(4)), "{stderr}");
    }
    // The report comes after the summary line.
    assert!(
        String::from_utf8_lossy(&o.stdout).starts_with("synaplan: 7 tools"),
        "{}",
        text(&o)
    );

    let o = run("0");
    assert!(o.status.success(), "{}", text(&o));
    assert!(!text(&o).contains("heaviest"), "{}", text(&o));
}

#[test]
fn list_cost_prints_the_tokens_each_operation_would_add() {
    let o = mcpgen(&["list", "--spec", "specs/synaplan/openapi.yaml", "--cost"]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let mut lines = t.lines();
    assert!(
        lines.next().is_some_and(|h| h.ends_with("ACCESS  TOKENS")),
        "{t}"
    );
    let tokens: Vec<usize> = lines
        .map(|l| {
            l.split_whitespace()
                .last()
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("no token count: {l:?}"))
        })
        .collect();
    assert_eq!(tokens.len(), 11, "{t}");
    assert!(tokens.iter().all(|&n| n > 0), "{t}");

    // The number is that of the tool's entry when the operation is generated.
    let dir = tempfile::tempdir().expect("tempdir");
    let spec = write(dir.path(), "openapi.yaml", COLLISIONS);
    let o = mcpgen(&["list", "--spec", spec.to_str().expect("utf8"), "--cost"]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let listed: Vec<(String, usize)> = t
        .lines()
        .skip(1)
        .map(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            (cols[0].to_owned(), cols[5].parse().expect("tokens"))
        })
        .collect();
    let ids: Vec<&str> = listed.iter().map(|(id, _)| id.as_str()).collect();
    let generated = generate_tools_json(COLLISIONS, &ids);
    let expected: Vec<(String, usize)> = generated["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .zip(&ids)
        .map(|(tool, id)| ((*id).to_owned(), entry_tokens(tool)))
        .collect();
    assert_eq!(listed, expected);
}
