//! The HTTP call an OpenAPI-derived tool makes to its REST API, and [`OpenApiTools`]
//! (module [`openapi`]), a generated crate's tool table driven through one [`Upstream`].
//!
//! The server runtime (`mcpgen-runtime`) re-exports this crate as `mcpgen_runtime::upstream`
//! and its `openapi` module as `mcpgen_runtime::openapi`.
//!
//! [`Upstream::invoke`] turns a tool call into one HTTP request and its response into a
//! [`ToolResult`]. The work is split by job:
//!
//! - `style`: how one parameter value is written on the wire (OpenAPI `style`/`explode`) and
//!   percent-encoded;
//! - `args`: which arguments were given, and what is wrong with them;
//! - `request`: the request itself (method, path, query, headers), built from the tool's
//!   [`HttpBinding`] and its arguments;
//! - `body`: the request body for the binding's content type (`media`: media types);
//! - `credentials`: configured credentials per security scheme and pass-through of the
//!   caller's credential, and how they are applied to a request; `exchange`: OAuth callers'
//!   tokens exchanged (RFC 8693) for tokens of the API, sent instead;
//! - `base_url`: checking and showing base URLs; `error`: why a client cannot be built;
//! - `response`: reading the response under a size cap and mapping it to a result;
//! - `redirect`: which redirects are followed, and why one was not;
//! - `poll`: an operation that runs long, its `202 Accepted` polled at its `Location`;
//! - `prepared`: a request built and not sent, for previews;
//! - `guard`: the concurrency cap, circuit breaker and retry that every call passes through.
//!
//! Failures of any kind — a missing argument, an unreachable upstream, a timeout, a 4xx/5xx — come
//! back as a result with `is_error` set, never as a success that hides them.

#![deny(missing_docs)]

mod args;
mod base_url;
mod body;
mod credentials;
mod error;
#[cfg(feature = "oauth")]
mod exchange;
mod guard;
mod invoked;
mod media;
pub mod openapi;
mod poll;
mod prepared;
mod redirect;
mod request;
mod response;
mod style;

pub use credentials::Credential;
pub use error::UpstreamError;
#[cfg(feature = "oauth")]
pub use exchange::TokenExchange;
pub use guard::{
    DEFAULT_BREAKER_COOLDOWN, DEFAULT_BREAKER_THRESHOLD, DEFAULT_MAX_CONCURRENCY,
    DEFAULT_QUEUE_TIMEOUT, GuardConfig,
};
pub use invoked::{GuardRefusal, GuardReport, Invoked};
pub use openapi::OpenApiTools;
pub use poll::{DEFAULT_TASK_POLL_MAX_INTERVAL, DEFAULT_TASK_POLLS_MAX, TaskPolling};
pub use prepared::PreparedRequest;

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::header::HeaderValue;
use serde_json::{Map, Value};
use tracing::Instrument;

use base_url::{check_url, redact_url_text};
use redirect::{is_safe_method, redirect_stop_reason, same_origin_redirects};

use mcpgen_core::result::{Content, ToolResult};
use mcpgen_core::tool::{HttpBinding, SecurityScheme, ToolDef};

use mcpgen_contract::toolset::CallContext;

/// The default cap on how much of a response body is read: 1 MiB.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 1024 * 1024;

/// The default per-request timeout: 30 s.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How to reach the upstream API.
#[derive(Debug, Clone)]
pub struct UpstreamConfig {
    /// Base URL that operation paths are appended to, e.g. `https://api.example.com/v1`.
    /// Operations whose spec declares their own server ([`HttpBinding::server_url`]) go there
    /// instead.
    pub base_url: String,
    /// Credentials attached to every request.
    pub credentials: Vec<Credential>,
    /// Per-request timeout, covering connecting, sending and reading the whole response.
    pub timeout: Duration,
    /// At most this many bytes of a response body are read; the rest is cut off and the cut is
    /// marked in the result (a cut JSON body is an error, since it cannot be parsed).
    pub max_response_bytes: usize,
    /// Security schemes the caller's own credential ([`CallContext::caller_credential`]) is
    /// sent in. Empty (the default): the caller's credential is never sent upstream.
    pub pass_through: Vec<SecurityScheme>,
    /// The concurrency cap, circuit breaker and retry of calls to this upstream.
    pub guard: GuardConfig,
    /// How OAuth callers' access tokens are exchanged for tokens of this API; `None` (the
    /// default): OAuth callers use the configured credentials.
    #[cfg(feature = "oauth")]
    pub token_exchange: Option<TokenExchange>,
    /// How operations that run long ([`HttpBinding::task`]) are polled once they answer
    /// `202 Accepted` with a `Location`.
    pub task_polling: TaskPolling,
}

