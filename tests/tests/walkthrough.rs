//! The README's five-minute walkthrough, run as written: its shell blocks generate a crate from
//! `specs/library2`, build it and start its server; its Python program lists the tools with the
//! official Python SDK, which must be the tools of the crate's `tools.json`.
//!
//! What the test changes, and why: `/tmp/library-mcp` becomes a temporary folder and port 8080
//! a free one (tests run side by side); `cargo run -p generator --` is the `mcpgen` binary the
//! test command built; and the generated crate builds offline in the target folder that crates
//! built outside the workspace share (`mcpgen_tests::standalone_target`), so nothing is fetched
//! and the dependencies are compiled once.

use std::path::Path;
use std::process::{Child, Command, Stdio};

use mcpgen_tests::{free_port, repo_root, standalone_target, wait_ready, workspace_binary};

/// The fenced blocks between the README's walkthrough anchors: `(language, text)`.
fn walkthrough_blocks() -> Vec<(String, String)> {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let start = readme
        .find("ANCHOR: walkthrough")
        .expect("the walkthrough anchor in README.md");
    let end = readme
        .find("ANCHOR_END: walkthrough")
        .expect("the walkthrough's end anchor in README.md");
    let mut blocks = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in readme[start..end].lines() {
        match (&mut current, line.strip_prefix("```")) {
            (None, Some(language)) => current = Some((language.trim().to_owned(), String::new())),
            (Some(_), Some(_)) => blocks.extend(current.take()),
            (Some((_, text)), None) => {
                text.push_str(line);
                text.push('\n');
            }
            (None, None) => {}
        }
    }
    blocks
}

/// `bash -c script` as a reader runs it from the repository's root, with the changes the
/// module's documentation lists.
fn bash(script: &str, work: &Path, port: u16) -> Command {
    let script = script
        .replace("/tmp/library-mcp", &work.to_string_lossy())
        .replace("127.0.0.1:8080", &format!("127.0.0.1:{port}"));
    let prelude = format!(
        "set -euo pipefail\n\
         cargo() {{ if [ \"${{1:-}} ${{2:-}} ${{3:-}} ${{4:-}}\" = 'run -p generator --' ]; then \
         shift 4; '{mcpgen}' \"$@\"; else command cargo \"$@\"; fi; }}\n",
        mcpgen = workspace_binary("mcpgen").display()
    );
    let mut command = Command::new("bash");
    command
        .arg("-c")
        .arg(prelude + &script)
        .current_dir(repo_root())
        .env("CARGO_TARGET_DIR", standalone_target())
        .env("CARGO_NET_OFFLINE", "true")
        .env("CARGO_INCREMENTAL", "0")
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .env_remove("RUSTFLAGS");
    command
}

/// Stops the server started by the walkthrough (the shell and the server it runs through
/// `cargo run`, one process group) when the test ends, passed or failed.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_readme_walkthrough_serves_the_generated_tools_to_the_python_client() {
    let blocks = walkthrough_blocks();
    let work = tempfile::tempdir().expect("a temporary folder");
    let port = free_port();
    let (serve, setup): (Vec<_>, Vec<_>) = blocks
        .iter()
        .filter(|(language, _)| language == "sh")
        .partition(|(_, text)| text.contains("--transport http"));
    assert!(
        setup.len() >= 2 && serve.len() == 1,
        "the walkthrough has its setup blocks and one block that starts the server: {blocks:?}"
    );
    for (_, script) in &setup {
        let output = bash(script, work.path(), port).output().expect("bash runs");
        assert!(
            output.status.success(),
            "this walkthrough block failed:\n{script}\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    let mut start = bash(&serve[0].1, work.path(), port);
    start.stdout(Stdio::null()).stderr(Stdio::inherit());
    std::os::unix::process::CommandExt::process_group(&mut start, 0);
    let _server = Server(start.spawn().expect("the server starts"));
    let healthz = format!("http://127.0.0.1:{port}/healthz");
    let mut ready = false;
    for _ in 0..12 {
        if wait_ready(&healthz).await {
            ready = true;
            break;
        }
    }
    assert!(ready, "the walkthrough's server did not answer {healthz}");

    let (_, program) = blocks
        .iter()
        .find(|(language, _)| language == "python")
        .expect("the walkthrough's Python program");
    let program = program.replace("127.0.0.1:8080", &format!("127.0.0.1:{port}"));
    let python = repo_root().join("tests/python/.venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing (scripts/test.sh installs it)",
        python.display()
    );
    let output = Command::new(&python)
        .arg("-c")
        .arg(&program)
        .output()
        .expect("python runs");
    assert!(
        output.status.success(),
        "the walkthrough's Python program failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed = String::from_utf8_lossy(&output.stdout);

    let tools_json = work.path().join("crate/tools.json");
    let tools: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tools_json).expect("tools.json"))
            .expect("tools.json is JSON");
    let mut names: Vec<String> = tools["tools"]
        .as_array()
        .expect("a tools array")
        .iter()
        .filter_map(|tool| tool["name"].as_str().map(|name| format!("'{name}'")))
        .collect();
    names.sort();
    assert!(
        !names.is_empty(),
        "the walkthrough's allowlist selects tools"
    );
    assert_eq!(printed.trim(), format!("[{}]", names.join(", ")));
}
