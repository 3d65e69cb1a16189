//! `mcpgen diff` and `generate --check` on real generations: the library2 spec and allowlist
//! as checked in (OLD), and a copy changed the way a pull request might (NEW): an enum value
//! and a required body field in the spec; a tool removed, one added, one turned from read to
//! write and one no longer confirmed in the allowlist.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

fn mcpgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(args)
        .env_remove("MCPGEN_DIFF_FAIL_ON")
        .output()
        .expect("mcpgen runs")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The checked-in library2 spec folder, copied to `dir/old`.
fn old_folder(dir: &Path) -> PathBuf {
    let old = dir.join("old");
    std::fs::create_dir_all(&old).expect("mkdir");
    for f in ["openapi.json", "mcp_tools.yaml"] {
        std::fs::copy(root().join("specs/library2").join(f), old.join(f)).expect("copy");
    }
    old
}

/// The changed copy, `dir/new`.
fn new_folder(dir: &Path) -> PathBuf {
    let new = dir.join("new");
    std::fs::create_dir_all(&new).expect("mkdir");
    let text = std::fs::read_to_string(root().join("specs/library2/openapi.json")).expect("spec");
    let mut spec: Value = serde_json::from_str(&text).expect("spec JSON");
    // `lost` is no longer a state listBooks filters on.
    let params = spec["paths"]["/books"]["get"]["parameters"]
        .as_array_mut()
        .expect("parameters");
    for p in params.iter_mut() {
        if p["name"] == "availability" {
            p["enum"] = json!(["available", "on_loan", "reserved"]);
        }
    }
    // A loan now needs the lending branch.
    let loan = &mut spec["paths"]["/loans"]["post"]["parameters"][0]["schema"];
    loan["properties"]["branch"] = json!({"type": "string"});
    loan["required"] = json!(["bookId", "memberId", "branch"]);
    std::fs::write(new.join("openapi.json"), spec.to_string()).expect("write spec");

    let tools = std::fs::read_to_string(root().join("specs/library2/mcp_tools.yaml"))
        .expect("allowlist")
        // The catalogue search becomes a write tool.
        .replace(
            "    description: \"Search the catalogue by genre, availability and publication date\"\n    annotations:\n      read_only: true\n",
            "    description: \"Search the catalogue by genre, availability and publication date\"\n    access: write\n",
        )
        // Removal is no longer confirmed.
        .replace("    confirm: true\n", "")
        // getBookById is dropped, replaceBook added.
        .replace(
            "  - operation_id: getBookById\n    name: library2_get_book\n    description: \"Get one book by catalogue number\"\n    annotations:\n      read_only: true\n",
            "  - operation_id: replaceBook\n    name: library2_replace_book\n",
        );
    std::fs::write(new.join("mcp_tools.yaml"), tools).expect("write allowlist");
    new
}

/// Generates the crate of spec folder `folder` into `out`.
fn generate(folder: &Path, out: &Path) {
    let o = mcpgen(&[
        "generate",
        "--spec",
        s(&folder.join("openapi.json")),
        "--tools",
        s(&folder.join("mcp_tools.yaml")),
        "--out",
        s(out),
        "--name",
        "library2",
    ]);
    assert!(o.status.success(), "generate: {o:?}");
}

