//! The bounded look at a refused request's body: at most [`PREFIX_BYTES`] of it, read before
//! the body read deadline, and the `tools/call` requests that prefix holds. A refused request
//! never has its whole body read: a client without a credential cannot make the server hold
//! more than the prefix, nor hold its connection past the deadline.

use std::time::Instant;

use axum::body::Body;
use futures::StreamExt;
use serde_json::{Map, Value};

use mcpgen_contract::trace::{TRACEPARENT, TraceParent};

/// The most of a refused request's body that is read.
pub(crate) const PREFIX_BYTES: usize = 64 * 1024;

/// The start of a body, as far as it was read.
pub(crate) struct Prefix {
    pub(crate) bytes: Vec<u8>,
    /// Whether the body ended within the prefix (so the connection can serve more requests).
    pub(crate) complete: bool,
}

/// Reads `body` up to `limit` bytes, until `deadline` at the latest.
pub(crate) async fn read_prefix(body: Body, limit: usize, deadline: Instant) -> Prefix {
    let mut bytes = Vec::new();
    if http_body_is_empty(&body) {
        return Prefix {
            bytes,
            complete: true,
        };
    }
    let mut stream = body.into_data_stream();
    let deadline = tokio::time::Instant::from_std(deadline);
    loop {
        let complete = match tokio::time::timeout_at(deadline, stream.next()).await {
            Ok(None) => true,
            Ok(Some(Ok(chunk))) if bytes.len() + chunk.len() <= limit => {
                bytes.extend_from_slice(&chunk);
                continue;
            }
            Ok(Some(Ok(chunk))) => {
                let room = limit.saturating_sub(bytes.len());
                bytes.extend_from_slice(&chunk[..room.min(chunk.len())]);
                false
            }
            Ok(Some(Err(_))) | Err(_) => false,
        };
        return Prefix { bytes, complete };
    }
}

fn http_body_is_empty(body: &Body) -> bool {
    use hyper::body::Body as _;
    body.is_end_stream() || body.size_hint().exact() == Some(0)
}

/// A `tools/call` found in a refused request's body.
pub(crate) struct RefusedCall {
    pub(crate) id: Option<String>,
    pub(crate) tool: String,
    pub(crate) args: Map<String, Value>,
    pub(crate) trace: Option<TraceParent>,
}

/// The `tools/call` requests of a prefix.
pub(crate) struct Calls {
    /// The first call, when the prefix holds it whole.
    pub(crate) first: Option<RefusedCall>,
    /// How many calls the prefix holds (whole, or, for a single message cut short, one that
    /// names `tools/call`).
    pub(crate) count: usize,
    /// Whether the message is a batch.
    pub(crate) batch: bool,
    /// Whether `count` is all of them (the body ended within the prefix).
    pub(crate) all: bool,
}

/// The `tools/call` requests of a JSON-RPC body's `prefix` (one message or a batch).
pub(crate) fn tool_calls(prefix: &Prefix) -> Calls {
    let text = prefix.bytes.trim_ascii_start();
    let mut calls = Calls {
        first: None,
        count: 0,
        batch: text.first() == Some(&b'['),
        all: prefix.complete,
    };
    if calls.batch {
        for_each_element(&text[1..], |message| calls.add(message));
        return calls;
    }
    match serde_json::from_slice::<Value>(text) {
        Ok(message) => calls.add(message),
        // Cut short: it tells it is a call, not which.
        Err(_) if !prefix.complete && contains(text, br#""tools/call""#) => calls.count = 1,
        Err(_) => {}
    }
    calls
}

impl Calls {
    fn add(&mut self, message: Value) {
        if let Some(call) = refused_call(message) {
            self.count += 1;
            if self.first.is_none() {
                self.first = Some(call);
            }
        }
    }
}

/// Calls `each` with every whole element of a JSON array whose opening `[` is cut off, up to
/// its end or the first element that does not parse (a prefix cut short in it).
fn for_each_element(mut rest: &[u8], mut each: impl FnMut(Value)) {
    loop {
        rest = rest.trim_ascii_start();
        if rest.is_empty() || rest[0] == b']' {
            return;
        }
        let mut values = serde_json::Deserializer::from_slice(rest).into_iter::<Value>();
        let Some(Ok(value)) = values.next() else {
            return;
        };
        let end = values.byte_offset();
        each(value);
        rest = rest[end..].trim_ascii_start();
        match rest.first() {
            Some(b',') => rest = &rest[1..],
            _ => return,
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn refused_call(mut message: Value) -> Option<RefusedCall> {
    if message.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    let id = message.get("id").and_then(|id| match id {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    });
    let params = message.get_mut("params")?.as_object_mut()?;
    let tool = params.get("name")?.as_str()?.to_owned();
    let trace = params
        .get("_meta")
        .and_then(|meta| meta.get(TRACEPARENT))
        .and_then(Value::as_str)
        .and_then(TraceParent::parse);
    let args = match params.remove("arguments") {
        Some(Value::Object(args)) => args,
        _ => Map::new(),
    };
    Some(RefusedCall {
        id,
        tool,
        args,
        trace,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: usize) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t{id}","arguments":{{}}}}}}"#
        )
    }

    fn prefix(text: &str, complete: bool) -> Prefix {
        Prefix {
            bytes: text.as_bytes().to_vec(),
            complete,
        }
    }

    #[test]
    fn a_whole_batch_is_counted() {
        let batch = format!(
            "[ {}, {} ,{}, {{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\"}} ]",
            call(1),
            call(2),
            call(3)
        );
        let calls = tool_calls(&prefix(&batch, true));
        assert_eq!((calls.count, calls.batch, calls.all), (3, true, true));
        assert_eq!(calls.first.map(|c| c.tool).as_deref(), Some("t1"));
    }

    #[test]
    fn a_batch_cut_short_counts_its_whole_elements() {
        let batch = format!("[{},{},{}", call(1), call(2), call(3));
        let cut = &batch[..batch.len() - 5];
        let calls = tool_calls(&prefix(cut, false));
        assert_eq!((calls.count, calls.batch, calls.all), (2, true, false));
    }

    #[test]
    fn a_single_call_cut_short_is_a_call_of_an_unknown_tool() {
        let one = call(1);
        let calls = tool_calls(&prefix(&one[..one.len() - 3], false));
        assert_eq!(calls.count, 1);
        assert!(calls.first.is_none());
        let calls = tool_calls(&prefix(r#"{"jsonrpc":"2.0","method":"tools/li"#, false));
        assert_eq!(calls.count, 0);
    }
}
