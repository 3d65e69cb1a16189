//! The README's walkthrough, run as written: its shell blocks list the operations of
//! `specs/library2`, write an allowlist with `init`, start the stand-in API (`mcpgen mock`) and
//! the server made from the spec (`mcpgen serve`); its Python program, with the official Python
//! SDK, lists the tools and calls one, and must print what the README shows: the tools of the
//! allowlist and a book the stand-in answered with. Then the production part: the blocks that
//! generate the crate and build it, and the one that starts the crate's server in place of
//! `mcpgen serve`, which must answer the same program with the same lines.
//!
//! What the test changes, and why: `/tmp/library-mcp` becomes a temporary folder, and the ports
//! 4010 (the stand-in) and 8080 (the MCP server) free ones (tests run side by side);
//! `cargo run -p generator --` is the `mcpgen` binary the test command built, so the cold build
//! of the generator that the README's first command makes (timed in its "How long it takes") is
//! not repeated here: the test command has built the same binary already, and building it again
//! in a target folder of its own would add minutes to every run. The generated crate builds
//! offline in the target folder that crates built outside the workspace share
//! (`mcpgen_tests::standalone_target`), in their profile (`mcpgen_tests::STANDALONE_ENV`: the
//! crate's `cargo build` and `cargo run` get `--release`, a release profile made the dev
//! profile's equal), so nothing is fetched and its dependencies are compiled once for every
//! test that builds such a crate.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use mcpgen_tests::{
    STANDALONE_ENV, free_port, repo_root, standalone_target, wait_ready, workspace_binary,
};

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

/// The walkthrough's folder and ports, and what stands in for them in a run of the test.
struct Places {
    work: PathBuf,
    mock_port: u16,
    server_port: u16,
}

impl Places {
    /// `text` with the README's folder and ports replaced by this run's.
    fn apply(&self, text: &str) -> String {
        text.replace("/tmp/library-mcp", &self.work.to_string_lossy())
            .replace("127.0.0.1:4010", &format!("127.0.0.1:{}", self.mock_port))
            .replace("127.0.0.1:8080", &format!("127.0.0.1:{}", self.server_port))
    }
}

/// `bash -c script` as a reader runs it from the repository's root, with the changes the
/// module's documentation lists.
fn bash(script: &str, places: &Places) -> Command {
    let prelude = format!(
        "set -euo pipefail\n\
         cargo() {{ if [ \"${{1:-}} ${{2:-}} ${{3:-}} ${{4:-}}\" = 'run -p generator --' ]; then \
         shift 4; '{mcpgen}' \"$@\"; \
         elif [ \"${{1:-}}\" = build ] || [ \"${{1:-}}\" = run ]; then \
         command cargo \"$1\" --release \"${{@:2}}\"; else command cargo \"$@\"; fi; }}\n",
        mcpgen = workspace_binary("mcpgen").display()
    );
    let mut command = Command::new("bash");
    command
        .arg("-c")
        .arg(prelude + &places.apply(script))
        .current_dir(repo_root())
        .env("CARGO_TARGET_DIR", standalone_target())
        .env("CARGO_NET_OFFLINE", "true")
        .envs(STANDALONE_ENV.iter().copied())
        .env_remove("RUSTFLAGS");
    command
}

/// A block that keeps running (the stand-in, a server): the shell and what it started, one
/// process group, stopped when this is dropped, the test passed or failed.
struct Background(Child);

impl Background {
    /// Starts `script` in a process group of its own, its standard error into `log`.
    fn start(script: &str, places: &Places, log: &Path) -> Self {
        let log = std::fs::File::create(log).expect("a log file");
        let mut command = bash(script, places);
        command.stdout(Stdio::null()).stderr(log);
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        Self(command.spawn().expect("the block starts"))
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        let _ = self.0.wait();
    }
}

/// Waits until something accepts connections on the loopback `port`, for at most a minute.
async fn wait_listening(port: u16) -> bool {
    for _ in 0..600 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    false
}

