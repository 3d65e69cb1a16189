//! The official MCP conformance suite, with auth off on loopback, against two servers: the
//! generated Synaplan server, and `mcpgen-conformance-fixture` (the suite's own tools, prompts
//! and resources on the runtime, in `tests/conformance_fixture`). Each runs the 0.1.x release
//! over all active server scenarios, and the 0.2.0 alpha with `--requirements 2025-11-25` and
//! with `--requirements 2026-07-28`. Known failures, each with its reason, are in
//! `tests/conformance/baseline-*.yml` (Synaplan) and `tests/conformance/fixture-*.yml` (the
//! fixture: empty; it passes every scenario, the tasks extension's included); a run fails on anything else, and on a
//! baseline entry that has started to pass. Each run prints the suite's per-scenario table.

use std::path::Path;

use mcpgen_tests::{StandIn, node_bin, repo_root, start_fixture_http, start_synaplan_http};

/// Which server a run grades.
enum Target {
    /// The generated Synaplan server against a stand-in upstream.
    Synaplan,
    /// The `#[mcp_tool]` fixture implementing the suite's tool scenarios.
    Fixture,
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
    // The suite reports a baseline entry that now passes, except for pending scenarios: an
    // entry that ran and is not among the expected failures it lists (`  ~ name`: a check
    // failed or warned) is stale too.
    let expected: Vec<&str> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("  ~ "))
        .map(str::trim)
        .collect();
    for entry in std::fs::read_to_string(&baseline)
        .expect("baseline")
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
    {
        assert!(
            !stdout.contains(&format!("✓ {entry}:")) || expected.contains(&entry),
            "{entry} passes now: remove it from {}",
            baseline.display()
        );
    }
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
async fn conformance_0_2_alpha_2025_11_25() {
    run_suite(
        Target::Synaplan,
        "conformance-next/dist/index.js",
        &["--requirements", "2025-11-25"],
        "baseline-2025-11-25.yml",
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

/// The scenarios a baseline lists.
fn baseline_entries(baseline: &str) -> Vec<String> {
    std::fs::read_to_string(repo_root().join("tests/conformance").join(baseline))
        .expect("baseline")
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .map(str::to_owned)
        .collect()
}

/// Scenarios of the tasks extension: not scored for any revision, and not offered by the
/// generated server (none of its operations is a task).
fn unscored(scenario: &str) -> bool {
    scenario.starts_with("tasks-")
}

/// A fixture baseline may hold only unscored scenarios; and the generated server's baseline
/// only scenarios that need the suite's own tools, prompts or resources, which the fixture
/// (same runtime) passes, so they are not in the fixture's baseline.
fn assert_baselines(fixture: &str, synaplan: &str) {
    let fixture_entries = baseline_entries(fixture);
    for entry in &fixture_entries {
        assert!(
            unscored(entry),
            "{fixture} lists the scored scenario {entry}"
        );
    }
    for entry in baseline_entries(synaplan) {
        assert!(
            unscored(&entry) || !fixture_entries.contains(&entry),
            "{synaplan} lists {entry}, which the fixture does not pass either"
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
    assert_baselines("fixture-0.1.yml", "baseline-0.1.yml");
}

#[tokio::test]
async fn fixture_conformance_0_2_alpha_2025_11_25() {
    run_suite(
        Target::Fixture,
        "conformance-next/dist/index.js",
        &["--requirements", "2025-11-25"],
        "fixture-2025-11-25.yml",
    )
    .await;
    assert_baselines("fixture-2025-11-25.yml", "baseline-2025-11-25.yml");
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
    assert_baselines("fixture-2026-07-28.yml", "baseline-2026-07-28.yml");
}
