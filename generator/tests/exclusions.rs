//! `mcpgen init` and `mcpgen list` with `--exclude-tag`, `--exclude-path-prefix` and
//! `--exclude-operation`, and the warning `init` gives when it selects operations whose path
//! or tag says admin, internal or debug.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mcpgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(args)
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".."))
        .output()
        .expect("mcpgen runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The operation ids of an allowlist printed by `init`, in order.
fn selected_ids(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- operation_id: "))
        .map(|id| id.trim_matches('"').to_owned())
        .collect()
}

/// The first column of `list`'s table.
fn listed_ids(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

const SYNAPLAN: &str = "specs/synaplan/openapi.yaml";
const SYNAPLAN_ADMIN: [&str; 3] = [
    "get_api_admin_users_list",
    "delete_api_admin_user_delete",
    "post_api_admin_settings_update",
];

#[test]
fn init_exclude_tag_admin_leaves_the_admin_operations_out_without_a_warning() {
    let all = mcpgen(&["init", "--spec", SYNAPLAN, "--all"]);
    assert!(all.status.success(), "{}", text(&all));
    let all_ids = selected_ids(&all);
    for id in SYNAPLAN_ADMIN {
        assert!(all_ids.iter().any(|s| s == id), "{id} in {all_ids:?}");
    }

    let o = mcpgen(&["init", "--spec", SYNAPLAN, "--exclude-tag", "Admin"]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let ids = selected_ids(&o);
    let expected: Vec<String> = all_ids
        .iter()
        .filter(|id| !SYNAPLAN_ADMIN.contains(&id.as_str()))
        .cloned()
        .collect();
    assert_eq!(ids, expected, "{t}");
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("warning"),
        "{t}"
    );
}

#[test]
fn init_all_warns_about_admin_operations_and_names_the_exclusion_flags() {
    let o = mcpgen(&["init", "--spec", SYNAPLAN, "--all"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        stderr.contains(
            "warning: 3 selected operation(s) look like admin, internal or debug endpoints"
        ),
        "{stderr}"
    );
    for id in SYNAPLAN_ADMIN {
        assert!(stderr.contains(id), "{id} named: {stderr}");
    }
    assert!(
        stderr.contains("get_api_admin_users_list (GET /api/v1/admin/users): path says `admin`"),
        "{stderr}"
    );
    assert!(stderr.contains("--exclude-tag Admin"), "{stderr}");
    assert!(stderr.contains("--exclude-operation"), "{stderr}");
    // The warning goes to stderr: the allowlist on stdout stays loadable.
    assert!(!String::from_utf8_lossy(&o.stdout).contains("warning"));

    // A selection without such operations says nothing.
    let o = mcpgen(&["init", "--spec", SYNAPLAN, "--tag", "Chats"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(o.stderr.is_empty(), "{}", text(&o));
}

/// A spec whose sensitive operations are marked only by tags or only by paths, some
/// without an operationId.
fn write_spec(dir: &Path) -> PathBuf {
    let spec = r#"
openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /items:
    get: {operationId: listItems, tags: [Items], responses: {"200": {description: ok}}}
    post: {operationId: createItem, tags: [Items], responses: {"201": {description: ok}}}
  /items/{id}/reindex:
    post:
      operationId: reindexItem
      tags: [InternalTools]
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"204": {description: ok}}
  /debug/vars:
    get: {tags: [Ops], responses: {"200": {description: ok}}}
  /badminton/scores:
    get: {operationId: listScores, tags: [Sports], responses: {"200": {description: ok}}}
"#;
    let path = dir.join("openapi.yaml");
    std::fs::write(&path, spec).expect("write spec");
    path
}

#[test]
fn init_warns_on_tags_and_paths_and_each_exclusion_flag_removes_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let spec = write_spec(dir.path());
    let spec = spec.to_str().expect("utf8");

    let o = mcpgen(&["init", "--spec", spec]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        stderr.contains("warning: 2 selected operation(s)"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "reindexItem (POST /items/{id}/reindex): tag `InternalTools` says `internal`"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("GET /debug/vars (GET /debug/vars): path says `debug`"),
        "{stderr}"
    );
    // `badminton` is not `admin`.
    assert!(!stderr.contains("listScores"), "{stderr}");
    assert!(stderr.contains("--exclude-tag InternalTools"), "{stderr}");
    assert!(stderr.contains("--exclude-path-prefix /debug"), "{stderr}");

    let o = mcpgen(&[
        "init",
        "--spec",
        spec,
        "--exclude-tag",
        "InternalTools",
        "--exclude-path-prefix",
        "/debug",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(selected_ids(&o), ["listItems", "createItem", "listScores"]);
    assert!(o.stderr.is_empty(), "{}", text(&o));

    // By operationId, or `METHOD /path` for an operation without one; repeatable.
    let o = mcpgen(&[
        "init",
        "--spec",
        spec,
        "--exclude-operation",
        "reindexItem",
        "--exclude-operation",
        "GET /debug/vars",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(selected_ids(&o), ["listItems", "createItem", "listScores"]);

    // Exclusions win over selections and combine with them.
    let o = mcpgen(&[
        "init",
        "--spec",
        spec,
        "--path-prefix",
        "/items",
        "--exclude-operation",
        "createItem",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(selected_ids(&o), ["listItems", "reindexItem"]);
}

#[test]
fn list_takes_the_exclusions() {
    let o = mcpgen(&[
        "list",
        "--spec",
        SYNAPLAN,
        "--exclude-path-prefix",
        "/api/v1/admin",
        "--exclude-operation",
        "get_api_chats_list",
        "--exclude-tag",
        "Files",
    ]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let ids = listed_ids(&o);
    assert!(!ids.is_empty(), "{t}");
    for gone in SYNAPLAN_ADMIN
        .iter()
        .chain(&["get_api_chats_list", "get_api_files_list"])
    {
        assert!(!ids.iter().any(|id| id == gone), "{gone} listed: {t}");
    }
    assert!(ids.iter().any(|id| id == "put_api_chats_update"), "{t}");

    let all = mcpgen(&["list", "--spec", SYNAPLAN]);
    assert!(all.status.success(), "{}", text(&all));
    // Admin (3), the chat list (1) and the files (tag Files) are the only ones gone.
    let files = mcpgen(&["list", "--spec", SYNAPLAN, "--tag", "Files"]);
    assert_eq!(
        listed_ids(&all).len(),
        ids.len() + 4 + listed_ids(&files).len(),
        "{t}"
    );
}

#[test]
fn an_exclusion_that_names_nothing_is_an_error_naming_the_closest_values() {
    for command in ["init", "list"] {
        let o = mcpgen(&[
            command,
            "--spec",
            SYNAPLAN,
            "--exclude-tag",
            "admin",
            "--exclude-path-prefix",
            "/api/v2/admin",
            "--exclude-operation",
            "deleteUser",
        ]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(1), "{t}");
        assert!(o.stdout.is_empty(), "{t}");
        assert!(t.contains("an exclusion matches no operation"), "{t}");
        assert!(
            t.contains("--exclude-tag admin: no operation in specs/synaplan/openapi.yaml carries this tag; closest: `Admin`"),
            "{t}"
        );
        assert!(
            t.contains("--exclude-path-prefix /api/v2/admin: no path in specs/synaplan/openapi.yaml starts with it; closest: `/api/v1/admin`"),
            "{t}"
        );
        assert!(
            t.contains("--exclude-operation deleteUser: no operation"),
            "{t}"
        );
    }

    // Exclusions that leave nothing say so.
    let o = mcpgen(&[
        "init",
        "--spec",
        SYNAPLAN,
        "--tag",
        "Admin",
        "--exclude-path-prefix",
        "/api/v1/admin",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("the exclusions leave"), "{t}");
}