fn changes(o: &Output) -> Vec<(String, String, String)> {
    let v: Value = serde_json::from_str(&stdout(o)).expect("JSON output");
    v["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .map(|c| {
            (
                c["kind"].as_str().unwrap_or_default().to_owned(),
                c["tool"].as_str().unwrap_or_default().to_owned(),
                c["message"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn has(list: &[(String, String, String)], kind: &str, tool: &str, message: &str) -> bool {
    list.iter()
        .any(|(k, t, m)| k == kind && t == tool && m.contains(message))
}

#[test]
fn diff_of_two_generated_tools_json_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (old, new) = (old_folder(dir.path()), new_folder(dir.path()));
    let (gen_old, gen_new) = (dir.path().join("gen_old"), dir.path().join("gen_new"));
    generate(&old, &gen_old);
    generate(&new, &gen_new);
    let (a, b) = (gen_old.join("tools.json"), gen_new.join("tools.json"));

    // Markdown, exit 0 without --fail-on.
    let md = mcpgen(&["diff", s(&a), s(&b)]);
    assert!(md.status.success(), "{md:?}");
    let text = stdout(&md);
    for line in [
        "### Removed tools",
        "- `library2_get_book`: tool removed (was read)",
        "### Breaking input changes",
        "- `library2_create_loan`: new required argument `branch` (`/inputSchema/properties/branch`)",
        "- `library2_list_books`: enum value removed: \"lost\" (`/inputSchema/properties/availability/enum`)",
        "### Security changes",
        "- `library2_list_books`: access read → write",
        "### Added tools",
        "- `library2_replace_book`: new write tool",
    ] {
        assert!(text.contains(line), "`{line}` in:\n{text}");
    }

    // JSON and the exit codes CI uses.
    let js = mcpgen(&["diff", s(&a), s(&b), "--json", "--fail-on", "breaking"]);
    assert_eq!(js.status.code(), Some(1), "breaking changes fail: {js:?}");
    let list = changes(&js);
    assert!(has(&list, "removed", "library2_get_book", "tool removed"));
    assert!(has(
        &list,
        "security",
        "library2_list_books",
        "access read → write"
    ));
    assert!(
        has(
            &list,
            "policy",
            "library2_list_books",
            "annotation readOnlyHint true → false"
        ),
        "{list:?}"
    );
    assert_eq!(
        mcpgen(&["diff", s(&a), s(&b), "--fail-on", "security"])
            .status
            .code(),
        Some(1)
    );
    // The same surface on both sides passes even --fail-on any.
    let same = mcpgen(&["diff", s(&a), s(&gen_old), "--fail-on", "any"]);
    assert!(same.status.success(), "{same:?}");
    assert!(stdout(&same).contains("No changes."));
    // A bad --fail-on is a usage error naming the choices.
    let bad = mcpgen(&["diff", s(&a), s(&b), "--fail-on", "sometimes"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("breaking, security, any"));
}

#[test]
fn diff_of_two_spec_folders_sees_confirmation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (old, new) = (old_folder(dir.path()), new_folder(dir.path()));
    let js = mcpgen(&["diff", s(&old), s(&new), "--json"]);
    assert!(js.status.success(), "{js:?}");
    let list = changes(&js);
    assert!(
        has(
            &list,
            "security",
            "library2_remove_book",
            "confirmation removed"
        ),
        "{list:?}"
    );
    assert!(has(
        &list,
        "breaking",
        "library2_create_loan",
        "new required argument `branch`"
    ));
    // Only breaking-or-not matters with --fail-on breaking; a surface with only
    // compatible changes passes it.
    let to_self = mcpgen(&["diff", s(&old), s(&old), "--fail-on", "breaking"]);
    assert!(to_self.status.success());
}

#[test]
fn generate_check_prints_the_diff_when_tools_json_would_change() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (old, new) = (old_folder(dir.path()), new_folder(dir.path()));
    let out = dir.path().join("gen");
    generate(&old, &out);
    let check = mcpgen(&[
        "generate",
        "--spec",
        s(&new.join("openapi.json")),
        "--tools",
        s(&new.join("mcp_tools.yaml")),
        "--out",
        s(&out),
        "--name",
        "library2",
        "--check",
    ]);
    assert_eq!(check.status.code(), Some(1), "{check:?}");
    let text = stdout(&check);
    assert!(text.contains("## Tool surface"), "{text}");
    assert!(text.contains("new required argument `branch`"), "{text}");
    assert!(text.contains("access read → write"), "{text}");
    // Like with like: the checked-in file against the fresh one, so entries only the file has
    // (the `describe_tools` meta-tool) are not reported as removed.
    assert!(!text.contains("describe_tools"), "{text}");
    assert!(String::from_utf8_lossy(&check.stderr).contains("tools.json (changed)"));
}

#[test]
fn generate_check_reports_only_what_changed_in_tools_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("synaplan");
    let specs = root().join("specs/synaplan");
    let (spec, tools) = (specs.join("openapi.yaml"), specs.join("mcp_tools.yaml"));
    let args = |check: bool| {
        let mut args = vec![
            "generate",
            "--spec",
            s(&spec),
            "--tools",
            s(&tools),
            "--out",
            s(&out),
            "--name",
            "synaplan",
        ];
        if check {
            args.push("--check");
        }
        args.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    let run = |check: bool| {
        let args = args(check);
        mcpgen(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    assert!(run(false).status.success());
    // The checked-in file lists the `describe_tools` meta-tool and summarised descriptions;
    // one description edited by hand is the only difference a check may report.
    let path = out.join("tools.json");
    let mut listed: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("tools.json")).expect("json");
    let names: Vec<String> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect();
    assert!(names.iter().any(|n| n == "describe_tools"), "{names:?}");
    let edited = listed["tools"]
        .as_array_mut()
        .and_then(|tools| {
            tools
                .iter_mut()
                .find(|t| t["name"] == "synaplan_list_chats")
        })
        .expect("synaplan_list_chats");
    edited["description"] = json!("Edited by hand.");
    std::fs::write(&path, serde_json::to_string_pretty(&listed).expect("json")).expect("write");
    let check = run(true);
    assert_eq!(check.status.code(), Some(1), "{check:?}");
    let text = stdout(&check);
    assert!(text.contains("synaplan_list_chats"), "{text}");
    for tool in names.iter().filter(|n| *n != "synaplan_list_chats") {
        assert!(
            !text.contains(&format!("`{tool}`")),
            "{tool} reported:\n{text}"
        );
    }
}
