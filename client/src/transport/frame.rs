//! Size-capped framing for the transports we read ourselves (stdio lines, SSE events).
//!
//! A message is accumulated only up to the cap. Past it, the bytes are no longer kept: they
//! are counted and scanned for the message's top-level `"id"`, so that the request waiting
//! for it fails at once with "response too large" (instead of waiting for its timeout) while
//! memory stays bounded by the cap.

use rmcp::model::{ErrorCode, ErrorData, RequestId, ServerJsonRpcMessage};
use serde_json::Value;

/// JSON-RPC error code of the error we substitute for an oversized response.
pub(crate) const TOO_LARGE_CODE: i32 = -32_099;

/// Marker in the substituted error's `data`, so the session can tell it from a server's error.
pub(crate) const TOO_LARGE_MARKER: &str = "mcpgen.response_too_large";

/// One complete message, or the fact that it was too large.
#[derive(Debug, PartialEq)]
pub(crate) enum Frame {
    /// The message's bytes.
    Complete(Vec<u8>),
    /// The message had `size` bytes, over the cap; `id` is its JSON-RPC id if one was seen.
    Oversized { size: u64, id: Option<RequestId> },
}

/// Accumulates one message up to `limit` bytes.
#[derive(Debug)]
pub(crate) struct Capped {
    limit: usize,
    buf: Vec<u8>,
    size: u64,
    scanner: Option<IdScanner>,
}

impl Capped {
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            limit,
            buf: Vec::new(),
            size: 0,
            scanner: None,
        }
    }

    /// Appends the next bytes of the current message.
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        self.size = self.size.saturating_add(bytes.len() as u64);
        if let Some(scanner) = &mut self.scanner {
            scanner.feed(bytes);
        } else if self.buf.len().saturating_add(bytes.len()) > self.limit {
            let mut scanner = IdScanner::default();
            scanner.feed(&self.buf);
            scanner.feed(bytes);
            self.buf = Vec::new();
            self.scanner = Some(scanner);
        } else {
            self.buf.extend_from_slice(bytes);
        }
    }

    /// Ends the current message and starts the next.
    pub(crate) fn finish(&mut self) -> Frame {
        let size = std::mem::take(&mut self.size);
        match self.scanner.take() {
            Some(scanner) => Frame::Oversized {
                size,
                id: scanner.id(),
            },
            None => Frame::Complete(std::mem::take(&mut self.buf)),
        }
    }
}

/// The error message delivered in place of an oversized response to request `id`.
pub(crate) fn too_large(id: RequestId, size: u64, limit: usize) -> ServerJsonRpcMessage {
    let data = serde_json::json!({ "kind": TOO_LARGE_MARKER, "size": size, "limit": limit });
    ServerJsonRpcMessage::error(
        ErrorData::new(
            ErrorCode(TOO_LARGE_CODE),
            format!("response of {size} bytes exceeds max_response_bytes ({limit})"),
            Some(data),
        ),
        Some(id),
    )
}

/// If `error` is our substituted "too large" error: the size it reported.
pub(crate) fn too_large_size(error: &ErrorData) -> Option<Option<u64>> {
    let data = error.data.as_ref()?;
    if error.code.0 == TOO_LARGE_CODE && data.get("kind") == Some(&Value::from(TOO_LARGE_MARKER)) {
        Some(data.get("size").and_then(Value::as_u64))
    } else {
        None
    }
}

/// Finds the value of the top-level `"id"` member of a JSON object fed to it in pieces,
/// keeping only a few bytes of state.
#[derive(Debug, Default)]
pub(crate) struct IdScanner {
    depth: u32,
    in_string: bool,
    escaped: bool,
    expect_key: bool,
    in_key: bool,
    key: Vec<u8>,
    key_too_long: bool,
    after_id_key: bool,
    capturing: bool,
    value: Vec<u8>,
    found: Option<Vec<u8>>,
}

/// Longest id value kept.
const MAX_ID_BYTES: usize = 256;