impl UpstreamConfig {
    /// A configuration for `base_url` with no credentials, a 30 s timeout and a 1 MiB
    /// response cap.
    pub fn new(base_url: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            credentials: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            pass_through: Vec::new(),
            guard: GuardConfig::default(),
            #[cfg(feature = "oauth")]
            token_exchange: None,
            task_polling: TaskPolling::default(),
        }
    }

    /// Sets how operations that run long are polled: the longest wait between two polls and
    /// the other origins a `Location` may lead to (polled without credentials).
    pub fn with_task_polling(mut self, polling: TaskPolling) -> Self {
        self.task_polling = polling;
        self
    }

    /// Sends OAuth callers to the API as themselves: the access token a caller presented to
    /// this server is exchanged (RFC 8693) for a token for this API, sent as
    /// `Authorization: Bearer` to operations secured by an HTTP bearer or OAuth 2 scheme in
    /// place of the configured credential. Other callers and operations are unchanged.
    #[cfg(feature = "oauth")]
    pub fn with_token_exchange(mut self, exchange: TokenExchange) -> Self {
        self.token_exchange = Some(exchange);
        self
    }

    /// Sets the concurrency cap, circuit breaker and retry of calls to this upstream.
    pub fn with_guard(mut self, guard: GuardConfig) -> Self {
        self.guard = guard;
        self
    }

    /// Adds a credential.
    pub fn with_credential(mut self, credential: Credential) -> Self {
        self.credentials.push(credential);
        self
    }

    /// Sets the per-request timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sends the caller's own credential ([`CallContext::caller_credential`]) upstream, in
    /// the first of the operation's security schemes among `schemes` that can carry it, in
    /// this order of preference: an apiKey header or HTTP bearer, an apiKey cookie, an apiKey
    /// query parameter. An operation with none of them gets no caller credential.
    pub fn with_pass_through(mut self, schemes: impl IntoIterator<Item = SecurityScheme>) -> Self {
        self.pass_through.extend(schemes);
        self
    }

    /// Sets the cap on how many bytes of a response body are read.
    pub fn with_max_response_bytes(mut self, max_response_bytes: usize) -> Self {
        self.max_response_bytes = max_response_bytes;
        self
    }
}

/// A pooled HTTP client for one upstream API.
///
/// Cloning is cheap and shares the connection pool.
#[derive(Clone)]
pub struct Upstream {
    config: UpstreamConfig,
    /// For safe methods (GET, HEAD, OPTIONS): follows up to [`redirect::MAX_REDIRECTS`] same-origin
    /// redirects.
    http: reqwest::Client,
    /// For every other method: follows no redirect (a 3xx comes back as an error naming its
    /// `Location`), so a write is never replayed or turned into a GET elsewhere.
    http_no_redirects: reqwest::Client,
    /// The base URL without a trailing slash; operation paths are appended to it.
    base: String,
    /// `base`, parsed.
    base_url: url::Url,
    /// The base URL as shown in messages: no user info, no trailing slash.
    display_base: String,
    auth: credentials::Auth,
    pass_through: credentials::PassThrough,
    /// The cap, breaker and retry, shared by every clone.
    guard: Arc<guard::Guard>,
    /// How `202 Accepted` answers of operations that run long are polled.
    polling: poll::Policy,
    /// Token exchange for OAuth callers, with its cache, shared by every clone.
    #[cfg(feature = "oauth")]
    exchanger: Option<Arc<exchange::Exchanger>>,
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("base_url", &self.display_base)
            .field("credentials", &self.config.credentials)
            .field("timeout", &self.config.timeout)
            .field("max_response_bytes", &self.config.max_response_bytes)
            .field("guard", self.guard.config())
            .finish_non_exhaustive()
    }
}