/// Runs the walkthrough's Python program against the server on this run's port; its output.
fn run_program(program: &str, places: &Places) -> String {
    let python = repo_root().join("tests/python/.venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing (scripts/test.sh installs it)",
        python.display()
    );
    let output = Command::new(&python)
        .arg("-c")
        .arg(places.apply(program))
        .output()
        .expect("python runs");
    assert!(
        output.status.success(),
        "the walkthrough's Python program failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_readme_walkthrough_reaches_an_answer_from_the_stand_in_with_serve_and_with_the_crate()
{
    let blocks = walkthrough_blocks();
    let work = tempfile::tempdir().expect("a temporary folder");
    let places = Places {
        work: work.path().to_path_buf(),
        mock_port: free_port(),
        server_port: free_port(),
    };
    assert_ne!(places.mock_port, places.server_port, "two free ports");
    let program_at = blocks
        .iter()
        .position(|(language, _)| language == "python")
        .expect("the walkthrough's Python program");
    let program = &blocks[program_at].1;
    let shown = blocks[program_at..]
        .iter()
        .find(|(language, _)| language == "text")
        .map(|(_, text)| text.clone())
        .expect("the output the README shows after the Python program");
    let shell: Vec<&str> = blocks
        .iter()
        .filter(|(language, _)| language == "sh")
        .map(|(_, text)| text.as_str())
        .collect();
    let is_mock = |script: &str| script.contains("-- mock ");
    let is_server = |script: &str| script.contains("--transport http");
    assert!(
        shell.iter().filter(|s| is_mock(s)).count() == 1
            && shell.iter().filter(|s| is_server(s)).count() == 2
            && shell
                .iter()
                .any(|s| s.contains("-- generate ") && s.contains("cargo build")),
        "the walkthrough starts one stand-in and two servers (`mcpgen serve`, then the crate's) \
         and generates and builds the crate: {blocks:?}"
    );

    let mock_log = work.path().join("mock.log");
    let mut mock = None;
    let mut server = None;
    let mut answers = Vec::new();
    for (number, script) in shell.iter().enumerate() {
        if is_mock(script) {
            mock = Some(Background::start(script, &places, &mock_log));
            assert!(
                wait_listening(places.mock_port).await,
                "the walkthrough's stand-in did not listen on port {}:\n{}",
                places.mock_port,
                std::fs::read_to_string(&mock_log).unwrap_or_default()
            );
        } else if is_server(script) {
            // The crate's server takes the place of `mcpgen serve`, on the same port.
            drop(server.take());
            let log = work.path().join(format!("server-{number}.log"));
            server = Some(Background::start(script, &places, &log));
            let healthz = format!("http://127.0.0.1:{}/healthz", places.server_port);
            let mut ready = false;
            for _ in 0..12 {
                if wait_ready(&healthz).await {
                    ready = true;
                    break;
                }
            }
            assert!(
                ready,
                "this walkthrough block's server did not answer {healthz}:\n{script}\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
            answers.push((script.to_string(), run_program(program, &places)));
        } else {
            let output = bash(script, &places).output().expect("bash runs");
            assert!(
                output.status.success(),
                "this walkthrough block failed:\n{script}\n{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
    assert!(mock.is_some(), "the stand-in ran");
    drop(server);

    // Each server answered what the README shows.
    for (script, printed) in &answers {
        assert_eq!(
            printed.trim(),
            shown.trim(),
            "the Python program, against the server of\n{script}\nprinted what the README does \
             not show"
        );
    }

    // The book came from the stand-in: each call reached it, and it answers the same request
    // with the book the program printed.
    let log = std::fs::read_to_string(&mock_log).expect("the stand-in's log");
    assert_eq!(
        log.lines()
            .filter(|l| l.contains("GET /books/1 200"))
            .count(),
        answers.len(),
        "each server's call reached the stand-in, which logged it:\n{log}"
    );
    let url = format!("http://127.0.0.1:{}/books/1", places.mock_port);
    let book: serde_json::Value = reqwest::get(&url)
        .await
        .and_then(reqwest::Response::error_for_status)
        .expect("the stand-in answers")
        .json()
        .await
        .expect("the stand-in answers JSON");
    let authors: Vec<&str> = book["authors"]
        .as_array()
        .expect("the book's authors")
        .iter()
        .filter_map(|author| author["name"].as_str())
        .collect();
    let line = format!(
        "{} by {}",
        book["title"].as_str().expect("the book's title"),
        authors.join(", ")
    );
    assert!(
        shown.lines().any(|printed| printed == line),
        "the program printed `{line}`, the stand-in's book:\n{shown}"
    );

    // The tools it listed are the allowlist's, as the generated crate's `tools.json` has them.
    let tools_json = work.path().join("crate/tools.json");
    let tools: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tools_json).expect("tools.json"))
            .expect("tools.json is JSON");
    let mut names: Vec<&str> = tools["tools"]
        .as_array()
        .expect("a tools array")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    names.sort_unstable();
    assert!(
        !names.is_empty(),
        "the walkthrough's allowlist selects tools"
    );
    let listed = format!("tools: {}", names.join(", "));
    assert!(
        shown.lines().any(|printed| printed == listed),
        "the program listed the crate's tools, `{listed}`:\n{shown}"
    );
}
