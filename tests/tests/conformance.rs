//! The official MCP conformance suite, with auth off on loopback, against two servers: the
//! generated Synaplan server, and `mcpgen-conformance-fixture` (the suite's own tools written with
//! `#[mcp_tool]`, in `tests/conformance_fixture`). Each runs the 0.1.x release over all active
//! server scenarios, and the 0.2.0 alpha with `--requirements 2026-07-28`. Known failures, each
//! with its reason, are in `tests/conformance/baseline-*.yml` (Synaplan) and
//! `tests/conformance/fixture-*.yml` (the fixture); the suite fails on anything else, and on a
//! baseline entry that has started to pass. Each run prints the suite's per-scenario table.

use std::path::Path;

use mcpgen_tests::{
    KillOnDrop, StandIn, free_port, node_bin, repo_root, start_synaplan_http, wait_ready,
    workspace_binary,
};

/// Which server a run grades.
enum Target {
    /// The generated Synaplan server against a stand-in upstream.
    Synaplan,
    /// The `#[mcp_tool]` fixture implementing the suite's tool scenarios.
    Fixture,
}

/// Starts `mcpgen-conformance-fixture --transport http --no-auth` on a free loopback port;
/// returns the process and its base URL once `/healthz` answers.
async fn start_fixture_http() -> (KillOnDrop, String) {
    let port = free_port();
    let child = tokio::process::Command::new(workspace_binary("mcpgen-conformance-fixture"))
        .args([
            "--transport",
            "http",
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--no-auth",
        ])
        .env("RUST_LOG", "error")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("mcpgen-conformance-fixture starts");
    let url = format!("http://127.0.0.1:{port}");
    assert!(
        wait_ready(&format!("{url}/healthz")).await,
        "mcpgen-conformance-fixture did not come up"
    );
    (KillOnDrop(child), url)
}

async fn run_suite(target: Target, entry: &str, extra: &[&str], baseline: &str) {
    let (_upstream, (_server, url)) = match target {
        Target::Synaplan => {
            let upstream = StandIn::start(vec![]).await.expect("stand-in");
            let server = start_synaplan_http(&upstream.url, &["--no-auth"]).await;
            (Some(upstream), server)
        }
        Target::Fixture => (None, start_fixture_http().await),
    };

    let node = node_bin("node");
    let script = repo_root().join("tests/node/node_modules").join(entry);
    let baseline = repo_root().join("tests/conformance").join(baseline);
    let out_dir = tempfile::tempdir().expect("tempdir");
    let output = tokio::process::Command::new(&node)
        .arg(&script)
        .args(["server", "--url", &format!("{url}/mcp")])
        .args(extra)
        .arg("--expected-failures")
        .arg(&baseline)
        .arg("-o")
        .arg(out_dir.path())
        .current_dir(out_dir.path())
        .env("PATH", path_with(&node))
        .output()
        .await
        .expect("conformance suite runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let summary = stdout.split("=== SUMMARY ===").nth(1).unwrap_or(&stdout);
    // The suite's per-scenario table, shown with `--nocapture` and on failure.
    println!("conformance {entry} {extra:?} against {url}:\n{summary}");
    assert!(
        output.status.success(),
        "conformance ({entry} {extra:?}) failed outside the baseline {}:\n{summary}\n{}",
        baseline.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    if stdout.contains("=== SUMMARY ===") {
        for must_pass in [
            "server-initialize",
            "tools-list",
            "dns-rebinding-protection",
        ] {
            let ran = stdout.contains(&format!("{must_pass}:"));
            assert!(
                !ran || stdout.contains(&format!("✓ {must_pass}:")),
                "{must_pass} did not pass:\n{summary}"
            );
        }
    } else {
        // A single scenario prints its checks and a `Passed: n/n, 0 failed` line.
        assert!(stdout.contains(", 0 failed"), "scenario failed:\n{stdout}");
    }
}

fn path_with(node: &Path) -> String {
    format!(
        "{}:{}",
        node.parent()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        std::env::var("PATH").unwrap_or_default()
    )
}

#[tokio::test]
async fn conformance_0_1_release() {
    run_suite(
        Target::Synaplan,
        "@modelcontextprotocol/conformance/dist/index.js",
        &[],
        "baseline-0.1.yml",
    )
    .await;
}

#[tokio::test]
async fn conformance_0_2_alpha_2026_07_28() {
    run_suite(
        Target::Synaplan,
        "conformance-next/dist/index.js",
        &["--requirements", "2026-07-28"],
        "baseline-2026-07-28.yml",
    )
    .await;
    // The 2026-07-28 scenarios the issue names pass (they are not in the baseline).
    let baseline =
        std::fs::read_to_string(repo_root().join("tests/conformance/baseline-2026-07-28.yml"))
            .expect("baseline");
    for required in [
        "caching",
        "http-header-validation",
        "tools-list",
        "dns-rebinding-protection",
    ] {
        assert!(
            !baseline.contains(&format!("- {required}\n")),
            "{required} is in the baseline"
        );
    }
}

/// The session lifecycle (initialize → initialized → DELETE → 404) of the session era, which the
/// 2026-07-28 requirement set no longer includes.
#[tokio::test]
async fn conformance_session_lifecycle() {
    for scenario in ["server-session-lifecycle", "server-initialize"] {
        run_suite(
            Target::Synaplan,
            "conformance-next/dist/index.js",
            &["--scenario", scenario],
            "baseline-none.yml",
        )
        .await;
    }
}

/// The scored tool scenarios the fixture implements; none may be in a fixture baseline.
const FIXTURE_TOOL_SCENARIOS: &[&str] = &[
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-error",
    "tools-call-with-progress",
];

fn assert_not_in_baseline(baseline: &str, scenarios: &[&str]) {
    let text = std::fs::read_to_string(repo_root().join("tests/conformance").join(baseline))
        .expect("baseline");
    for scenario in scenarios {
        assert!(
            !text.contains(&format!("- {scenario}\n")),
            "{scenario} is in {baseline}"
        );
    }
}

#[tokio::test]
async fn fixture_conformance_0_1_release() {
    run_suite(
        Target::Fixture,
        "@modelcontextprotocol/conformance/dist/index.js",
        &[],
        "fixture-0.1.yml",
    )
    .await;
    // 0.1.x also scores logging during a tool call.
    let mut scenarios = FIXTURE_TOOL_SCENARIOS.to_vec();
    scenarios.push("tools-call-with-logging");
    assert_not_in_baseline("fixture-0.1.yml", &scenarios);
}

#[tokio::test]
async fn fixture_conformance_0_2_alpha_2026_07_28() {
    run_suite(
        Target::Fixture,
        "conformance-next/dist/index.js",
        &["--requirements", "2026-07-28"],
        "fixture-2026-07-28.yml",
    )
    .await;
    assert_not_in_baseline("fixture-2026-07-28.yml", FIXTURE_TOOL_SCENARIOS);
}
