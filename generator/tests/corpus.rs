//! Corpus run (slow, behind `--ignored`; `MCPGEN_CORPUS=1 scripts/test.sh` runs it): the GitHub
//! REST API description from the npm package `@octokit/openapi`, fetched at test time, with every
//! operation selected by `mcpgen init --all`, generated and built.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("repo root")
}

fn run(cmd: &mut Command, what: &str) -> std::process::Output {
    let o = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(
        o.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn fetch_github_spec(dir: &Path) -> PathBuf {
    run(
        Command::new("npm")
            .args(["pack", "@octokit/openapi", "--silent"])
            .current_dir(dir),
        "npm pack @octokit/openapi",
    );
    let tgz = std::fs::read_dir(dir)
        .expect("read dir")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "tgz"))
        .expect("npm pack wrote a .tgz");
    run(
        Command::new("tar").arg("xzf").arg(&tgz).current_dir(dir),
        "tar",
    );
    dir.join("package/generated/api.github.com.json")
}

#[test]
#[ignore = "slow corpus run: fetches @octokit/openapi from npm and builds a ~1000-tool crate"]
fn github_rest_api_every_operation_generates_and_builds() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let spec = fetch_github_spec(tmp.path());
    let mcpgen = env!("CARGO_BIN_EXE_mcpgen");

    let init = run(
        Command::new(mcpgen)
            .args(["init", "--all", "--name", "github", "--spec"])
            .arg(&spec),
        "mcpgen init --all",
    );
    let tools = tmp.path().join("mcp_tools.yaml");
    std::fs::write(&tools, &init.stdout).expect("write allowlist");
    let selected = String::from_utf8_lossy(&init.stdout)
        .matches("operation_id:")
        .count();
    assert!(selected > 900, "only {selected} operations selected");

    let out = tmp.path().join("github-mcp");
    let started = Instant::now();
    let generated = run(
        Command::new(mcpgen)
            .args(["generate", "--spec"])
            .arg(&spec)
            .arg("--tools")
            .arg(&tools)
            .arg("--out")
            .arg(&out)
            .arg("--runtime-path")
            .arg(root().join("runtime")),
        "mcpgen generate",
    );
    let generate_time = started.elapsed();
    eprintln!(
        "corpus: {selected} operations; generate took {generate_time:.1?}: {}",
        String::from_utf8_lossy(&generated.stdout).trim()
    );

    std::fs::copy(root().join("Cargo.lock"), out.join("Cargo.lock")).expect("copy lock");
    let started = Instant::now();
    run(
        Command::new(env!("CARGO"))
            .args(["build", "--offline", "--quiet"])
            .current_dir(&out)
            .env("CARGO_TARGET_DIR", root().join("target").join("standalone")),
        "cargo build of the GitHub crate",
    );
    eprintln!("corpus: cargo build took {:.1?}", started.elapsed());
    let list: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tools.json")).expect("tools.json"))
            .expect("JSON");
    let count = list["tools"].as_array().map(Vec::len).unwrap_or_default();
    assert_eq!(count, selected, "every selected operation became a tool");
}
