//! One connected MCP server: [`Session`].

use std::collections::HashMap;
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, PaginatedRequestParams};
use rmcp::service::{RunningService, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value};
use tokio::io::AsyncBufReadExt;
use tokio::process::Child;

use crate::answer::{Answerer, ClientAnswers};
use crate::config::{ServerConfig, TransportConfig};
use crate::error::ClientError;
use crate::tool::ListedTool;
use crate::transport::frame::too_large_size;
use crate::transport::listen::ServeError;
use crate::transport::sse::SseTransport;
use crate::transport::stdio::StdioTransport;
use crate::{error_chain, ssrf};
use mcpgen_core::{BoxFuture, CallError, Content, McpConnection, ToolResult};

/// The OAuth settings a connection uses, if any (none without the `oauth` feature).
#[cfg(feature = "oauth")]
pub(crate) type OAuthRef<'a> = Option<&'a crate::oauth::OAuthOptions>;
/// The OAuth settings a connection uses, if any (none without the `oauth` feature).
#[cfg(not(feature = "oauth"))]
pub(crate) type OAuthRef<'a> = Option<&'a std::convert::Infallible>;

/// How long a stdio server gets to exit after its stdin closes before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(3);

/// Most `tools/list` pages followed before giving up on a server that never ends its list.
const MAX_TOOL_PAGES: usize = 1000;

/// One connected server, with the guards of its [`ServerConfig`] on every call: the per-call
/// timeout (which also cancels the request on the server), the response size cap, the tool
/// allowlist, and (for HTTP and SSE) the SSRF guard.
pub struct Session {
    name: String,
    config: ServerConfig,
    service: RunningService<RoleClient, Answerer>,
    child: Option<Child>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("name", &self.name)
            .field("config", &self.config)
            .field("pid", &self.pid())
            .finish_non_exhaustive()
    }
}

impl Session {
    /// Connects to server `name` as `config` describes and completes the MCP handshake,
    /// within the configured timeout. The session answers no server request and declares
    /// no client capability (see [`Session::connect_with`]).
    pub async fn connect(name: &str, config: &ServerConfig) -> Result<Session, ClientError> {
        Self::connect_with(name, config, &ClientAnswers::default()).await
    }

    /// Connects like [`Session::connect`], answering the server's requests (elicitation,
    /// sampling, roots) with `answers` and declaring the capabilities they provide.
    pub async fn connect_with(
        name: &str,
        config: &ServerConfig,
        answers: &ClientAnswers,
    ) -> Result<Session, ClientError> {
        Self::connect_inner(name, config, answers, None).await
    }

    /// Connects like [`Session::connect_with`]; a Streamable HTTP server that asks for a
    /// token (401, or 403 `insufficient_scope`) gets one as `oauth` says (see
    /// [`oauth`](crate::oauth)). stdio and legacy SSE servers are connected as without it.
    #[cfg(feature = "oauth")]
    pub async fn connect_with_oauth(
        name: &str,
        config: &ServerConfig,
        answers: &ClientAnswers,
        oauth: &crate::oauth::OAuthOptions,
    ) -> Result<Session, ClientError> {
        Self::connect_inner(name, config, answers, Some(oauth)).await
    }

    /// Connects with a registry's answers and OAuth settings
    /// (`registry/options.rs::RegistryOptions::oauth_ref`).
    pub(crate) async fn connect_for_registry(
        name: &str,
        config: &ServerConfig,
        answers: &ClientAnswers,
        oauth: OAuthRef<'_>,
    ) -> Result<Session, ClientError> {
        Self::connect_inner(name, config, answers, oauth).await
    }

