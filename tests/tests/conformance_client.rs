//! The official MCP conformance suite's client scenarios (`conformance client`), auth
//! included, against `mcpgen-conformance-client` (tests/conformance_client): mcpgen-client
//! dispatching on the scenario the suite names, signing in with OAuth against the suite's
//! own authorization servers. The 0.1.x release runs every client scenario; the 0.2.0 alpha
//! runs what the 2025-11-25 and the 2026-07-28 revisions require. Known failures, each with
//! its reason, are in `tests/conformance/client-*.yml`; a run fails on anything else.

use mcpgen_tests::{node_bin, repo_root, workspace_binary};

async fn run_client_suite(entry: &str, selection: &[&str], baseline: Option<&str>) {
    let node = node_bin("node");
    let script = repo_root().join("tests/node/node_modules").join(entry);
    let client = workspace_binary("mcpgen-conformance-client");
    let out_dir = tempfile::tempdir().expect("tempdir");
    let mut command = tokio::process::Command::new(&node);
    command
        .arg(&script)
        .arg("client")
        .arg("--command")
        .arg(&client)
        .args(selection)
        // The suite runs its scenarios at once; on a loaded machine a debug client can need
        // more than the default 30 s to finish a sign-in.
        .args(["--timeout", "120000"])
        .arg("-o")
        .arg(out_dir.path())
        .current_dir(out_dir.path())
        .env(
            "PATH",
            format!(
                "{}:{}",
                node.parent()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        // Tokens stay in memory: nothing is written under the user's configuration folder.
        .env_remove("MCPGEN_TOKEN_DIR");
    if let Some(baseline) = baseline {
        command
            .arg("--expected-failures")
            .arg(repo_root().join("tests/conformance").join(baseline));
    }
    let output = command.output().await.expect("conformance suite runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let summary = stdout
        .split("SUMMARY ===")
        .nth(1)
        .unwrap_or(&stdout)
        .to_owned();
    println!("conformance client {entry} {selection:?}:\n{summary}");
    assert!(
        stdout.contains("SUMMARY ==="),
        "the suite ran no scenarios:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success(),
        "conformance client ({entry} {selection:?}) failed outside the baseline:\n{summary}"
    );
    // The scenarios that must pass whatever the baseline says.
    for must_pass in [
        "initialize",
        "elicitation-sep1034-client-defaults",
        "auth/metadata-default",
        "auth/basic-cimd",
        "auth/pre-registration",
        "auth/client-credentials-basic",
        "auth/token-endpoint-auth-basic",
    ] {
        let ran = summary.contains(&format!("{must_pass}:"));
        assert!(
            !ran || summary.contains(&format!("✓ {must_pass}:")),
            "{must_pass} did not pass:\n{summary}"
        );
    }
}

#[tokio::test]
async fn conformance_client_0_1_release() {
    run_client_suite(
        "@modelcontextprotocol/conformance/dist/index.js",
        &["--suite", "all"],
        Some("client-0.1.yml"),
    )
    .await;
}

#[tokio::test]
async fn conformance_client_2025_11_25() {
    run_client_suite(
        "conformance-next/dist/index.js",
        &["--requirements", "2025-11-25"],
        None,
    )
    .await;
}

#[tokio::test]
async fn conformance_client_2026_07_28() {
    run_client_suite(
        "conformance-next/dist/index.js",
        &["--requirements", "2026-07-28"],
        Some("client-2026-07-28.yml"),
    )
    .await;
}
