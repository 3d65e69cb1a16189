//! The trait servers dispatch tool calls through.

use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use mcpgen_core::BoxFuture;
use mcpgen_core::result::ToolResult;
use mcpgen_core::tool::ToolDef;
use mcpgen_identity::Principal;
use serde_json::{Map, Value};

use crate::guard_report::GuardReport;
use crate::input::InputChannel;
use crate::notify::{Cancellation, Notifier};
use crate::trace::TraceParent;

/// A credential the MCP caller presented (an API key or bearer token), handed on so an upstream
/// call can be made with it when the operator asked for pass-through.
///
/// Its `Debug` never shows the value; read it with [`expose`](Self::expose).
#[derive(Clone, PartialEq, Eq)]
pub struct CallerCredential(Arc<str>);

impl CallerCredential {
    /// Wraps a presented credential.
    pub fn new(value: impl Into<Arc<str>>) -> Self {
        Self(value.into())
    }

    /// The credential itself. Never log it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for CallerCredential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CallerCredential(***)")
    }
}

/// The OAuth access token a caller authenticated with, as the auth layer keeps it in the
/// request's extensions. It was issued for this server, so it is never passed through; an
/// upstream with token exchange trades it for a token of the API's own.
#[derive(Clone, Debug)]
#[doc(hidden)]
pub struct OAuthAccessToken(pub CallerCredential);

/// Headers of the caller's HTTP request that the server was told to forward to upstreams
/// (`--forward-header`). Their values may be sensitive, so `Debug` shows only the names.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ForwardedHeaders(http::HeaderMap);

impl ForwardedHeaders {
    /// No headers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one value of `name` (a header may repeat).
    pub fn append(&mut self, name: http::HeaderName, mut value: http::HeaderValue) {
        value.set_sensitive(true);
        self.0.append(name, value);
    }

    /// The headers.
    pub fn headers(&self) -> &http::HeaderMap {
        &self.0
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::fmt::Debug for ForwardedHeaders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set()
            .entries(self.0.keys().map(http::HeaderName::as_str))
            .finish()
    }
}

/// Per-call context handed to a tool set.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct CallContext {
    /// The JSON-RPC request id, if known.
    pub request_id: Option<String>,
    /// The credential the caller authenticated with (HTTP: `X-API-Key` or
    /// `Authorization: Bearer`; stdio: `MCPGEN_API_KEY`), if any. An `Upstream` sends it on
    /// only when configured for pass-through.
    pub caller_credential: Option<CallerCredential>,
    /// The OAuth access token the caller authenticated with, if it is an OAuth caller: only an
    /// upstream with token exchange uses it, to get a token of the API's own.
    #[doc(hidden)]
    pub oauth_token: Option<CallerCredential>,
    /// Headers of the caller's HTTP request named by the server's forwarding allowlist; an
    /// `Upstream` copies them onto its requests.
    pub forwarded_headers: ForwardedHeaders,
    /// Who is calling, as the transport authenticated them. The server sets it once the
    /// caller has passed the visibility check, so a tool set always sees who it serves.
    pub principal: Option<Arc<Principal>>,
    /// Sends progress and log notifications to the caller (a no-op when the call did not come
    /// over an MCP connection).
    pub notifier: Notifier,
    /// Cancelled when the caller cancels the request or its connection closes.
    pub cancellation: Cancellation,
    /// How questions to the client travel (elicitation, sampling, roots); nobody to ask
    /// unless the call came from an MCP client.
    #[doc(hidden)]
    pub input: InputChannel,
    /// The call's position in a W3C trace, when the request continued one (its
    /// `traceparent`); an `Upstream` sends the trace on as `traceparent`,
    /// and the audit record carries its trace id.
    pub trace: Option<TraceParent>,
    /// What the call's upstream request reported, for the audit record.
    upstream: UpstreamReport,
    /// The program this call is an inner call of (code mode's `execute`), if any.
    #[doc(hidden)]
    pub parent: Option<ParentCall>,
    /// The task this call runs for, if any: its audit record names the task's.
    #[doc(hidden)]
    pub task_id: Option<Arc<str>>,
    /// The task's running call, when the call runs as a task: an operation the API runs
    /// long tells it where it is polled, and a task taken over from a lost replica says
    /// where polling goes on.
    #[doc(hidden)]
    pub task_run: Option<crate::tasks::TaskRun>,
}