    async fn connect_inner(
        name: &str,
        config: &ServerConfig,
        answers: &ClientAnswers,
        oauth: OAuthRef<'_>,
    ) -> Result<Session, ClientError> {
        let handler = || Answerer::new(name, answers);
        let timeout = config.timeout;
        let fail = |message: String| ClientError::Connect {
            server: name.to_owned(),
            message,
        };
        let timed_out = || ClientError::Timeout {
            server: name.to_owned(),
            operation: "connect".to_owned(),
            timeout_ms: millis(timeout),
        };
        match &config.transport {
            TransportConfig::Stdio { command, args, env } => {
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(args)
                    .envs(env)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .kill_on_drop(true);
                let mut child = cmd
                    .spawn()
                    .map_err(|e| fail(format!("cannot start `{command}`: {e}")))?;
                if let Some(stderr) = child.stderr.take() {
                    let server = name.to_owned();
                    tokio::spawn(async move {
                        let mut lines = tokio::io::BufReader::new(stderr).lines();
                        while let Ok(Some(line)) = lines.next_line().await {
                            tracing::debug!(server = %server, "stderr: {line}");
                        }
                    });
                }
                let transport = StdioTransport::new(name, &mut child, config.max_response_bytes)
                    .map_err(|e| fail(e.to_string()))?;
                let service = match tokio::time::timeout(timeout, handler().serve(transport)).await
                {
                    Ok(Ok(service)) => service,
                    Ok(Err(e)) => {
                        reap(&mut child).await;
                        return Err(fail(format!(
                            "the MCP handshake with `{command}` failed: {e}"
                        )));
                    }
                    Err(_) => {
                        reap(&mut child).await;
                        return Err(timed_out());
                    }
                };
                Ok(Session {
                    name: name.to_owned(),
                    config: config.clone(),
                    service,
                    child: Some(child),
                })
            }
            TransportConfig::StreamableHttp { url, headers } => {
                let (parsed, client, headers) =
                    guarded_http(name, config, url, headers, timeout).await?;
                let custom: HashMap<_, _> = headers
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                // rmcp bounds what it buffers (16 MiB per JSON body or SSE event) and the
                // result is checked against `max_response_bytes` below. A lower rmcp bound
                // would make an oversized event close the whole transport instead of failing
                // the one call with a clear error.
                let transport_config =
                    StreamableHttpClientTransportConfig::with_uri(parsed.as_str())
                        .custom_headers(custom);
                #[cfg(feature = "oauth")]
                if let Some(options) = oauth {
                    let service = crate::oauth::serve_with_oauth(
                        &parsed,
                        client,
                        transport_config,
                        handler(),
                        &headers,
                        options,
                        config,
                    )
                    .await
                    .map_err(fail)?;
                    return Ok(Session {
                        name: name.to_owned(),
                        config: config.clone(),
                        service,
                        child: None,
                    });
                }
                #[cfg(not(feature = "oauth"))]
                let _ = oauth;
                let service = crate::transport::listen::serve_http(
                    handler(),
                    client,
                    transport_config,
                    config.lifecycle,
                    timeout,
                )
                .await
                .map_err(|e| match e {
                    ServeError::Handshake(e) => {
                        fail(format!("the MCP handshake with {url} failed: {e}"))
                    }
                    ServeError::TimedOut => timed_out(),
                })?;
                Ok(Session {
                    name: name.to_owned(),
                    config: config.clone(),
                    service,
                    child: None,
                })
            }
            TransportConfig::Sse { url, headers } => {
                let (parsed, client, headers) =
                    guarded_http(name, config, url, headers, timeout).await?;
                let connect = async {
                    let transport = SseTransport::connect(
                        name,
                        client,
                        parsed,
                        headers,
                        config.max_response_bytes,
                    )
                    .await?;
                    handler().serve(transport).await.map_err(|e| {
                        fail(format!(
                            "the MCP handshake with {url} failed: {}",
                            error_chain(&e)
                        ))
                    })
                };
                let service = tokio::time::timeout(timeout, connect)
                    .await
                    .map_err(|_| timed_out())??;
                Ok(Session {
                    name: name.to_owned(),
                    config: config.clone(),
                    service,
                    child: None,
                })
            }
        }
    }