impl Upstream {
    /// Builds the client for `config`.
    ///
    /// Fails if the base URL is not an absolute `http`/`https` URL without query or fragment,
    /// or if a credential cannot be sent as given (e.g. a header value with a line break).
    pub fn new(config: UpstreamConfig) -> Result<Self, UpstreamError> {
        let display_base = check_base_url(&config.base_url)?;
        let auth = credentials::Auth::new(&config.credentials)?;
        let pass_through =
            credentials::PassThrough::new(&config.pass_through, &config.credentials)?;
        #[cfg(feature = "oauth")]
        let exchanger = exchange::Exchanger::for_upstream(&config)?;
        let polling = poll::Policy::new(&config.task_polling)?;
        let client = |policy| {
            reqwest::Client::builder()
                .timeout(config.timeout)
                .redirect(policy)
                .build()
                .map_err(|e| UpstreamError::Client(e.to_string()))
        };
        // reqwest's redirect policy cannot see the request method, hence two clients.
        let http = client(same_origin_redirects())?;
        let http_no_redirects = client(reqwest::redirect::Policy::none())?;
        let base = config.base_url.trim_end_matches('/').to_owned();
        let base_url = url::Url::parse(&base).map_err(|e| UpstreamError::BaseUrl {
            url: redact_url_text(&base),
            reason: e.to_string(),
        })?;
        Ok(Self {
            guard: Arc::new(guard::Guard::new(config.guard)),
            polling,
            config,
            http,
            http_no_redirects,
            base,
            base_url,
            display_base,
            auth,
            pass_through,
            #[cfg(feature = "oauth")]
            exchanger,
        })
    }

    /// The configuration this client was built from.
    pub fn config(&self) -> &UpstreamConfig {
        &self.config
    }

    /// Calls `tool`'s operation with `args` and maps the response to a tool result.
    ///
    /// - 2xx with a JSON body: the JSON as text and as structured content (wrapped as
    ///   `{"result": ...}` when the tool says so or the JSON is not an object);
    /// - 2xx with no body (e.g. 204): a short success text;
    /// - 2xx with a textual body: the body as text; with an `image/*` body: image content; with
    ///   another binary body: an embedded resource with its MIME type;
    /// - anything else, a timeout, or an unreachable upstream: an error result saying what was
    ///   called and what happened, including the upstream's (truncated) response body (an
    ///   `application/problem+json` body by its title and detail) and any `Retry-After`.
    ///
    /// Redirects are followed only for GET, HEAD and OPTIONS, at most five, and only on the same
    /// origin; any other 3xx is an error naming its `Location`.
    ///
    /// Every call passes the upstream's guard ([`GuardConfig`]): it may wait for a slot under
    /// the concurrency cap, is refused unsent (an error result saying the upstream is
    /// unavailable) while the circuit breaker is open, and a request of an idempotent method
    /// that could not connect or got 502, 503 or 504 is sent once more. [`Invoked::guard`]
    /// says which happened.
    ///
    /// Arguments that cannot be placed on the wire (a missing required path parameter, a header
    /// value with a line break, an unsupported content type) give an error result and send no
    /// request.
    pub async fn invoke(&self, tool: &ToolDef, args: Map<String, Value>) -> Invoked {
        self.invoke_with(tool, args, &CallContext::default()).await
    }

    /// [`invoke`](Self::invoke) on behalf of the caller described by `ctx`.
    /// [`OpenApiTools`] calls this.
    ///
    /// The headers in [`CallContext::forwarded_headers`] are added to the request unless an
    /// argument or a configured credential already set that header. With pass-through
    /// configured ([`UpstreamConfig::with_pass_through`]), [`CallContext::caller_credential`]
    /// is placed in the operation's security scheme. With token exchange configured
    /// ([`UpstreamConfig::with_token_exchange`]), an OAuth caller's token is exchanged first.
    pub async fn invoke_with(
        &self,
        tool: &ToolDef,
        args: Map<String, Value>,
        ctx: &CallContext,
    ) -> Invoked {
        #[cfg(feature = "oauth")]
        let bearer = match exchange::bearer(self.exchanger.as_deref(), tool, ctx).await {
            Ok(bearer) => bearer,
            Err(problem) => return Invoked::new(ToolResult::error(problem)),
        };
        #[cfg(not(feature = "oauth"))]
        let bearer = None;
        let Built {
            binding,
            prepared,
            display_base,
        } = match self.build_request(tool, &args, Some(ctx), bearer) {
            Ok(built) => built,
            Err(problem) => return Invoked::new(ToolResult::error(problem)),
        };
        let span = tracing::debug_span!(
            "upstream",
            tool = tool.name,
            method = binding.method,
            path = binding.path,
        );
        // An inner call of a program may take only what is left of the program's time.
        let timeout = ctx.time_left().map(|left| left.min(self.config.timeout));
        self.send(tool, prepared, &display_base, timeout, ctx)
            .instrument(span)
            .await
    }