/// The `execute` an inner call runs for: its audit record's `call_id`, which the inner
/// call's record names as `parent_call_id`, and the moment the program's time runs out, which
/// caps the inner call's upstream timeout.
#[derive(Debug, Clone)]
#[doc(hidden)]
pub struct ParentCall {
    #[doc(hidden)]
    pub call_id: Arc<str>,
    #[doc(hidden)]
    pub deadline: Instant,
}

/// What a tool's upstream request reported: its HTTP status and whether it timed out. The
/// tool set writes it ([`CallContext::report_upstream`]) and the server's audit record reads
/// it; the result the client sees does not carry it.
#[derive(Debug, Default)]
struct UpstreamReport {
    /// The HTTP status, 0 while none was reported.
    status: AtomicU16,
    timed_out: AtomicBool,
    /// How long the upstream exchange took, in microseconds; 0 while none was reported.
    micros: AtomicU64,
    /// What the upstream's guard did with the call.
    guard: Mutex<GuardReport>,
}

impl Clone for UpstreamReport {
    fn clone(&self) -> Self {
        Self {
            status: AtomicU16::new(self.status.load(Ordering::Relaxed)),
            timed_out: AtomicBool::new(self.timed_out.load(Ordering::Relaxed)),
            micros: AtomicU64::new(self.micros.load(Ordering::Relaxed)),
            guard: Mutex::new(*self.guard.lock().unwrap_or_else(PoisonError::into_inner)),
        }
    }
}

impl CallContext {
    /// An empty context.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the JSON-RPC request id.
    pub fn with_request_id(mut self, request_id: impl Into<String>) -> Self {
        self.request_id = Some(request_id.into());
        self
    }

    /// Sets the caller's credential.
    pub fn with_caller_credential(mut self, credential: CallerCredential) -> Self {
        self.caller_credential = Some(credential);
        self
    }

    /// Sets the forwarded headers.
    pub fn with_forwarded_headers(mut self, headers: ForwardedHeaders) -> Self {
        self.forwarded_headers = headers;
        self
    }

    /// Sets the caller.
    pub fn with_principal(mut self, principal: impl Into<Arc<Principal>>) -> Self {
        self.principal = Some(principal.into());
        self
    }

    /// Sets the notifier.
    pub fn with_notifier(mut self, notifier: Notifier) -> Self {
        self.notifier = notifier;
        self
    }

    /// Sets the call's position in a trace.
    pub fn with_trace(mut self, trace: TraceParent) -> Self {
        self.trace = Some(trace);
        self
    }

    /// Sets the cancellation the call observes.
    pub fn with_cancellation(mut self, cancellation: Cancellation) -> Self {
        self.cancellation = cancellation;
        self
    }

    /// Records what the call's upstream request came to: its HTTP status, if it got a response,
    /// and whether it timed out. The audit record of the call carries both.
    pub fn report_upstream(&self, status: Option<u16>, timed_out: bool) {
        self.upstream
            .status
            .store(status.unwrap_or(0), Ordering::Relaxed);
        self.upstream.timed_out.store(timed_out, Ordering::Relaxed);
    }

    /// Records how long the call's upstream exchange took (for the upstream-latency metric).
    pub fn report_upstream_latency(&self, latency: Duration) {
        let micros = u64::try_from(latency.as_micros())
            .unwrap_or(u64::MAX)
            .max(1);
        self.upstream.micros.store(micros, Ordering::Relaxed);
    }

