//! `mcpgen call` answers what a server asks: the generated `library2-mcp` (its allowlist marks
//! `library2_remove_book`, a DELETE, `confirm: true`) over Streamable HTTP against a loopback
//! stand-in for the library API, called by the built `mcpgen` binary as a child process
//! whose terminal input the test types. Yes sends exactly one DELETE; no, or no input at
//! all, sends none.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use mcpgen_tests::{StandIn, start_listening, workspace_binary};
use serde_json::json;
use tokio::io::AsyncWriteExt;

fn write_config(dir: &Path, url: &str) -> PathBuf {
    let config = json!({"mcpServers": {
        "library": {"url": format!("{url}/mcp"), "allow_private": true}
    }});
    let path = dir.join("mcp_servers.json");
    std::fs::write(&path, config.to_string()).expect("write config");
    path
}

/// Runs `mcpgen call` of `library2_remove_book` for book `id`, typing `typed` on its stdin
/// (`None`: no input at all).
async fn remove_book(config: &Path, id: u64, typed: Option<&str>) -> Output {
    let mut child = tokio::process::Command::new(workspace_binary("mcpgen"))
        .args(["call", "--config"])
        .arg(config)
        .args(["--server", "library", "--tool", "library2_remove_book"])
        .args(["--args", &json!({"bookId": id}).to_string()])
        .env_remove("MCPGEN_MCP_CONFIG")
        .env_remove("MCPGEN_ROOTS")
        .stdin(if typed.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("mcpgen starts");
    if let (Some(text), Some(mut stdin)) = (typed, child.stdin.take()) {
        stdin.write_all(text.as_bytes()).await.expect("type");
        // Dropping stdin closes it: the end of input.
    }
    tokio::time::timeout(std::time::Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("mcpgen ends in time")
        .expect("mcpgen runs")
}

fn deletes(upstream: &StandIn) -> Vec<String> {
    upstream
        .received()
        .into_iter()
        .filter(|r| r.method == "DELETE")
        .map(|r| r.uri)
        .collect()
}

#[tokio::test]
async fn call_asks_on_the_terminal_before_a_confirmed_tool_runs() {
    let upstream = StandIn::start(vec![
        ("DELETE /books/41", (204, "application/json", String::new())),
        ("DELETE /books/42", (204, "application/json", String::new())),
        ("DELETE /books/43", (204, "application/json", String::new())),
    ])
    .await
    .expect("stand-in starts");
    let (_server, url) = start_listening(
        "library2-mcp",
        &[
            "--transport",
            "http",
            "--no-auth",
            "--upstream-url",
            &upstream.url,
        ],
    )
    .await;
    let dir = tempfile::tempdir().expect("tempdir");
    let config = write_config(dir.path(), &url);

    // Yes: exactly one DELETE, after the question showed the tool and its arguments.
    let yes = remove_book(&config, 42, Some("y\n")).await;
    let asked = String::from_utf8_lossy(&yes.stderr).into_owned();
    assert!(yes.status.success(), "yes succeeds: {yes:?}");
    for shown in [
        "Server `library` asks",
        "library2_remove_book",
        "DELETE",
        "42",
        "[y/n]",
    ] {
        assert!(
            asked.contains(shown),
            "the question shows `{shown}`: {asked}"
        );
    }
    assert_eq!(deletes(&upstream), ["/books/42"]);

    // No: nothing is sent, and the command fails saying why.
    let no = remove_book(&config, 41, Some("n\n")).await;
    assert_eq!(no.status.code(), Some(1), "no fails: {no:?}");
    let why = String::from_utf8_lossy(&no.stderr);
    assert!(why.contains("not confirmed"), "{why}");
    assert_eq!(deletes(&upstream), ["/books/42"], "no sends nothing");

    // No terminal input at all: the question is cancelled and nothing is sent.
    let silent = remove_book(&config, 43, None).await;
    assert_eq!(silent.status.code(), Some(1), "{silent:?}");
    assert!(String::from_utf8_lossy(&silent.stderr).contains("not confirmed"));
    assert_eq!(deletes(&upstream), ["/books/42"], "no input sends nothing");
}

/// Fills every elicitation form: `name` is Ada, booleans are yes, other fields keep their
/// defaults; remembers the fields it was shown.
struct Fill(std::sync::Mutex<Vec<String>>);

impl mcpgen_client::Elicitor for Fill {
    fn elicit<'a>(
        &'a self,
        request: &'a mcpgen_client::ElicitRequest,
    ) -> mcpgen_runtime::BoxFuture<'a, mcpgen_client::ElicitAnswer> {
        Box::pin(async move {
            let mut answer = serde_json::Map::new();
            for (name, field) in request.fields() {
                if let Ok(mut seen) = self.0.lock() {
                    seen.push(name.to_owned());
                }
                if name == "name" {
                    answer.insert(name.to_owned(), json!("Ada"));
                } else if field["type"] == "boolean" {
                    answer.insert(name.to_owned(), json!(true));
                } else if let Some(default) = field.get("default") {
                    answer.insert(name.to_owned(), default.clone());
                }
            }
            mcpgen_client::ElicitAnswer::Accept(answer)
        })
    }
}

