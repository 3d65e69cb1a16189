//! The stdio client transport: a child process, one JSON-RPC message per line, with every
//! incoming line capped at `max_response_bytes`.
//!
//! The child is spawned here and its [`Child`] handle stays with the session, which closes
//! stdin, waits, kills if needed, and reaps it on shutdown.

use std::sync::Arc;

use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::Mutex;

use super::frame::{Capped, Frame, too_large};

/// Reads and writes MCP messages over a child's stdout and stdin.
pub(crate) struct StdioTransport {
    server: Arc<str>,
    stdin: Arc<Mutex<Option<ChildStdin>>>,
    stdout: BufReader<ChildStdout>,
    line: Capped,
    limit: usize,
}

impl StdioTransport {
    /// Takes the pipes of `child` (spawned with piped stdin and stdout).
    pub(crate) fn new(server: &str, child: &mut Child, limit: usize) -> std::io::Result<Self> {
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| std::io::Error::other("the child's stdin is not piped"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| std::io::Error::other("the child's stdout is not piped"))?;
        Ok(Self {
            server: server.into(),
            stdin: Arc::new(Mutex::new(Some(stdin))),
            stdout: BufReader::new(stdout),
            line: Capped::new(limit),
            limit,
        })
    }

    /// Reads up to the end of the next line. Cancel-safe: the bytes read so far stay in
    /// `self.line`, and each `fill_buf` is followed by its `consume` without an await between.
    async fn next_line(&mut self) -> Option<Frame> {
        loop {
            let (consumed, complete) = {
                let available = match self.stdout.fill_buf().await {
                    Ok(bytes) => bytes,
                    Err(e) => {
                        tracing::warn!(server = %self.server, "reading the server's stdout failed: {e}");
                        return None;
                    }
                };
                if available.is_empty() {
                    return None;
                }
                match available.iter().position(|b| *b == b'\n') {
                    Some(i) => {
                        self.line.push(&available[..i]);
                        (i + 1, true)
                    }
                    None => {
                        self.line.push(available);
                        (available.len(), false)
                    }
                }
            };
            self.stdout.consume(consumed);
            if complete {
                return Some(self.line.finish());
            }
        }
    }
}

impl Transport<RoleClient> for StdioTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let stdin = self.stdin.clone();
        async move {
            let mut line = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            line.push(b'\n');
            let mut guard = stdin.lock().await;
            let Some(pipe) = guard.as_mut() else {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::NotConnected,
                    "the server's stdin is closed",
                ));
            };
            pipe.write_all(&line).await?;
            pipe.flush().await
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        loop {
            match self.next_line().await? {
                Frame::Complete(line) => {
                    let text = line.trim_ascii();
                    if text.is_empty() {
                        continue;
                    }
                    match serde_json::from_slice::<ServerJsonRpcMessage>(text) {
                        Ok(message) => return Some(message),
                        Err(e) => {
                            tracing::warn!(server = %self.server, "ignoring a line that is not a JSON-RPC message: {e}");
                        }
                    }
                }
                Frame::Oversized { size, id } => match id {
                    Some(id) => return Some(too_large(id, size, self.limit)),
                    None => tracing::warn!(
                        server = %self.server,
                        "dropped a {size}-byte message without an id over max_response_bytes ({})",
                        self.limit
                    ),
                },
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Closing stdin is how an MCP client asks a stdio server to exit.
        if let Some(mut pipe) = self.stdin.lock().await.take() {
            pipe.shutdown().await.ok();
        }
        Ok(())
    }
}
