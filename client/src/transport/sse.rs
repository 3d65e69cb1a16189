//! The legacy HTTP+SSE client transport (MCP 2024-11-05), which rmcp does not provide.
//!
//! `GET` the SSE URL; the first `endpoint` event names the URL to `POST` messages to (it must
//! be on the same origin); every response arrives as a `message` event on the stream. Each
//! event's data is capped at `max_response_bytes` (see [`super::frame`]).
//!
//! Lines end with LF or CRLF (a lone CR as line end is not supported).
//!
//! # Why the parser is our own
//!
//! The event-stream parsers maintained for Rust (`sse-stream`, which the runtime writes its
//! events with, and `eventsource-stream`, which `reqwest-eventsource` builds on) keep the
//! current line and the event's data in memory until the blank line that ends the event,
//! without a limit, and neither offers one. A server that sends one endless event would fill
//! memory before a wrapper around them saw anything. To bound it, a wrapper would have to
//! find line and event ends in the bytes before handing them on, which is the parsing below.
//! `sse-stream` also answers lines the specification accepts (a `data` line without a colon,
//! a field it does not know, a second `event:` line in one event) with an error, and drops
//! the rest of the bytes that came with them. [`SseParser`] stays: it keeps at most `max_response_bytes`
//! of an event's data and [`MAX_FIELD_LINE`] of any other line, counts an oversized event
//! and scans it for its id (see [`super::frame`]), and goes on with the next event.

use std::sync::Arc;

use futures::StreamExt;
use http::HeaderMap;
use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::frame::{Capped, Frame, too_large};
use crate::error::ClientError;
use crate::error_chain;

/// Longest non-data line kept (event names, ids, comments).
const MAX_FIELD_LINE: usize = 8 * 1024;

/// Messages that may wait between the stream reader and the session.
const CHANNEL_CAPACITY: usize = 64;

/// One dispatched event.
#[derive(Debug, PartialEq)]
pub(crate) struct Event {
    pub(crate) name: String,
    pub(crate) data: Frame,
}

/// What the current line is, as far as it has been read.
#[derive(Debug, PartialEq)]
enum Line {
    /// Field name not yet complete; bytes are in `field`.
    Start,
    /// A `data:` line; value bytes go to the event's data.
    Data { skip_space: bool },
    /// Another field, kept in `field` up to [`MAX_FIELD_LINE`].
    Other,
    /// A line too long to keep; dropped.
    Skip,
}

/// An incremental `text/event-stream` parser with a capped data buffer.
#[derive(Debug)]
pub(crate) struct SseParser {
    line: Line,
    field: Vec<u8>,
    name: String,
    data: Capped,
    data_lines: usize,
}