/// A model that answers with what it was shown.
struct Mirror;

impl mcpgen_client::Llm for Mirror {
    fn respond<'a>(
        &'a self,
        messages: &'a [mcpgen_client::Message],
        _tools: &'a [mcpgen_client::ToolDefinition],
    ) -> mcpgen_runtime::BoxFuture<'a, Result<mcpgen_client::LlmTurn, mcpgen_client::LlmError>>
    {
        Box::pin(async move { Ok(mcpgen_client::LlmTurn::Final(format!("seen {messages:?}"))) })
    }
}

fn everything() -> mcpgen_client::ServerConfig {
    let config = json!({"mcpServers": {"everything": {
        "command": mcpgen_tests::node_bin("node").display().to_string(),
        "args": [
            mcpgen_tests::node_file("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
                .display()
                .to_string(),
            "stdio"
        ],
        "timeout_ms": 20000
    }}});
    let config = mcpgen_client::McpConfig::from_json_str(&config.to_string()).expect("config");
    config.servers["everything"].clone()
}

async fn text_of(session: &mcpgen_client::Session, tool: &str, args: serde_json::Value) -> String {
    let result = session
        .call_tool(tool, args.as_object().cloned().unwrap_or_default())
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    assert!(!result.is_error, "{tool}: {result:?}");
    result.joined_text()
}

/// The reference `server-everything` offers its sampling, roots and elicitation tools only to
/// clients that declare those capabilities: a session without answers sees none of them, a
/// session with answers sees them and its answers reach the server.
#[tokio::test]
async fn a_reference_server_sees_only_the_capabilities_provided() {
    const ASKING: [&str; 3] = [
        "trigger-sampling-request",
        "get-roots-list",
        "trigger-elicitation-request",
    ];
    let server = everything();
    let bare = mcpgen_client::Session::connect("everything", &server)
        .await
        .expect("connects");
    let names: Vec<String> = bare
        .list_tools()
        .await
        .expect("lists")
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert!(names.iter().any(|n| n == "echo"), "{names:?}");
    for tool in ASKING {
        assert!(
            !names.iter().any(|n| n == tool),
            "{tool} offered without the capability"
        );
    }
    bare.shutdown().await.expect("shuts down");

    let fill = std::sync::Arc::new(Fill(std::sync::Mutex::default()));
    let answers = mcpgen_client::ClientAnswers::new()
        .with_elicitor(fill.clone())
        .with_sampling(std::sync::Arc::new(Mirror), "mirror-1")
        .with_roots(vec![
            mcpgen_client::Root::new("file:///srv/project").with_name("project"),
        ]);
    let session = mcpgen_client::Session::connect_with("everything", &server, &answers)
        .await
        .expect("connects");
    let names: Vec<String> = session
        .list_tools()
        .await
        .expect("lists")
        .into_iter()
        .map(|t| t.name)
        .collect();
    for tool in ASKING {
        assert!(names.iter().any(|n| n == tool), "{tool} missing: {names:?}");
    }
    // URL questions were not declared.
    assert!(!names.iter().any(|n| n == "trigger-url-elicitation"));

    let sampled = text_of(
        &session,
        "trigger-sampling-request",
        json!({"prompt": "hello"}),
    )
    .await;
    for shown in ["mirror-1", "You are a helpful test server.", "hello"] {
        assert!(sampled.contains(shown), "`{shown}` in {sampled}");
    }
    let roots = text_of(&session, "get-roots-list", json!({})).await;
    assert!(
        roots.contains("project") && roots.contains("file:///srv/project"),
        "{roots}"
    );
    let answered = text_of(&session, "trigger-elicitation-request", json!({})).await;
    assert!(answered.contains("- Name: Ada"), "{answered}");
    assert!(answered.contains("- Agreed to terms: true"), "{answered}");
    assert!(
        fill.0
            .lock()
            .map(|f| f.contains(&"name".to_owned()))
            .unwrap_or(false),
        "the elicitor saw the form's fields"
    );
    session.shutdown().await.expect("shuts down");
}
