//! `--spec URL`: the commands read a spec served over HTTP (a real server on loopback), with
//! the limits on what a download may do.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use axum::Router;
use axum::extract::Path as UrlPath;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use sha2::{Digest, Sha256};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/spec_layer/refs")
}

async fn file(UrlPath(path): UrlPath<String>) -> Response {
    if path.split('/').any(|s| s == "..") {
        return StatusCode::BAD_REQUEST.into_response();
    }
    match std::fs::read(fixtures().join(&path)) {
        Ok(body) => ([(header::CONTENT_TYPE, "application/yaml")], body).into_response(),
        Err(_) => StatusCode::NOT_FOUND.into_response(),
    }
}

/// Serves the split fixture spec under `/api/`, a redirect to it at `/moved`, and a slow
/// answer at `/slow`; returns the base URL.
fn serve() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let target = format!("{base}/api/openapi.yaml");
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let app = Router::new()
                .route("/api/{*path}", get(file))
                .route(
                    "/moved",
                    get(move || async move { Redirect::temporary(&target) }),
                )
                .route(
                    "/slow",
                    get(|| async {
                        tokio::time::sleep(Duration::from_secs(30)).await;
                        "openapi: 3.0.3"
                    }),
                );
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            axum::serve(listener, app).await.expect("serve");
        });
    });
    base
}

fn mcpgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(args)
        .output()
        .expect("mcpgen runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_split_spec_is_read_from_a_url_only_when_its_files_may_be_fetched() {
    let base = serve();
    let url = format!("{base}/api/openapi.yaml");

    let refused = mcpgen(&["list", "--spec", &url]);
    assert!(!refused.status.success());
    let message = stderr(&refused);
    assert!(
        message.contains("`parameters.yaml#/Limit`") && message.contains("--allow-external-refs"),
        "{message}"
    );

    let listed = mcpgen(&["list", "--spec", &url, "--allow-external-refs"]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    let table = String::from_utf8_lossy(&listed.stdout);
    assert!(table.contains("/owners/{id}"), "{table}");
}

#[test]
fn the_generated_header_records_the_url_and_the_documents_sha256() {
    let base = serve();
    let url = format!("{base}/api/openapi.yaml");
    let dir = tempfile::tempdir().expect("tempdir");
    let tools = dir.path().join("mcp_tools.yaml");
    let init = mcpgen(&["init", "--spec", &url, "--allow-external-refs"]);
    assert!(init.status.success(), "{}", stderr(&init));
    std::fs::write(&tools, &init.stdout).expect("allowlist");

    let out = dir.path().join("crate");
    let generated = mcpgen(&[
        "generate",
        "--spec",
        &url,
        "--allow-external-refs",
        "--tools",
        tools.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert!(generated.status.success(), "{}", stderr(&generated));
    let document = std::fs::read(fixtures().join("openapi.yaml")).expect("fixture");
    let sha = hex::encode(Sha256::digest(&document));
    let manifest = std::fs::read_to_string(out.join("Cargo.toml")).expect("Cargo.toml");
    let header = manifest.lines().next().unwrap_or_default();
    assert!(
        header.contains(&format!("{url} (sha256 {sha})")),
        "{header}"
    );

    let checked = mcpgen(&[
        "check",
        "--spec",
        &url,
        "--allow-external-refs",
        "--tools",
        tools.to_str().expect("utf-8"),
    ]);
    assert!(checked.status.success(), "{}", stderr(&checked));
}

#[test]
fn a_redirect_to_a_private_address_is_followed_only_when_allowed() {
    let base = serve();
    let moved = format!("{base}/moved");

    let refused = mcpgen(&["list", "--spec", &moved, "--allow-external-refs"]);
    assert!(!refused.status.success());
    let message = stderr(&refused);
    assert!(
        message.contains("not a public address") && message.contains("--allow-private-redirects"),
        "{message}"
    );

    let followed = mcpgen(&[
        "list",
        "--spec",
        &moved,
        "--allow-external-refs",
        "--allow-private-redirects",
    ]);
    assert!(followed.status.success(), "{}", stderr(&followed));
}

#[test]
fn size_cap_timeout_and_missing_documents_are_clear_errors() {
    let base = serve();
    let url = format!("{base}/api/openapi.yaml");

    let capped = mcpgen(&["list", "--spec", &url, "--spec-max-bytes", "100"]);
    assert!(!capped.status.success());
    assert!(
        stderr(&capped).contains("--spec-max-bytes"),
        "{}",
        stderr(&capped)
    );

    let slow = mcpgen(&[
        "list",
        "--spec",
        &format!("{base}/slow"),
        "--spec-timeout",
        "1",
    ]);
    assert!(!slow.status.success());
    assert!(stderr(&slow).contains("/slow"), "{}", stderr(&slow));

    let missing = mcpgen(&["list", "--spec", &format!("{base}/api/nope.yaml")]);
    assert!(!missing.status.success());
    assert!(stderr(&missing).contains("404"), "{}", stderr(&missing));

    let not_url = mcpgen(&["list", "--spec", "http://[::1"]);
    assert!(!not_url.status.success());
    assert!(
        stderr(&not_url).contains("not a URL"),
        "{}",
        stderr(&not_url)
    );
}