    /// The server's name in the configuration.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The configuration this session was connected with.
    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// The process id of a stdio server's child, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().and_then(Child::id)
    }

    /// All tools the server offers (following pagination), restricted to the allowlist if
    /// one is configured. The whole listing runs under one timeout.
    pub async fn list_tools(&self) -> Result<Vec<ListedTool>, ClientError> {
        let list = async {
            let mut tools = Vec::new();
            let mut cursor = None;
            for _ in 0..MAX_TOOL_PAGES {
                let page = self
                    .service
                    .peer()
                    .list_tools(Some(PaginatedRequestParams::default().with_cursor(cursor)))
                    .await
                    .map_err(|e| self.service_error("tools/list", e))?;
                tools.extend(page.tools);
                cursor = page.next_cursor;
                if cursor.is_none() {
                    return Ok(tools);
                }
            }
            Err(ClientError::Transport(format!(
                "server `{}`: tools/list did not end after {MAX_TOOL_PAGES} pages",
                self.name
            )))
        };
        let mut tools = tokio::time::timeout(self.config.timeout, list)
            .await
            .map_err(|_| self.timeout_error("tools/list"))??;
        tools.retain(|t| self.config.allows_tool(&t.name));
        Ok(tools.into_iter().map(ListedTool::from_rmcp).collect())
    }

    /// Calls `tool` with `args` under the session's guards. A result with `isError: true` is
    /// returned as a result (not an error): the model should see it.
    pub async fn call_tool(
        &self,
        tool: &str,
        args: Map<String, Value>,
    ) -> Result<ToolResult, ClientError> {
        self.check_allowed(tool)?;
        let operation = format!("tools/call `{tool}`");
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args);
        // On timeout the request future is dropped, and rmcp sends
        // `notifications/cancelled` for the abandoned request.
        let result = tokio::time::timeout(self.config.timeout, self.service.call_tool(params))
            .await
            .map_err(|_| self.timeout_error(&operation))?
            .map_err(|e| self.service_error(&operation, e))?;
        let size = encoded_size(&result);
        if size > self.config.max_response_bytes as u64 {
            return Err(ClientError::ResponseTooLarge {
                server: self.name.clone(),
                operation,
                size: Some(size),
                limit: self.config.max_response_bytes,
            });
        }
        Ok(to_tool_result(result))
    }

    /// Ends the session: closes the connection and, for a stdio server, waits for the child
    /// to exit (killing it after a grace period) and reaps it.
    pub async fn shutdown(mut self) -> Result<(), ClientError> {
        let closed = self.service.close_with_timeout(EXIT_GRACE).await;
        let mut problem = match closed {
            Ok(_) => None,
            Err(e) => Some(format!("closing the session failed: {e}")),
        };
        if let Some(mut child) = self.child.take() {
            let exited = tokio::time::timeout(EXIT_GRACE, child.wait()).await;
            let status = match exited {
                Ok(result) => result.map(drop),
                // Still running after the grace period: kill, then wait (which reaps).
                Err(_) => child.kill().await,
            };
            if let Err(e) = status {
                problem.get_or_insert(format!("waiting for the server process failed: {e}"));
            }
        }
        match problem {
            None => Ok(()),
            Some(message) => Err(ClientError::Transport(format!(
                "server `{}`: {message}",
                self.name
            ))),
        }
    }

    /// Refuses a tool the configuration's `tools` allowlist leaves out.
    pub(crate) fn check_allowed(&self, tool: &str) -> Result<(), ClientError> {
        if self.config.allows_tool(tool) {
            return Ok(());
        }
        Err(ClientError::NotAllowed {
            server: self.name.clone(),
            tool: tool.to_owned(),
        })
    }

    /// The rmcp service of the session.
    pub(crate) fn service(&self) -> &RunningService<RoleClient, Answerer> {
        &self.service
    }

    pub(crate) fn timeout_error(&self, operation: &str) -> ClientError {
        ClientError::Timeout {
            server: self.name.clone(),
            operation: operation.to_owned(),
            timeout_ms: millis(self.config.timeout),
        }
    }

    pub(crate) fn service_error(&self, operation: &str, error: ServiceError) -> ClientError {
        match error {
            ServiceError::McpError(data) => match too_large_size(&data) {
                Some(size) => ClientError::ResponseTooLarge {
                    server: self.name.clone(),
                    operation: operation.to_owned(),
                    size,
                    limit: self.config.max_response_bytes,
                },
                None => ClientError::Rpc {
                    server: self.name.clone(),
                    operation: operation.to_owned(),
                    code: data.code.0,
                    message: data.message.into_owned(),
                },
            },
            ServiceError::Timeout { .. } => self.timeout_error(operation),
            other => ClientError::Transport(format!(
                "server `{}`: {operation}: {}",
                self.name,
                error_chain(&other)
            )),
        }
    }
}

impl McpConnection for Session {
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        args: Map<String, Value>,
    ) -> BoxFuture<'a, Result<ToolResult, CallError>> {
        Box::pin(async move {
            Session::call_tool(self, name, args)
                .await
                .map_err(CallError::from)
        })
    }
}

impl crate::tool::ToolOrigin for Session {
    /// `server/tool` for every tool (the session does not check that the tool exists).
    fn origin(&self, name: &str) -> Option<String> {
        Some(format!("{}/{name}", self.name))
    }
}

