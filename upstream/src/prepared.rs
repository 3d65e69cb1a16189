//! A request built for a tool call and not sent, for previews, dry runs and tests.

use serde_json::{Map, Value};

use mcpgen_core::tool::ToolDef;

use crate::Upstream;

/// A request built for a tool call but not sent: exactly what [`Upstream::invoke`] would put on
/// the wire (apart from the random multipart boundary). For previews, dry runs and tests.
///
/// Its `Debug` output shows no header values, query or body, which may hold credentials or
/// user data.
#[derive(Clone, PartialEq, Eq)]
pub struct PreparedRequest {
    /// The upper-case HTTP method.
    pub method: String,
    /// The full URL: base URL, rendered path and query.
    pub url: String,
    /// Headers from arguments and credentials, in order (not `Content-Type`).
    pub headers: Vec<(String, String)>,
    /// The body's `Content-Type`, if a body is sent.
    pub content_type: Option<String>,
    /// The body's bytes, if a body is sent.
    pub body: Option<Vec<u8>>,
}

impl std::fmt::Debug for PreparedRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = url::Url::parse(&self.url).map_or_else(|_| String::new(), |u| u.path().into());
        let headers: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("PreparedRequest")
            .field("method", &self.method)
            .field("path", &path)
            .field("headers", &headers)
            .field("content_type", &self.content_type)
            .field("body_len", &self.body.as_ref().map(Vec::len))
            .finish_non_exhaustive()
    }
}

impl Upstream {
    /// Builds the request [`invoke`](Self::invoke) would send for `tool` with `args`, without
    /// sending it. Fails, with the message `invoke` would give, when the tool has no HTTP
    /// binding or the arguments cannot be placed on the wire.
    pub fn prepare(
        &self,
        tool: &ToolDef,
        args: &Map<String, Value>,
    ) -> Result<PreparedRequest, String> {
        let prepared = self.build_request(tool, args, None, None)?.prepared;
        let (content_type, body) = match prepared.body {
            Some(body) => (Some(body.content_type), Some(body.bytes)),
            None => (None, None),
        };
        Ok(PreparedRequest {
            method: prepared.method.as_str().to_owned(),
            url: prepared.url.into(),
            headers: prepared
                .headers
                .iter()
                .map(|(name, value)| {
                    let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
                    (name.as_str().to_owned(), value)
                })
                .collect(),
            content_type,
            body,
        })
    }
}