    /// Builds the request a call of `tool` with `args` sends: the binding's method, URL,
    /// headers and body, with the configured credentials and, for a call on behalf of `ctx`,
    /// its forwarded headers and pass-through credential, and `bearer` (an exchanged token) as
    /// its `Authorization`. Fails, with the message the call's error result gives, when the
    /// tool has no HTTP binding or the arguments cannot be placed on the wire.
    fn build_request<'a>(
        &'a self,
        tool: &'a ToolDef,
        args: &Map<String, Value>,
        ctx: Option<&CallContext>,
        bearer: Option<HeaderValue>,
    ) -> Result<Built<'a>, String> {
        let binding = tool.http.as_ref().ok_or_else(|| {
            format!(
                "tool `{}` has no HTTP binding, so it cannot call an upstream API",
                tool.name
            )
        })?;
        self.base_for(binding)
            .and_then(|base| {
                let mut prepared = request::build(&base.url, base.parsed, binding, args)?;
                self.auth.apply(&mut prepared.headers, &mut prepared.url);
                if let Some(ctx) = ctx {
                    // The upstream's spans hang under the call's `tool_call` span, whose id the
                    // call context carries.
                    if let Some(trace) = &ctx.trace
                        && let Ok(value) = http::HeaderValue::from_str(&trace.to_string())
                    {
                        prepared
                            .headers
                            .insert(mcpgen_contract::trace::TRACEPARENT, value);
                    }
                    self.pass_through.apply(
                        &mut prepared.headers,
                        &mut prepared.url,
                        binding,
                        ctx,
                    )?;
                }
                if let Some(bearer) = bearer {
                    prepared
                        .headers
                        .insert(reqwest::header::AUTHORIZATION, bearer);
                }
                Ok(Built {
                    binding,
                    prepared,
                    display_base: base.display,
                })
            })
            .map_err(|problem| {
                format!("cannot call {} {}: {problem}", binding.method, binding.path)
            })
    }

    /// The base URL `binding`'s requests go to: the operation's own server when the spec
    /// declares one, else the configured base URL. Fails, saying why, when the operation's
    /// server is not an absolute `http`/`https` URL without query or fragment.
    fn base_for(&self, binding: &HttpBinding) -> Result<Base<'_>, String> {
        let Some(server_url) = binding.server_url else {
            return Ok(Base {
                url: Cow::Borrowed(&self.base),
                parsed: Some(&self.base_url),
                display: Cow::Borrowed(&self.display_base),
            });
        };
        let display = check_url(server_url).map_err(|reason| {
            format!(
                "the spec gives this operation its own server `{}`, which cannot be used: {reason}",
                redact_url_text(server_url)
            )
        })?;
        Ok(Base {
            url: Cow::Borrowed(server_url.trim_end_matches('/')),
            parsed: None,
            display: Cow::Owned(display),
        })
    }

    /// Sends a prepared request for the call `ctx` and maps its outcome; `display_base`
    /// names the base URL in messages; `timeout`, when set, replaces the configured timeout
    /// (it is never longer). An operation that runs long and answers `202` with a `Location`
    /// is polled there until it ends (`poll`), and its final response is mapped instead.
    async fn send(
        &self,
        tool: &ToolDef,
        prepared: request::Prepared,
        display_base: &str,
        timeout: Option<Duration>,
        ctx: &CallContext,
    ) -> Invoked {
        let request::Prepared {
            method,
            path,
            url,
            headers,
            body,
        } = prepared;
        let mut what = response::Call {
            method: method.as_str().to_owned(),
            path,
            operation_id: tool
                .http
                .as_ref()
                .map_or(tool.name, |binding| binding.operation_id)
                .to_owned(),
        };
        let runs_long = tool.http.as_ref().is_some_and(|binding| binding.task);
        let cancel = tool.http.as_ref().map_or(&[][..], |binding| binding.cancel);
        let mut report = GuardReport::default();
        let started = Instant::now();
        // A task taken over from a lost replica goes on polling where that replica was,
        // without sending the request again.
        let resumed = runs_long
            .then(|| ctx.task_run.as_ref()?.resume_point())
            .flatten();
        let outcome = if let Some(point) = resumed {
            let accepted = match poll::Accepted::resumed(point, cancel) {
                Ok(accepted) => accepted,
                Err(result) => return Invoked::new(result),
            };
            tracing::debug!("polling the status of an operation taken over from a lost replica");
            match self
                .poll(accepted, ctx, timeout, &mut what, &mut report)
                .await
            {
                Ok(outcome) => outcome,
                Err(result) => return Invoked::new(result).with_guard(report),
            }
        } else {
            // What polling needs of the request, kept only for an operation that may be polled.
            let sent = runs_long.then(|| (url.clone(), headers.clone()));
            let safe = is_safe_method(&method);
            let client = if safe {
                &self.http
            } else {
                &self.http_no_redirects
            };
            let mut builder = client.request(method.clone(), url).headers(headers);
            if let Some(body) = body {
                builder = builder
                    .header(reqwest::header::CONTENT_TYPE, body.content_type)
                    .body(body.bytes);
            }
            if let Some(timeout) = timeout {
                builder = builder.timeout(timeout);
            }
            let outcome = match self.guarded(&method, builder, safe, &mut report).await {
                Ok(outcome) => outcome,
                Err(why) => {
                    tracing::debug!(refused = ?report.refused, "upstream call not sent");
                    return Invoked::new(ToolResult::error(format!("{what} was not sent: {why}")))
                        .with_guard(report);
                }
            };
            match (sent, &outcome) {
                (Some((url, headers)), Ok((status, head, _)))
                    if *status == reqwest::StatusCode::ACCEPTED && head.location.is_some() =>
                {
                    let accepted = poll::Accepted {
                        url,
                        headers,
                        location: head.location.clone().unwrap_or_default(),
                        retry_after: head.retry_after.clone(),
                        cancel,
                        left_own: false,
                    };
                    tracing::debug!("upstream accepted the operation; polling its status");
                    match self
                        .poll(accepted, ctx, timeout, &mut what, &mut report)
                        .await
                    {
                        Ok(outcome) => outcome,
                        Err(result) => return Invoked::new(result).with_guard(report),
                    }
                }
                _ => outcome,
            }
        };
        let cap = self.config.max_response_bytes;
        let mut invoked = match outcome {
            Ok((status, head, body)) => {
                tracing::debug!(
                    status = status.as_u16(),
                    elapsed_ms = elapsed_ms(started),
                    bytes = body.bytes.len(),
                    truncated = body.truncated,
                    "upstream responded"
                );
                let expected = response::Expected::of(tool);
                let result = response::map(&what, status, &head, body, cap, expected);
                Invoked::new(result).with_status(status.as_u16())
            }
            Err(err) => {
                tracing::debug!(
                    elapsed_ms = elapsed_ms(started),
                    timeout = err.is_timeout(),
                    connect = err.is_connect(),
                    "upstream call failed"
                );
                let timeout = timeout.unwrap_or(self.config.timeout);
                response::map_error(&what, &err, timeout, display_base)
            }
        };
        if report.retried && invoked.result.is_error {
            note_retry(&mut invoked.result);
        }
        invoked.with_guard(report)
    }

    /// Whether another replica could go on polling an operation of the call `ctx` with this
    /// upstream's own credentials: its requests carry nothing of the caller's (no
    /// pass-through credential, no forwarded header, no exchanged token).
    fn may_resume(&self, ctx: &CallContext) -> bool {
        #[cfg(feature = "oauth")]
        let exchanges = self.exchanger.is_some();
        #[cfg(not(feature = "oauth"))]
        let exchanges = false;
        self.config.pass_through.is_empty() && ctx.forwarded_headers.is_empty() && !exchanges
    }

    /// Sends one request of `method` through the guard: it waits for a slot under the
    /// concurrency cap, its outcome is counted by the circuit breaker, and a request of an
    /// idempotent method that could not connect or got 502, 503 or 504 is sent once more.
    /// `safe` says whether redirects are followed. Fails, saying why, when the guard refused
    /// to send it.
    async fn guarded(
        &self,
        method: &reqwest::Method,
        builder: reqwest::RequestBuilder,
        safe: bool,
        report: &mut GuardReport,
    ) -> Result<Exchange, String> {
        let mut admitted = self.guard.admit(report).await?;
        // A copy for the one retry (bodies are bytes, so the copy always exists).
        let spare = if self.guard.config().retry && guard::retry::idempotent(method) {
            builder.try_clone()
        } else {
            None
        };
        let cap = self.config.max_response_bytes;
        let first = exchange(builder, safe, cap).await;
        self.guard
            .record(&mut admitted.ticket, failed(&first), report);
        let outcome = match spare {
            Some(spare)
                if guard::retry::worth_retrying(first.as_ref().map(|(status, ..)| *status))
                    && self.guard.may_retry(method, &admitted.ticket) =>
            {
                let delay = guard::retry::jitter();
                tracing::debug!(
                    delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                    status = first.as_ref().ok().map(|(status, ..)| status.as_u16()),
                    "upstream request failed; retrying once"
                );
                tokio::time::sleep(delay).await;
                report.retried = true;
                let second = exchange(spare, safe, cap).await;
                self.guard
                    .record(&mut admitted.ticket, failed(&second), report);
                second
            }
            _ => first,
        };
        drop(admitted);
        Ok(outcome)
    }
}