impl IdScanner {
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.step(b);
        }
    }

    fn step(&mut self, b: u8) {
        if self.capturing {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                self.keep(b);
                return;
            }
            match b {
                b'"' => {
                    self.in_string = true;
                    self.keep(b);
                    return;
                }
                b',' | b'}' => {
                    self.capturing = false;
                    if self.found.is_none() {
                        self.found = Some(std::mem::take(&mut self.value));
                    }
                }
                b'{' | b'[' => {
                    // An object or array is not an id.
                    self.capturing = false;
                    self.value.clear();
                }
                _ => {
                    self.keep(b);
                    return;
                }
            }
        }
        if self.in_string {
            if self.escaped {
                self.escaped = false;
                self.key_byte(b);
            } else if b == b'\\' {
                self.escaped = true;
                self.key_byte(b);
            } else if b == b'"' {
                self.in_string = false;
                if self.in_key {
                    self.in_key = false;
                    self.after_id_key = !self.key_too_long && self.key == b"id";
                }
            } else {
                self.key_byte(b);
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expect_key {
                    self.in_key = true;
                    self.expect_key = false;
                    self.key.clear();
                    self.key_too_long = false;
                }
            }
            b'{' => {
                self.depth += 1;
                if self.depth == 1 {
                    self.expect_key = true;
                }
            }
            b'[' => self.depth += 1,
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            b',' if self.depth == 1 => self.expect_key = true,
            b':' if self.depth == 1 && self.after_id_key => {
                self.after_id_key = false;
                self.capturing = self.found.is_none();
                self.value.clear();
            }
            _ => {}
        }
    }

    fn keep(&mut self, b: u8) {
        if self.value.len() < MAX_ID_BYTES {
            self.value.push(b);
        }
    }

    fn key_byte(&mut self, b: u8) {
        if self.in_key {
            if self.key.len() < 2 {
                self.key.push(b);
            } else {
                self.key_too_long = true;
            }
        }
    }

    /// The id, if a whole number or string id was seen.
    pub(crate) fn id(&self) -> Option<RequestId> {
        let raw = self.found.as_ref()?;
        serde_json::from_slice(raw.trim_ascii()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str, piece: usize) -> Option<RequestId> {
        let mut s = IdScanner::default();
        for chunk in text.as_bytes().chunks(piece.max(1)) {
            s.feed(chunk);
        }
        s.id()
    }

    #[test]
    fn finds_the_top_level_id_wherever_it_is() {
        let num = Some(RequestId::Number(42));
        for piece in [1, 3, 1000] {
            assert_eq!(scan(r#"{"jsonrpc":"2.0","id":42,"result":{}}"#, piece), num);
            assert_eq!(
                scan(
                    r#"{"result":{"id":7,"content":[{"id":8,"text":"\"id\":9"}]},"jsonrpc":"2.0", "id" : 42 }"#,
                    piece
                ),
                num
            );
            assert_eq!(
                scan(r#"{"result":{},"id":"a\"b"}"#, piece),
                Some(RequestId::String("a\"b".into()))
            );
            assert_eq!(scan(r#"{"idx":1,"xid":2,"method":"x"}"#, piece), None);
            assert_eq!(scan(r#"{"id":{"x":1}}"#, piece), None);
        }
    }

    #[test]
    fn capped_keeps_small_messages_and_counts_large_ones() {
        let mut c = Capped::new(16);
        c.push(b"{\"id\":1,");
        c.push(b"\"a\":2}");
        assert_eq!(c.finish(), Frame::Complete(b"{\"id\":1,\"a\":2}".to_vec()));
        c.push(b"{\"result\":\"");
        c.push(&[b'x'; 100]);
        c.push(b"\",\"id\":5}");
        assert_eq!(
            c.finish(),
            Frame::Oversized {
                size: 120,
                id: Some(RequestId::Number(5))
            }
        );
        c.push(b"{}");
        assert_eq!(c.finish(), Frame::Complete(b"{}".to_vec()));
    }

    #[test]
    fn substituted_error_is_recognised() {
        let msg = too_large(RequestId::Number(3), 2000, 1000);
        let value = serde_json::to_value(&msg).unwrap_or_default();
        assert_eq!(value["id"], 3);
        let rmcp::model::JsonRpcMessage::Error(err) = msg else {
            panic!("not an error: {value}");
        };
        assert_eq!(too_large_size(&err.error), Some(Some(2000)));
        assert_eq!(
            too_large_size(&ErrorData::new(ErrorCode(-32000), "x", None)),
            None
        );
    }
}
