//! `mcpgen serve --watch` as a real child process, held by the official Python SDK client
//! (`watch_client.py`) listening for `notifications/tools/list_changed`: an edit of the
//! allowlist that adds a tool is announced and listed, a broken edit (YAML syntax, an unknown
//! operation) keeps the tools served and is logged with the file and line, and a later fix is
//! swapped in again.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use mcpgen_tests::python_bin;
use serde_json::{Value, json};

use super::root;

/// The Python client holding a session with `mcpgen serve --watch`; killed when dropped.
struct Session {
    child: Child,
    commands: ChildStdin,
    answers: BufReader<ChildStdout>,
    /// Where the server's stderr goes.
    log: PathBuf,
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Session {
    /// Starts the client, which starts `mcpgen serve --watch` of `spec` and `tools`.
    fn start(dir: &Path, spec: &Path, tools: &Path) -> Self {
        let log = dir.join("serve.stderr");
        let mut child = Command::new(python_bin("python"))
            .arg(root().join("generator/tests/cli/watch_client.py"))
            .arg(&log)
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_mcpgen"))
            .arg("serve")
            .arg("--spec")
            .arg(spec)
            .arg("--tools")
            .arg(tools)
            .args([
                "--watch",
                "--no-auth",
                "--upstream-url",
                "http://127.0.0.1:9",
            ])
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the Python client starts");
        let commands = child.stdin.take().expect("stdin");
        let answers = BufReader::new(child.stdout.take().expect("stdout"));
        Self {
            child,
            commands,
            answers,
            log,
        }
    }

    /// Sends `command` (`list` or `changed`) and reads its answer.
    fn ask(&mut self, command: &str) -> Value {
        writeln!(self.commands, "{command}").expect("write a command");
        self.commands.flush().expect("flush");
        let mut line = String::new();
        self.answers.read_line(&mut line).expect("read an answer");
        assert!(
            !line.is_empty(),
            "the client ended before answering `{command}`; server log:\n{}",
            self.log()
        );
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits (at most 30 s) until the server's log holds `text` `times` times.
    fn wait_for_log(&self, text: &str, times: usize) -> String {
        let start = Instant::now();
        loop {
            let log = self.log();
            if log.matches(text).count() >= times {
                return log;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "no {text:?} (x{times}) in the server's log:\n{log}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

const ONE_TOOL: &str = "\
server:
  name: library
mcp_tools:
  - operation_id: listBooks
    name: list_books
";

/// [`ONE_TOOL`] and a second entry, `get_book`.
fn two_tools() -> String {
    format!("{ONE_TOOL}  - operation_id: getBookById\n    name: get_book\n")
}

/// Writes `text` to `path` the way an editor saving in place does.
fn edit(path: &Path, text: &str) {
    std::fs::write(path, text).expect("write a watched file");
}

#[test]
fn serve_watch_swaps_tools_on_an_edit_and_keeps_them_on_a_broken_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let spec = dir.path().join("openapi.json");
    std::fs::copy(root().join("specs/library2/openapi.json"), &spec).expect("copy the spec");
    let tools = dir.path().join("mcp_tools.yaml");
    edit(&tools, ONE_TOOL);
    let mut session = Session::start(dir.path(), &spec, &tools);
    assert_eq!(
        session.ask("list"),
        json!({"tools": ["list_books"], "changes": 0})
    );
    session.wait_for_log("watching", 1);

    // An edit that adds a tool: the session is told, and the new list has it.
    edit(&tools, &two_tools());
    assert_eq!(
        session.ask("changed"),
        json!({"tools": ["list_books", "get_book"], "changes": 1}),
        "server log:\n{}",
        session.log()
    );

    // A YAML syntax error on line 8: logged with the file and line; nothing is swapped.
    edit(&tools, &format!("{}  - operation_id: [\n", two_tools()));
    let log = session.wait_for_log("still serving the previous tools", 1);
    assert!(
        log.contains("mcp_tools.yaml: line 8"),
        "the log names the file and line:\n{log}"
    );
    // An entry naming an operation the spec does not have: the file, the entry's line and
    // the closest operationIds.
    edit(
        &tools,
        &format!(
            "{}  - operation_id: listBook\n    name: oops\n",
            two_tools()
        ),
    );
    let log = session.wait_for_log("still serving the previous tools", 2);
    assert!(
        log.contains("mcp_tools.yaml: entry 3 (operation_id `listBook`) at line 8")
            && log.contains("closest: `listBooks`"),
        "the log names the file, the line and the closest operation:\n{log}"
    );
    assert_eq!(
        session.ask("list"),
        json!({"tools": ["list_books", "get_book"], "changes": 1}),
        "the tools served stay after broken edits; server log:\n{log}"
    );

    // A spec that is not JSON: its file, line and column. One whose selected operation
    // cannot be read: the allowlist entry's line and the JSON pointer in the spec.
    edit(&tools, &two_tools());
    assert_eq!(
        session.ask("changed"),
        json!({"tools": ["list_books", "get_book"], "changes": 2})
    );
    let good_spec = std::fs::read_to_string(&spec).expect("read the spec");
    edit(&spec, &good_spec.replacen('{', "{\n  \"swagger\": ", 1));
    let log = session.wait_for_log("still serving the previous tools", 3);
    assert!(
        log.contains("openapi.json:3:12: expected `,` or `}`"),
        "the log names the spec, the line and the column:\n{log}"
    );
    let mut document: Value = serde_json::from_str(&good_spec).expect("the spec is JSON");
    document["paths"]["/books"]["get"]["responses"] = json!(7);
    edit(
        &spec,
        &serde_json::to_string_pretty(&document).expect("JSON"),
    );
    let log = session.wait_for_log("still serving the previous tools", 4);
    assert!(
        log.contains("entry 1 (operation_id `listBooks`) at line 4")
            && log.contains("openapi.json: at `/paths/~1books/get/responses`"),
        "the log names the entry's line and the pointer in the spec:\n{log}"
    );
    assert_eq!(
        session.ask("list")["tools"],
        json!(["list_books", "get_book"]),
        "server log:\n{log}"
    );
    edit(&spec, &good_spec);
    assert_eq!(
        session.ask("changed"),
        json!({"tools": ["list_books", "get_book"], "changes": 3})
    );

    // The fix (one tool again, renamed): swapped in and announced.
    edit(&tools, &ONE_TOOL.replace("list_books", "books"));
    assert_eq!(
        session.ask("changed"),
        json!({"tools": ["books"], "changes": 4}),
        "server log:\n{}",
        session.log()
    );
}
