//! `mcpgen diff` with sides given as URLs: a spec document or a `tools.json` served over
//! loopback HTTP, with the limits every `--spec URL` download has.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use axum::Router;
use axum::extract::Path as UrlPath;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect};
use axum::routing::get;
use serde_json::{Value, json};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn mcpgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(args)
        .current_dir(root())
        .env_remove("MCPGEN_DIFF_FAIL_ON")
        .output()
        .expect("mcpgen runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json_out(o: &Output) -> Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).expect("JSON output")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Serves the files of `dir` under `/files/`, and at `/moved` a redirect to one of them on
/// the loopback address; returns the base URL.
fn serve(dir: PathBuf) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let target = format!("{base}/files/new.json");
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let app = Router::new()
                .route(
                    "/files/{name}",
                    get(move |UrlPath(name): UrlPath<String>| async move {
                        if name.contains("..") || name.contains('/') {
                            return StatusCode::BAD_REQUEST.into_response();
                        }
                        match std::fs::read(dir.join(&name)) {
                            Ok(body) => body.into_response(),
                            Err(_) => StatusCode::NOT_FOUND.into_response(),
                        }
                    }),
                )
                .route(
                    "/moved",
                    get(move || async move { Redirect::temporary(&target) }),
                );
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            axum::serve(listener, app).await.expect("serve");
        });
    });
    base
}

/// `dir/old.json` (library2's spec), `dir/new.json` (without the `lost` availability) and
/// `dir/tools.json` (the checked-in generation of library2).
fn write_files(dir: &Path) {
    let text = std::fs::read_to_string(root().join("specs/library2/openapi.json")).expect("spec");
    std::fs::write(dir.join("old.json"), &text).expect("old");
    let mut spec: Value = serde_json::from_str(&text).expect("spec JSON");
    let params = spec["paths"]["/books"]["get"]["parameters"]
        .as_array_mut()
        .expect("parameters");
    for p in params.iter_mut() {
        if p["name"] == "availability" {
            p["enum"] = json!(["available", "on_loan", "reserved"]);
        }
    }
    std::fs::write(dir.join("new.json"), spec.to_string()).expect("new");
    std::fs::copy(
        root().join("generated/library2/tools.json"),
        dir.join("tools.json"),
    )
    .expect("tools.json");
}

#[test]
fn both_sides_of_a_diff_may_be_urls_and_give_the_diff_of_the_files_on_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_files(dir.path());
    let base = serve(dir.path().to_owned());
    let tools = "specs/library2/mcp_tools.yaml";

    let from_urls = json_out(&mcpgen(&[
        "diff",
        &format!("{base}/files/old.json"),
        &format!("{base}/files/new.json"),
        "--tools",
        tools,
        "--json",
    ]));
    let from_files = json_out(&mcpgen(&[
        "diff",
        s(&dir.path().join("old.json")),
        s(&dir.path().join("new.json")),
        "--tools",
        tools,
        "--json",
    ]));
    assert_eq!(from_urls, from_files);
    let changes = from_urls["changes"].as_array().expect("changes");
    assert!(
        changes.iter().any(|c| c["kind"] == "breaking"
            && c["tool"] == "library2_list_books"
            && c["message"]
                .as_str()
                .is_some_and(|m| m.contains("enum value removed: \"lost\""))),
        "{from_urls:#}"
    );

    // A served tools.json against the generated crate it came from: nothing changed.
    let same = json_out(&mcpgen(&[
        "diff",
        &format!("{base}/files/tools.json"),
        "generated/library2",
        "--json",
    ]));
    assert_eq!(same["changes"], json!([]), "{same:#}");

    // Markdown names the URLs.
    let md = mcpgen(&[
        "diff",
        &format!("{base}/files/tools.json"),
        &format!("{base}/files/new.json"),
        "--tools",
        tools,
    ]);
    assert!(md.status.success(), "{}", stderr(&md));
    let text = String::from_utf8_lossy(&md.stdout);
    assert!(text.contains(&format!("{base}/files/new.json")), "{text}");
}

#[test]
fn a_spec_url_needs_an_allowlist_and_downloads_keep_their_limits() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_files(dir.path());
    let base = serve(dir.path().to_owned());
    let new = format!("{base}/files/new.json");

    let no_tools = mcpgen(&["diff", "generated/library2", &new]);
    assert_eq!(no_tools.status.code(), Some(1));
    assert!(
        stderr(&no_tools).contains("is a spec document; give its allowlist with --tools"),
        "{}",
        stderr(&no_tools)
    );

    let tools = "specs/library2/mcp_tools.yaml";
    let moved = format!("{base}/moved");
    let refused = mcpgen(&["diff", "generated/library2", &moved, "--tools", tools]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("not a public address")
            && stderr(&refused).contains("--allow-private-redirects"),
        "{}",
        stderr(&refused)
    );
    let followed = mcpgen(&[
        "diff",
        "generated/library2",
        &moved,
        "--tools",
        tools,
        "--allow-private-redirects",
    ]);
    assert!(followed.status.success(), "{}", stderr(&followed));

    let capped = mcpgen(&[
        "diff",
        &new,
        "generated/library2",
        "--tools",
        tools,
        "--spec-max-bytes",
        "1000",
    ]);
    assert_eq!(capped.status.code(), Some(1));
    assert!(
        stderr(&capped).contains("--spec-max-bytes"),
        "{}",
        stderr(&capped)
    );

    let missing = mcpgen(&[
        "diff",
        &format!("{base}/files/nope.json"),
        "generated/library2",
    ]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(stderr(&missing).contains("404"), "{}", stderr(&missing));
}
