//! The official MCP conformance suite's client scenarios (`conformance client`), auth
//! included, against `mcpgen-conformance-client` (tests/conformance_client): mcpgen-client
//! dispatching on the scenario the suite names, signing in with OAuth against the suite's
//! own authorization servers. The 0.1.x release runs every client scenario; the 0.2.0 alpha
//! runs what the 2025-11-25 and the 2026-07-28 revisions require (the scenarios it does not
//! score for a revision, extensions it has not released yet, do not fail a run). Every
//! scored scenario must pass: there is no list of known failures.

use mcpgen_tests::{node_bin, repo_root, workspace_binary};

/// One suite run at a time: each runs its scenarios at once, and some of them (`sse-retry`)
/// time the client's reconnection, which a machine busy with several suites delays.
static ONE_SUITE: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Whether the run's one blemish is the warning of `sse-retry` that the client reconnected
/// "slightly late" (more than 200 ms after the `retry` it was given, which the suite itself
/// calls acceptable): a wait that a loaded machine lengthens, not a fault of the client, and
/// not for a test to judge. Reconnecting early, or very late, is a failure and still fails.
fn only_late_reconnection(summary: &str, out_dir: &std::path::Path) -> bool {
    let blemishes: Vec<&str> = summary
        .lines()
        .map(str::trim)
        .filter(|line| line.starts_with('✗'))
        .collect();
    if blemishes.is_empty()
        || !blemishes
            .iter()
            .all(|line| line.starts_with("✗ sse-retry:") && line.contains(" 0 failed"))
    {
        return false;
    }
    let Ok(runs) = std::fs::read_dir(out_dir) else {
        return false;
    };
    let mut checked = false;
    for run in runs.flatten() {
        if !run.file_name().to_string_lossy().starts_with("sse-retry-") {
            continue;
        }
        let checks = std::fs::read_to_string(run.path().join("checks.json")).unwrap_or_default();
        let Ok(serde_json::Value::Array(checks)) = serde_json::from_str(&checks) else {
            return false;
        };
        for check in &checks {
            match check["status"].as_str() {
                Some("FAILURE") => return false,
                Some("WARNING") => {
                    let late = check["id"] == "client-sse-retry-timing"
                        && check["errorMessage"]
                            .as_str()
                            .is_some_and(|m| m.contains("slightly late"));
                    if !late {
                        return false;
                    }
                    println!("tolerated: {}", check["errorMessage"]);
                    checked = true;
                }
                _ => {}
            }
        }
    }
    checked
}

async fn run_client_suite(entry: &str, selection: &[&str]) {
    let _one = ONE_SUITE.lock().await;
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
        output.status.success() || only_late_reconnection(&summary, out_dir.path()),
        "conformance client ({entry} {selection:?}) failed:\n{summary}\n\
         the whole run:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Scenarios that must pass even where a revision does not score them (extensions).
    for must_pass in [
        "initialize",
        "elicitation-sep1034-client-defaults",
        "auth/metadata-default",
        "auth/basic-cimd",
        "auth/pre-registration",
        "auth/client-credentials-basic",
        "auth/token-endpoint-auth-basic",
        "auth/client-credentials-jwt",
        "auth/cross-app-access-complete-flow",
        "auth/2025-03-26-oauth-metadata-backcompat",
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
    )
    .await;
}

#[tokio::test]
async fn conformance_client_2025_11_25() {
    run_client_suite(
        "conformance-next/dist/index.js",
        &["--requirements", "2025-11-25"],
    )
    .await;
}

#[tokio::test]
async fn conformance_client_2026_07_28() {
    run_client_suite(
        "conformance-next/dist/index.js",
        &["--requirements", "2026-07-28"],
    )
    .await;
}

/// `mcpgen tools` signs in with client credentials against the suite's authorization server
/// and protected MCP server (scenario `auth/client-credentials-basic`), and keeps the token in
/// a file only the user can read.
#[tokio::test]
async fn mcpgen_tools_signs_in_with_client_credentials() {
    let _one = ONE_SUITE.lock().await;
    let node = node_bin("node");
    let script =
        repo_root().join("tests/node/node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let dir = tempfile::tempdir().expect("tempdir");
    let tokens = dir.path().join("tokens");
    // The suite runs the wrapper with the server URL; the credentials come from its context.
    let wrapper = dir.path().join("mcpgen-tools.sh");
    let body = [
        "#!/bin/sh".to_owned(),
        "set -e".to_owned(),
        format!(
            "printf '{{\"mcpServers\": {{\"protected\": {{\"url\": \"%s\", \"allow_private\": true}}}}}}' \"$1\" > '{}/servers.json'",
            dir.path().display()
        ),
        "ID=$(node -e 'console.log(JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT).client_id)')"
            .to_owned(),
        "MCPGEN_TEST_SECRET=$(node -e 'console.log(JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT).client_secret)')"
            .to_owned(),
        "export MCPGEN_TEST_SECRET".to_owned(),
        format!(
            "exec '{}' tools --config '{}/servers.json' --client-credentials --client-id \"$ID\" --client-secret-env MCPGEN_TEST_SECRET --token-dir '{}'",
            workspace_binary("mcpgen").display(),
            dir.path().display(),
            tokens.display()
        ),
    ];
    std::fs::write(&wrapper, body.join("\n") + "\n").expect("write wrapper");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let output = tokio::process::Command::new(&node)
        .arg(&script)
        .args(["client", "--scenario", "auth/client-credentials-basic"])
        .arg("--command")
        .arg(&wrapper)
        .current_dir(dir.path())
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
        .output()
        .await
        .expect("conformance suite runs");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success() && report.contains(", 0 failed") && report.contains("PASSED"),
        "the sign-in failed ({:?}):\n{report}",
        output.status
    );
    let files: Vec<std::path::PathBuf> = std::fs::read_dir(&tokens)
        .expect("the token folder exists")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(files.len(), 1, "one token file: {files:?}");
    let text = std::fs::read_to_string(&files[0]).expect("token file");
    assert!(text.contains("access_token"), "the file holds the token");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&files[0])
            .expect("metadata")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "only the user reads the token file");
        let dir_mode = std::fs::metadata(&tokens)
            .expect("metadata")
            .permissions()
            .mode();
        assert_eq!(dir_mode & 0o777, 0o700);
    }
}