    /// How long the call's upstream exchange took, when a tool set reported it.
    pub fn upstream_latency(&self) -> Option<Duration> {
        match self.upstream.micros.load(Ordering::Relaxed) {
            0 => None,
            micros => Some(Duration::from_micros(micros)),
        }
    }

    /// The upstream HTTP status reported for this call, if any.
    pub fn upstream_status(&self) -> Option<u16> {
        match self.upstream.status.load(Ordering::Relaxed) {
            0 => None,
            status => Some(status),
        }
    }

    /// Records what the upstream's guard (concurrency cap, circuit breaker, retry) did with
    /// the call; the audit status and the metrics show it.
    pub fn report_upstream_guard(&self, guard: GuardReport) {
        *self
            .upstream
            .guard
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = guard;
    }

    /// What the upstream's guard did with the call, as reported.
    pub fn upstream_guard(&self) -> GuardReport {
        *self
            .upstream
            .guard
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the call's upstream request was reported as timed out.
    pub fn upstream_timed_out(&self) -> bool {
        self.upstream.timed_out.load(Ordering::Relaxed)
    }

    /// How long an upstream request of this call may take at most: what is left of its
    /// program's time for an inner call of code mode, `None` (no cap beyond the upstream's own
    /// timeout) for any other call.
    #[doc(hidden)]
    pub fn time_left(&self) -> Option<Duration> {
        self.parent
            .as_ref()
            .map(|p| p.deadline.saturating_duration_since(Instant::now()))
    }
}

/// Why a call could not be dispatched at all (as opposed to a tool that ran and failed,
/// which is a [`ToolResult`] with `is_error`).
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// No tool of that name in this set.
    #[error("unknown tool `{0}`")]
    UnknownTool(String),
    /// The arguments do not fit the tool's input schema.
    #[error("invalid arguments for tool `{tool}`: {message}")]
    InvalidArguments {
        /// Tool name.
        tool: String,
        /// What is wrong, naming the offending field where possible.
        message: String,
    },
}

/// A set of tools: a generated crate's dispatcher, or hand-written tools.
pub trait ToolSet: Send + Sync + 'static {
    /// The static tool table.
    fn tools(&self) -> &'static [ToolDef];

    /// Calls `tool`, one of [`tools`](Self::tools), with `args`. The server has found the tool
    /// and checked the arguments against its input schema before it calls.
    fn call<'a>(
        &'a self,
        tool: &'static ToolDef,
        args: Map<String, Value>,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>>;

    /// Looks a tool up by name.
    fn tool(&self, name: &str) -> Option<&'static ToolDef> {
        self.tools().iter().find(|t| t.name == name)
    }

    /// The search index of these tools in its text form (see `mcpgen_runtime::search`), for servers in
    /// search mode. Generated crates compile one in; `None` (the default) has the server index
    /// the static table at start-up instead.
    fn search_index(&self) -> Option<&'static str> {
        None
    }

    /// How the tool `name` runs as an MCP task, if it does (see [`crate::tasks`]); `None` (the
    /// default) for every tool.
    fn task_support(&self, name: &str) -> Option<crate::tasks::TaskSupport> {
        let _ = name;
        None
    }

    /// Rate limits of single tools (from the allowlist's `rate_limit:`), each applying per
    /// principal on top of the principal's own limit. None by default.
    fn rate_limits(&self) -> &'static [ToolRate] {
        &[]
    }
}

/// A tool's own rate limit: `per_second` calls a second for each principal, `burst` at once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ToolRate {
    /// The tool's name.
    pub tool: &'static str,
    /// Sustained calls per second.
    pub per_second: f64,
    /// Calls let through at once.
    pub burst: f64,
}

impl ToolRate {
    /// `tool` limited to `per_second` calls a second, `burst` at once.
    pub const fn new(tool: &'static str, per_second: f64, burst: f64) -> Self {
        Self {
            tool,
            per_second,
            burst,
        }
    }
}