/// Adds to a failed result's message that its request was sent twice.
fn note_retry(result: &mut ToolResult) {
    const NOTE: &str = "The request was retried once after a short wait and failed again; the \
                        upstream API may be briefly unavailable, retry later.";
    match result.content.iter_mut().rev().find_map(|c| match c {
        Content::Text(text) => Some(text),
        _ => None,
    }) {
        Some(text) => {
            text.push('\n');
            text.push_str(NOTE);
        }
        None => result.content.push(Content::Text(NOTE.to_owned())),
    }
}

/// What one request came to: the response's status, head and (capped) body, or the error
/// that kept it from being answered.
type Exchange = Result<(reqwest::StatusCode, response::Head, response::CappedBody), reqwest::Error>;

/// Sends one request and reads its response under the cap; `safe` says whether redirects
/// were followed (for the reason given when one was not).
async fn exchange(builder: reqwest::RequestBuilder, safe: bool, cap: usize) -> Exchange {
    let mut resp = builder.send().await?;
    let status = resp.status();
    let header = |name| {
        resp.headers()
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
            .map(str::to_owned)
    };
    let mut head = response::Head {
        content_type: header(reqwest::header::CONTENT_TYPE),
        retry_after: header(reqwest::header::RETRY_AFTER),
        location: header(reqwest::header::LOCATION),
        redirect_stopped: None,
    };
    if status.is_redirection()
        && let Some(location) = &head.location
    {
        head.redirect_stopped = Some(redirect_stop_reason(safe, status, resp.url(), location));
    }
    let body = response::read_capped(&mut resp, cap).await?;
    Ok((status, head, body))
}

/// Whether a request failed as the circuit breaker counts failures: no answer, or a 5xx.
fn failed(exchange: &Exchange) -> bool {
    match exchange {
        Ok((status, ..)) => status.is_server_error(),
        Err(_) => true,
    }
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// A request built for a call, with the binding it was built from and how its base URL is
/// shown in messages.
struct Built<'a> {
    binding: &'a HttpBinding,
    prepared: request::Prepared,
    display_base: Cow<'a, str>,
}

/// A base URL requests are sent to: without a trailing slash, and as shown in messages.
struct Base<'a> {
    url: Cow<'a, str>,
    /// `url` parsed, for the configured base URL (parsed once).
    parsed: Option<&'a url::Url>,
    display: Cow<'a, str>,
}

/// Checks the base URL and returns it as shown in messages (no user info, no trailing slash).
fn check_base_url(base_url: &str) -> Result<String, UpstreamError> {
    check_url(base_url).map_err(|reason| UpstreamError::BaseUrl {
        url: redact_url_text(base_url),
        reason,
    })
}
