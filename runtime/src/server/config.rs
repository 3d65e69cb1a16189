//! The server-wide settings a [`ServerBuilder`](super::ServerBuilder) takes: their defaults,
//! the modes of output checking, confirmation and `tools/list`, and which headers may be
//! forwarded upstream.

use std::time::Duration;

#[cfg(feature = "http")]
use ::http::HeaderName;

#[cfg(feature = "http")]
use super::error::ConfigProblem;

/// Default limit on a request body: 4 MiB.
#[cfg(feature = "http")]
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// Default time a client may take to send a request body after its headers: 30 seconds.
#[cfg(feature = "http")]
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// Default time a client may take to send a request's headers: 30 seconds.
#[cfg(feature = "http")]
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// Default number of connections served at once: 512. Within the 1,024 open files a process
/// gets by default, with room for its upstream connections; a refused request holds at most
/// 64 KiB of its body, so 512 clients without a credential hold about 32 MiB.
#[cfg(feature = "http")]
pub const DEFAULT_MAX_CONNECTIONS: usize = 512;

/// Default number of Streamable HTTP sessions a catalog holds: 10,000.
#[cfg(feature = "http")]
pub const DEFAULT_SESSIONS_MAX: usize = 10_000;

/// Default number of Streamable HTTP sessions one principal holds in a catalog: 1,000.
#[cfg(feature = "http")]
pub const DEFAULT_SESSIONS_MAX_PER_PRINCIPAL: usize = 1_000;

#[cfg(feature = "http")]
pub(crate) use mcpgen_policy::sessions::SessionLimits;

/// The edge settings of a server: its listener's header read timeout and connection cap, and
/// each catalog's session caps.
#[cfg(feature = "http")]
#[derive(Debug, Clone, Copy)]
pub(crate) struct EdgeLimits {
    pub(crate) header_read_timeout: Duration,
    pub(crate) max_connections: usize,
    pub(crate) sessions: SessionLimits,
}

#[cfg(feature = "http")]
impl Default for EdgeLimits {
    fn default() -> Self {
        Self {
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            sessions: SessionLimits {
                max: DEFAULT_SESSIONS_MAX,
                per_principal: DEFAULT_SESSIONS_MAX_PER_PRINCIPAL,
            },
        }
    }
}

/// Default time shutdown waits for calls in progress.
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(30);

/// How tool results are checked against the tool's output schema.
///
/// Only successful results with structured content are checked; a tool without an output
/// schema is never checked. Official MCP clients reject structured content that does not match
/// the advertised `outputSchema`, so apart from `off` the server never sends such content.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum OutputCheck {
    /// Results are checked against the schema the API's document states (the tool's
    /// `documented_output_schema`, else its `outputSchema`); any mismatch, a left-out required
    /// field included, is an error result (`isError: true`) naming the failing location.
    Strict,
    /// Results are checked against the advertised `outputSchema`, which generated tools relax
    /// to tolerate fields left out, added or `null`: such results reach the client as they
    /// are. A result that still does not fit is logged and becomes an error result whose text
    /// names the mismatch and carries the data as received, so the model still sees it.
    #[default]
    #[cfg_attr(feature = "cli", value(alias = "warn"))]
    Tolerant,
    /// Results are not checked (for upstreams known to match their document): a mismatching
    /// result reaches the client, which may reject it.
    Off,
}

/// What happens to a call of a tool that needs the person's confirmation
/// ([`ToolDef::confirm`](crate::ToolDef::confirm)) when its client cannot ask: it declared no
/// elicitation capability, or the call did not come from an MCP client.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Unconfirmable {
    /// The call is not made: an error result (`isError`) says it needs a client that can ask
    /// for confirmation, and the audit status is `not_confirmed`.
    #[default]
    Refuse,
    /// The call proceeds without confirmation (a warning is logged).
    Proceed,
}

#[cfg(feature = "search")]
/// What `tools/list` shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ToolMode {
    /// Every tool the caller may call.
    #[default]
    All,
    /// The meta-tools `search_tools`, `describe_tools` and `call_tool`, plus the pinned tools
    /// the caller may call; every other tool is found with `search_tools` and run with
    /// `call_tool` (or called by name).
    Search,
    /// Code mode: `search_tools`, `describe_tools` (with each tool's TypeScript declaration)
    /// and `execute`, which runs a JavaScript program whose `await tools.<name>(args)` calls
    /// go through the same checks as direct calls, plus the pinned tools; tools stay
    /// callable by name. Needs the `code-mode` feature: without it, building a server in
    /// this mode fails with an error naming the feature.
    Code,
}

/// Headers that describe one connection or the framing of one message, which must never be
/// copied from the caller's request to an upstream request.
#[cfg(feature = "http")]
const UNFORWARDABLE_HEADERS: &[&str] = &[
    "host",
    "content-length",
    "content-type",
    "content-encoding",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "upgrade",
    "expect",
];

/// Headers the caller authenticates to this server with; never forwarded as they are.
#[cfg(feature = "http")]
const CREDENTIAL_HEADERS: &[&str] = &["authorization", "x-api-key"];

/// Parses the forwarding allowlist, refusing hop-by-hop and framing headers.
#[cfg(feature = "http")]
pub(super) fn forward_header_names(
    names: &[String],
    problems: &mut Vec<ConfigProblem>,
) -> Vec<HeaderName> {
    let mut parsed: Vec<HeaderName> = Vec::new();
    for name in names {
        let trimmed = name.trim();
        let reject = |reason: &str| ConfigProblem::InvalidForwardHeader {
            name: name.clone(),
            reason: reason.to_owned(),
        };
        match HeaderName::from_bytes(trimmed.as_bytes()) {
            Err(_) => problems.push(reject("not a valid HTTP header name")),
            Ok(header) if UNFORWARDABLE_HEADERS.contains(&header.as_str()) => {
                problems.push(reject(
                    "it describes the caller's connection or message framing, not the call, \
                     so it is never forwarded",
                ))
            }
            Ok(header) if CREDENTIAL_HEADERS.contains(&header.as_str()) => problems.push(reject(
                "it carries the caller's credential for this server; to send that credential \
                 upstream, use pass-through (--upstream-pass-through), which places it as the \
                 API's security scheme says",
            )),
            Ok(header) if header.as_str().starts_with(':') => {
                problems.push(reject("pseudo-headers are never forwarded"));
            }
            Ok(header) => {
                if !parsed.contains(&header) {
                    parsed.push(header);
                }
            }
        }
    }
    parsed
}