impl SseParser {
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            line: Line::Start,
            field: Vec::new(),
            name: String::new(),
            data: Capped::new(limit),
            data_lines: 0,
        }
    }

    /// Feeds the next bytes of the stream; returns the events they complete.
    pub(crate) fn feed(&mut self, mut bytes: &[u8]) -> Vec<Event> {
        let mut events = Vec::new();
        while !bytes.is_empty() {
            let (segment, ends_line) = match bytes.iter().position(|b| *b == b'\n') {
                Some(i) => (&bytes[..i], true),
                None => (bytes, false),
            };
            self.segment(segment);
            bytes = &bytes[segment.len() + usize::from(ends_line)..];
            if ends_line && let Some(event) = self.end_line() {
                events.push(event);
            }
        }
        events
    }

    fn segment(&mut self, mut bytes: &[u8]) {
        loop {
            match &mut self.line {
                Line::Start => {
                    if let Some(colon) = bytes.iter().position(|b| *b == b':') {
                        self.field.extend_from_slice(&bytes[..colon]);
                        if self.field == b"data" {
                            self.field.clear();
                            if self.data_lines > 0 {
                                self.data.push(b"\n");
                            }
                            self.data_lines += 1;
                            self.line = Line::Data { skip_space: true };
                            bytes = &bytes[colon + 1..];
                            continue;
                        }
                        self.field.push(b':');
                        bytes = &bytes[colon + 1..];
                        self.line = Line::Other;
                        continue;
                    }
                    self.field.extend_from_slice(bytes);
                    if self.field.len() > MAX_FIELD_LINE {
                        self.field.clear();
                        self.line = Line::Skip;
                    }
                    return;
                }
                Line::Data { skip_space } => {
                    if *skip_space && !bytes.is_empty() {
                        *skip_space = false;
                        if bytes[0] == b' ' {
                            bytes = &bytes[1..];
                        }
                    }
                    self.data.push(bytes);
                    return;
                }
                Line::Other => {
                    self.field.extend_from_slice(bytes);
                    if self.field.len() > MAX_FIELD_LINE {
                        self.field.clear();
                        self.line = Line::Skip;
                    }
                    return;
                }
                Line::Skip => return,
            }
        }
    }

    fn end_line(&mut self) -> Option<Event> {
        let line = std::mem::replace(&mut self.line, Line::Start);
        let mut field = std::mem::take(&mut self.field);
        if field.last() == Some(&b'\r') {
            field.pop();
        }
        match line {
            Line::Start if field.is_empty() => return self.dispatch(),
            Line::Start if field == b"data" => {
                if self.data_lines > 0 {
                    self.data.push(b"\n");
                }
                self.data_lines += 1;
            }
            Line::Other => {
                if let Some(value) = field.strip_prefix(b"event:") {
                    let value = value.strip_prefix(b" ").unwrap_or(value);
                    self.name = String::from_utf8_lossy(value).into_owned();
                }
                // `id:`, `retry:` and `:comment` lines need no action here.
            }
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<Event> {
        let name = std::mem::take(&mut self.name);
        if self.data_lines == 0 {
            self.data.finish();
            return None;
        }
        self.data_lines = 0;
        Some(Event {
            name: if name.is_empty() {
                "message".to_owned()
            } else {
                name
            },
            data: self.data.finish(),
        })
    }
}

/// The transport: a reader task forwarding stream messages, and POSTs for sending.
pub(crate) struct SseTransport {
    rx: mpsc::Receiver<ServerJsonRpcMessage>,
    client: reqwest::Client,
    endpoint: Arc<url::Url>,
    headers: HeaderMap,
    reader: JoinHandle<()>,
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl SseTransport {
    /// Opens the stream at `url` and waits for its `endpoint` event.
    pub(crate) async fn connect(
        server: &str,
        client: reqwest::Client,
        url: url::Url,
        headers: HeaderMap,
        limit: usize,
    ) -> Result<Self, ClientError> {
        let fail = |message: String| ClientError::Connect {
            server: server.to_owned(),
            message,
        };
        let response = client
            .get(url.clone())
            .headers(headers.clone())
            .header(http::header::ACCEPT, "text/event-stream")
            .send()
            .await
            .map_err(|e| fail(format!("GET {url}: {}", error_chain(&e))))?;
        let status = response.status();
        if !status.is_success() {
            return Err(fail(format!("GET {url} answered HTTP {status}")));
        }
        let is_sse = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !is_sse {
            return Err(fail(format!(
                "GET {url} did not answer with text/event-stream; is this a legacy SSE endpoint?"
            )));
        }
        let mut stream = response.bytes_stream();
        let mut parser = SseParser::new(limit);
        let mut pending = Vec::new();
        let endpoint = 'found: loop {
            let Some(chunk) = stream.next().await else {
                return Err(fail(format!(
                    "the stream at {url} ended before its `endpoint` event"
                )));
            };
            let chunk = chunk.map_err(|e| fail(format!("reading {url}: {}", error_chain(&e))))?;
            let mut events = parser.feed(&chunk).into_iter();
            while let Some(event) = events.next() {
                if event.name == "endpoint" {
                    let Frame::Complete(data) = event.data else {
                        return Err(fail("the `endpoint` event is too large".into()));
                    };
                    let text = String::from_utf8_lossy(&data);
                    let endpoint = url.join(text.trim()).map_err(|e| {
                        fail(format!("the `endpoint` event `{text}` is not a URL: {e}"))
                    })?;
                    if endpoint.origin() != url.origin() {
                        return Err(fail(format!(
                            "the `endpoint` event names {endpoint}, not on the origin of {url}; refused"
                        )));
                    }
                    pending.extend(events);
                    break 'found endpoint;
                }
            }
        };
        let (tx, rx) = mpsc::channel(CHANNEL_CAPACITY);
        let server: Arc<str> = server.into();
        let reader = tokio::spawn(async move {
            for event in pending {
                if !forward(&server, event, limit, &tx).await {
                    return;
                }
            }
            while let Some(chunk) = stream.next().await {
                let chunk = match chunk {
                    Ok(chunk) => chunk,
                    Err(e) => {
                        tracing::warn!(server = %server, "the SSE stream failed: {}", error_chain(&e));
                        return;
                    }
                };
                for event in parser.feed(&chunk) {
                    if !forward(&server, event, limit, &tx).await {
                        return;
                    }
                }
            }
            tracing::debug!(server = %server, "the SSE stream ended");
        });
        Ok(Self {
            rx,
            client,
            endpoint: Arc::new(endpoint),
            headers,
            reader,
        })
    }
}

/// Sends a `message` event's JSON-RPC message on; false once the session is gone.
async fn forward(
    server: &str,
    event: Event,
    limit: usize,
    tx: &mpsc::Sender<ServerJsonRpcMessage>,
) -> bool {
    if event.name != "message" {
        tracing::debug!(server, event = %event.name, "ignoring an SSE event");
        return true;
    }
    let message = match event.data {
        Frame::Complete(data) => match serde_json::from_slice::<ServerJsonRpcMessage>(&data) {
            Ok(message) => message,
            Err(e) => {
                tracing::warn!(server, "ignoring an SSE message that is not JSON-RPC: {e}");
                return true;
            }
        },
        Frame::Oversized { size, id: Some(id) } => too_large(id, size, limit),
        Frame::Oversized { size, id: None } => {
            tracing::warn!(
                server,
                "dropped a {size}-byte message without an id over max_response_bytes ({limit})"
            );
            return true;
        }
    };
    tx.send(message).await.is_ok()
}

impl Transport<RoleClient> for SseTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let client = self.client.clone();
        let endpoint = self.endpoint.clone();
        let headers = self.headers.clone();
        async move {
            let body = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            let response = client
                .post(endpoint.as_str())
                .headers(headers)
                .header(http::header::CONTENT_TYPE, "application/json")
                .body(body)
                .send()
                .await
                .map_err(|e| {
                    std::io::Error::other(format!("POST {endpoint}: {}", error_chain(&e)))
                })?;
            let status = response.status();
            if status.is_success() {
                Ok(())
            } else {
                Err(std::io::Error::other(format!(
                    "POST {endpoint} answered HTTP {status}"
                )))
            }
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        self.rx.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.reader.abort();
        self.rx.close();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(stream: &str, piece: usize, limit: usize) -> Vec<Event> {
        let mut parser = SseParser::new(limit);
        let mut out = Vec::new();
        for chunk in stream.as_bytes().chunks(piece) {
            out.extend(parser.feed(chunk));
        }
        out
    }

    #[test]
    fn parses_events_in_any_chunking() {
        let stream = ": keep-alive\n\nevent: endpoint\ndata: /message?sessionId=1\n\n\
                      event: message\r\ndata: {\"a\":\r\ndata:1}\r\n\r\nid: 5\ndata\n\n";
        for piece in [1, 2, 7, 1000] {
            let got = events(stream, piece, 1000);
            assert_eq!(
                got,
                vec![
                    Event {
                        name: "endpoint".into(),
                        data: Frame::Complete(b"/message?sessionId=1".to_vec())
                    },
                    Event {
                        name: "message".into(),
                        data: Frame::Complete(b"{\"a\":\r\n1}\r".to_vec())
                    },
                    Event {
                        name: "message".into(),
                        data: Frame::Complete(Vec::new())
                    },
                ],
                "piece {piece}"
            );
        }
    }

    #[test]
    fn oversized_data_is_counted_not_kept() {
        let big = format!(
            "event: message\ndata: {{\"result\":\"{}\",\"id\":9}}\n\ndata: {{}}\n\n",
            "x".repeat(5000)
        );
        for piece in [3, 100, 100_000] {
            let got = events(&big, piece, 100);
            assert_eq!(got.len(), 2);
            assert!(
                matches!(got[0].data, Frame::Oversized { size, id: Some(rmcp::model::NumberOrString::Number(9)) } if size > 5000),
                "{:?}",
                got[0].data
            );
            assert_eq!(got[1].data, Frame::Complete(b"{}".to_vec()));
        }
    }
}