/// Kills and reaps a child whose session never started.
async fn reap(child: &mut Child) {
    if let Err(e) = child.kill().await {
        tracing::warn!("killing a server process failed: {e}");
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// What an HTTP or SSE entry connects with: its URL (refused when it points at an internal
/// address the entry does not allow), the guarded HTTP client, and its headers.
async fn guarded_http(
    name: &str,
    config: &ServerConfig,
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
    timeout: Duration,
) -> Result<(url::Url, reqwest::Client, http::HeaderMap), ClientError> {
    let parsed = parse_url(name, url)?;
    if !config.allow_private {
        ssrf::check_url(name, &parsed).await?;
    }
    let client = ssrf::http_client(name, config.allow_private, timeout)?;
    Ok((parsed, client, header_map(name, headers)?))
}

fn parse_url(server: &str, url: &str) -> Result<url::Url, ClientError> {
    let parsed = url::Url::parse(url).map_err(|e| ClientError::Connect {
        server: server.to_owned(),
        message: format!("`{url}` is not a valid URL: {e}"),
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(ClientError::Connect {
            server: server.to_owned(),
            message: format!("`{url}`: only http and https URLs are supported"),
        });
    }
    Ok(parsed)
}

fn header_map(
    server: &str,
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<http::HeaderMap, ClientError> {
    let mut map = http::HeaderMap::new();
    for (k, v) in headers {
        let bad = |what: &str| ClientError::Connect {
            server: server.to_owned(),
            message: format!("header `{k}`: invalid {what}"),
        };
        let name = http::HeaderName::from_bytes(k.as_bytes()).map_err(|_| bad("name"))?;
        let value = http::HeaderValue::from_str(v).map_err(|_| bad("value"))?;
        map.insert(name, value);
    }
    Ok(map)
}

/// The size of `value` encoded as JSON, without building the encoding.
fn encoded_size(value: &impl serde::Serialize) -> u64 {
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 = self.0.saturating_add(buf.len() as u64);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => u64::MAX,
    }
}

/// A content kind newer than this code: kept as its JSON, as text.
fn unknown_block(block: &impl serde::Serialize) -> Content {
    Content::Text(serde_json::to_string(block).unwrap_or_default())
}

/// rmcp's result as ours. Content kinds our [`Content`] has no variant for are kept
/// without loss of data: audio and text resources become base64 [`Content::Resource`]
/// blocks, resource links become a text block naming the link.
pub(crate) fn to_tool_result(result: CallToolResult) -> ToolResult {
    use base64::Engine;
    use rmcp::model::ResourceContents;
    let b64 = base64::engine::general_purpose::STANDARD;
    let content = result
        .content
        .into_iter()
        .map(|block| match block {
            ContentBlock::Text(t) => Content::Text(t.text),
            ContentBlock::Image(i) => Content::Image {
                data: i.data,
                mime_type: i.mime_type,
            },
            ContentBlock::Audio(a) => Content::Resource {
                uri: "mcpgen://content/audio".to_owned(),
                mime_type: a.mime_type,
                blob: a.data,
            },
            ContentBlock::Resource(r) => match r.resource {
                ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob,
                    ..
                } => Content::Resource {
                    uri,
                    mime_type: mime_type.unwrap_or_else(|| "application/octet-stream".to_owned()),
                    blob,
                },
                ResourceContents::TextResourceContents {
                    uri,
                    mime_type,
                    text,
                    ..
                } => Content::Resource {
                    uri,
                    mime_type: mime_type.unwrap_or_else(|| "text/plain".to_owned()),
                    blob: b64.encode(text.as_bytes()),
                },
                other => unknown_block(&other),
            },
            ContentBlock::ResourceLink(link) => {
                let mime = link
                    .mime_type
                    .as_deref()
                    .map(|m| format!(" ({m})"))
                    .unwrap_or_default();
                Content::Text(format!("resource link: {} <{}>{mime}", link.name, link.uri))
            }
            other => unknown_block(&other),
        })
        .collect();
    ToolResult {
        content,
        structured_content: result.structured_content,
        is_error: result.is_error == Some(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_content_kind_is_kept() {
        let wire = json!({
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": "iVBORw0=", "mimeType": "image/png"},
                {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
                {"type": "resource", "resource": {"uri": "file:///a.pdf", "mimeType": "application/pdf", "blob": "JVBERi0="}},
                {"type": "resource", "resource": {"uri": "file:///b.txt", "text": "hi"}},
                {"type": "resource_link", "uri": "file:///c.md", "name": "c.md", "mimeType": "text/markdown"}
            ],
            "structuredContent": {"n": 1},
            "isError": true
        });
        let result: CallToolResult = serde_json::from_value(wire).unwrap_or_else(|e| panic!("{e}"));
        let ours = to_tool_result(result);
        assert!(ours.is_error);
        assert_eq!(ours.structured_content, Some(json!({"n": 1})));
        assert_eq!(
            ours.content,
            vec![
                Content::Text("hello".into()),
                Content::Image {
                    data: "iVBORw0=".into(),
                    mime_type: "image/png".into()
                },
                Content::Resource {
                    uri: "mcpgen://content/audio".into(),
                    mime_type: "audio/wav".into(),
                    blob: "UklGRg==".into()
                },
                Content::Resource {
                    uri: "file:///a.pdf".into(),
                    mime_type: "application/pdf".into(),
                    blob: "JVBERi0=".into()
                },
                Content::Resource {
                    uri: "file:///b.txt".into(),
                    mime_type: "text/plain".into(),
                    blob: "aGk=".into()
                },
                Content::Text("resource link: c.md <file:///c.md> (text/markdown)".into()),
            ]
        );
    }

    #[test]
    fn absent_is_error_means_success() {
        let result: CallToolResult =
            serde_json::from_value(json!({"content": []})).unwrap_or_else(|e| panic!("{e}"));
        let ours = to_tool_result(result);
        assert!(!ours.is_error && ours.content.is_empty() && ours.structured_content.is_none());
    }
}
