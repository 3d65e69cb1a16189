//! The OAuth authorization server the tests get access tokens from.

use std::process::Stdio;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{ChildStdin, ChildStdout};

use crate::{KillOnDrop, node_bin, node_file};

/// The OAuth authorization server of the tests, `oauth2-mock-server` from npm (started by
/// `tests/node/oauth-server.mjs`), driven over its stdin/stdout.
pub struct AuthServer {
    _child: KillOnDrop,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    /// Its issuer URL.
    pub issuer: String,
}

impl AuthServer {
    /// Starts it on 127.0.0.1 with an ephemeral port.
    pub async fn start() -> AuthServer {
        let mut child = tokio::process::Command::new(node_bin("node"))
            .arg(node_file("oauth-server.mjs"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("the authorization server starts");
        let stdin = child.stdin.take().expect("stdin");
        let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let first = lines
            .next_line()
            .await
            .expect("reads")
            .expect("a first line");
        let ready: Value = serde_json::from_str(&first).expect("JSON");
        let issuer = ready["issuer"].as_str().expect("issuer").to_owned();
        AuthServer {
            _child: KillOnDrop(child),
            stdin,
            lines,
            issuer,
        }
    }

    /// Sends one command line (see the script) and returns its answer, which must not be an
    /// error.
    pub async fn ask(&mut self, command: Value) -> Value {
        let line = format!("{command}\n");
        self.stdin.write_all(line.as_bytes()).await.expect("writes");
        let answer = self
            .lines
            .next_line()
            .await
            .expect("reads")
            .expect("an answer");
        let answer: Value = serde_json::from_str(&answer).expect("JSON");
        assert!(answer.get("error").is_none(), "{answer}");
        answer
    }

    /// A token carrying `claims` (replacing those the server sets), signed with its first key.
    pub async fn token(&mut self, claims: Value) -> String {
        self.token_with(claims, json!({})).await
    }

    /// A token carrying `claims`, built with `options` (`kid`, `expiresIn`).
    pub async fn token_with(&mut self, claims: Value, options: Value) -> String {
        let mut command = json!({"op": "token", "claims": claims});
        if let (Some(c), Some(extra)) = (command.as_object_mut(), options.as_object()) {
            c.extend(extra.clone());
        }
        self.ask(command).await["token"]
            .as_str()
            .expect("token")
            .to_owned()
    }
}
