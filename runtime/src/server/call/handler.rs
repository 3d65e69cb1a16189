//! The rmcp adapter: answers `initialize`, `tools/list` and `tools/call` for one connection
//! (stdio, a legacy SSE connection) or for the Streamable HTTP service.
//!
//! Who is calling comes from, in order: the principal fixed when the handler was made (stdio,
//! or a transport that authenticated the connection), a [`Principal`] in the request's
//! extensions, or a [`Principal`] in the extensions of the HTTP request parts rmcp hands over
//! (where the auth middleware puts it). With none, nothing is visible.
//!
//! Each call's context also carries what rmcp knows of the request: its cancellation (the
//! client's `notifications/cancelled`, or the connection closing) and a [`Notifier`] bound to
//! the connection, the request's `progressToken` and the client's log level. The level set
//! with `logging/setLevel` is kept per handler, which is per connection (stdio, a legacy SSE
//! stream) or per Streamable HTTP session.

use std::sync::Arc;

use mcpgen_core::result::ToolResult;
use mcpgen_identity::Principal;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CancelTaskParams, GetTaskParams,
    GetTaskResult, Implementation, ListToolsResult, PaginatedRequestParams, RequestId,
    RequestMetaObject, ServerCapabilities, ServerConfig, TASKS_EXTENSION_ID, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use tracing::Instrument;

use super::pipeline::{self, Answer};
#[cfg(feature = "search")]
use super::search_call;
use super::task_call;
use crate::server::catalog::describe;
use crate::server::catalog::live::Served;
use crate::server::catalog::meta_tool::DESCRIBE_TOOL;
use crate::server::catalog::table::Catalog;
use crate::server::state::inner::Inner;
#[cfg(feature = "stdio")]
use crate::server::state::server::Server;
use mcpgen_contract::notify::{Cancellation, LogLevel, Notifier, SessionLogLevel, Sink};
use mcpgen_contract::resource::Subscriber;
#[cfg(feature = "http")]
use mcpgen_contract::toolset::ForwardedHeaders;
use mcpgen_contract::toolset::{CallContext, CallerCredential};
use mcpgen_contract::trace::{TraceParent, call_span};

/// How long a client may cache a `tools/list` answer when the lists are fixed at start-up.
const TOOLS_LIST_TTL_MS: u64 = 60_000;

/// Serves the MCP protocol for a [`Server`].
#[derive(Clone)]
pub(crate) struct McpHandler {
    inner: Arc<Inner>,
    principal: Option<Arc<Principal>>,
    /// The credential the fixed principal authenticated with (stdio), for pass-through.
    credential: Option<CallerCredential>,
    /// The level the client asked for with `logging/setLevel`, shared by its calls.
    log_level: Arc<SessionLogLevel>,
    /// The resources this connection (or session) subscribed to.
    subscriber: Arc<Subscriber>,
    /// The sessions in the store (`--state-redis`), which keep the log level it sets.
    #[cfg(all(feature = "http", feature = "redis"))]
    shared: Option<mcpgen_state::Sessions>,
}

impl std::fmt::Debug for McpHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHandler")
            .field("principal", &self.principal.as_ref().map(|p| &p.id))
            .field("credential", &self.credential)
            .finish()
    }
}

/// The `initialize` answer: server info and the tools and logging capabilities.
pub(crate) fn server_config(inner: &Inner) -> ServerConfig {
    let mut implementation = Implementation::new(inner.name.clone(), inner.version.clone());
    if let Some(title) = &inner.title {
        implementation = implementation.with_title(title.clone());
    }
    if let Some(description) = &inner.description {
        implementation = implementation.with_description(description.clone());
    }
    // Prompts and resources are declared even when there are none, so clients see the
    // (possibly empty) lists the server answers with as declared capabilities. Logging is
    // declared because tools may send log messages (`ToolContext::log`) and
    // `logging/setLevel` is answered. `subscribe` and completions only when served.
    #[allow(deprecated)] // logging is marked for removal by SEP-2577 but still in the protocol
    let mut capabilities = ServerCapabilities::builder()
        .enable_tools()
        .enable_prompts()
        .enable_resources()
        .enable_logging()
        .build();
    if inner.resources.subscriptions()
        && let Some(resources) = capabilities.resources.as_mut()
    {
        resources.subscribe = Some(true);
    }
    if inner.prompts.has_completions() || inner.resources.has_completions() {
        capabilities.completions = Some(rmcp::model::JsonObject::new());
    }
    if inner.tools.announced()
        && let Some(tools) = capabilities.tools.as_mut()
    {
        tools.list_changed = Some(true);
    }
    if !inner.tools.load().views.is_empty() {
        let (id, settings) = crate::views::declaration();
        capabilities
            .extensions
            .get_or_insert_with(Default::default)
            .insert(id, settings);
    }
    if inner.tasks.offered() {
        capabilities
            .extensions
            .get_or_insert_with(Default::default)
            .insert(
                TASKS_EXTENSION_ID.to_owned(),
                rmcp::model::JsonObject::new(),
            );
    }
    ServerConfig::new(capabilities).with_server_info(implementation)
}

#[cfg(feature = "stdio")]
impl Server {
    /// A handler for one connection whose caller is `principal` (`None`: read from each
    /// request's extensions). Used by stdio, and by transports that serve one connection at a
    /// time, e.g. legacy SSE.
    pub(crate) fn handler(&self, principal: Option<Principal>) -> McpHandler {
        McpHandler::new(self.inner.clone(), principal)
    }
}

impl McpHandler {
    /// A handler whose caller is `principal`, or, when `None`, is read from each request.
    pub(crate) fn new(inner: Arc<Inner>, principal: Option<Principal>) -> Self {
        Self {
            inner,
            principal: principal.map(Arc::new),
            credential: None,
            log_level: Arc::default(),
            subscriber: Arc::default(),
            #[cfg(all(feature = "http", feature = "redis"))]
            shared: None,
        }
    }

    /// The same handler, keeping its session's log level in `shared` (and taking it from
    /// there when the session is rebuilt on this replica).
    #[cfg(all(feature = "http", feature = "redis"))]
    pub(crate) fn with_shared(mut self, shared: Option<mcpgen_state::Sessions>) -> Self {
        self.shared = shared;
        self
    }

    /// The same handler, whose fixed principal presented `credential`.
    #[cfg(feature = "stdio")]
    pub(crate) fn with_credential(mut self, credential: Option<CallerCredential>) -> Self {
        self.credential = credential;
        self
    }

    /// The context of one call over rmcp; see [`call_context`].
    fn call_context(&self, ctx: &RequestContext<RoleServer>) -> CallContext {
        let sink = Sink::Peer(ctx.peer.clone());
        let parts = ctx.extensions.get::<http::request::Parts>();
        let mut call = call_context(
            &self.inner,
            &ctx.id,
            &ctx.meta,
            parts,
            sink,
            &self.log_level,
        );
        call.cancellation = Cancellation::from_token(ctx.ct.clone());
        if let Some(credential) = &self.credential {
            call.caller_credential = Some(credential.clone());
        }
        call
    }

    /// The id of the principal asking about the task `id`: only its own tasks are known to
    /// it, and nobody's to a request without one.
    fn task_owner<'a>(
        &'a self,
        ctx: &'a RequestContext<RoleServer>,
        id: &str,
    ) -> Result<&'a str, ErrorData> {
        self.principal(ctx)
            .map(|p| p.id.as_str())
            .ok_or_else(|| ErrorData::invalid_params(format!("unknown task `{id}`"), None))
    }

    fn principal<'a>(&'a self, ctx: &'a RequestContext<RoleServer>) -> Option<&'a Principal> {
        if let Some(p) = &self.principal {
            return Some(p);
        }
        if let Some(p) = ctx.extensions.get::<Principal>() {
            return Some(p);
        }
        ctx.extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Principal>())
    }
}

/// The context of one call: its request id, the caller's credential (put into the HTTP
/// request's extensions by the auth layer), the headers to forward and a notifier for the
/// request's progress token and log level sending to `sink`. The caller adds the request's
/// cancellation; the pipeline adds the principal once the caller may call the tool.
pub(crate) fn call_context(
    inner: &Inner,
    id: &RequestId,
    meta: &RequestMetaObject,
    parts: Option<&http::request::Parts>,
    sink: Sink,
    log_level: &Arc<SessionLogLevel>,
) -> CallContext {
    let notifier = Notifier::for_request(
        sink,
        meta.get_progress_token(),
        meta.log_level(),
        log_level.clone(),
        meta.protocol_version().is_some(),
    );
    let mut call = CallContext::new()
        .with_request_id(id.to_string())
        .with_notifier(notifier);
    // The position the call continues; each kind of request makes its own span below it.
    call.trace = incoming_trace(parts, meta)
        .or_else(|| mcpgen_contract::trace::exporting().then(TraceParent::new_root));
    call.caller_credential =
        parts.and_then(|parts| parts.extensions.get::<CallerCredential>().cloned());
    #[cfg(feature = "oauth")]
    {
        call.oauth_token = parts
            .and_then(|parts| {
                parts
                    .extensions
                    .get::<mcpgen_contract::toolset::OAuthAccessToken>()
            })
            .map(|token| token.0.clone());
    }
    #[cfg(feature = "http")]
    if let Some(parts) = parts
        && !inner.forward_headers.is_empty()
    {
        let mut headers = ForwardedHeaders::new();
        for name in &inner.forward_headers {
            for value in parts.headers.get_all(name) {
                headers.append(name.clone(), value.clone());
            }
        }
        call.forwarded_headers = headers;
    }
    #[cfg(not(feature = "http"))]
    let _ = inner;
    call
}

/// The `traceparent` a request continues: its HTTP header, else its `_meta.traceparent`.
/// With traces exported, the HTTP request's own span stands in for the header (it continues
/// the header's trace, or starts one); a `_meta.traceparent` still wins over a span that
/// started a new trace.
fn incoming_trace(
    parts: Option<&http::request::Parts>,
    meta: &RequestMetaObject,
) -> Option<TraceParent> {
    let from_header = parts
        .and_then(|parts| parts.headers.get(mcpgen_contract::trace::TRACEPARENT))
        .and_then(|value| value.to_str().ok())
        .and_then(TraceParent::parse);
    let request_span = parts
        .and_then(|parts| {
            parts
                .extensions
                .get::<mcpgen_contract::trace::RequestSpan>()
        })
        .map(|span| span.0);
    if from_header.is_some() {
        return request_span.or(from_header);
    }
    meta.get(mcpgen_contract::trace::TRACEPARENT)
        .and_then(|value| value.as_str())
        .and_then(TraceParent::parse)
        .or(request_span)
}

/// What `tools/list` shows `principal`: the meta-tools and pinned tools in search mode, else
/// every tool it may call.
fn listed_tools(served: &Served, principal: Option<&Principal>) -> Vec<rmcp::model::Tool> {
    #[cfg(feature = "search")]
    if let Some(mode) = &served.search {
        return mode.listed(&served.catalog, principal);
    }
    let visible = served.catalog.visible(principal);
    // `describe_tools` follows the tools when the caller sees a summarised one.
    let describe = served
        .catalog
        .describe_tool()
        .filter(|_| visible.iter().any(|e| e.def.is_summarised()));
    visible
        .into_iter()
        .map(|entry| entry.listed.clone())
        .chain(describe.map(|d| d.listed.clone()))
        .collect()
}

/// The `tools/list` answer for `principal`; with `ui` (the client declared the views
/// extension), tools with a view name it. Lists differ per caller, so only the caller's own
/// client may cache them.
pub(crate) fn tools_list(
    inner: &Inner,
    principal: Option<&Principal>,
    ui: bool,
) -> ListToolsResult {
    let served = inner.tools.load();
    let mut tools = listed_tools(&served, principal);
    if ui {
        served.views.decorate(&mut tools);
    }
    let listed = ListToolsResult::with_all_items(tools).with_cache_scope(CacheScope::Private);
    // Tools that may be replaced are not cached: the list-changed notification says when to
    // ask again.
    if inner.tools.announced() {
        listed
    } else {
        listed.with_ttl_ms(TOOLS_LIST_TTL_MS)
    }
}

/// `describe_tools` in `all` mode: like an unknown tool without a principal, an error
/// result for arguments its schema refuses.
fn describe_call(
    catalog: &Catalog,
    principal: Option<&Principal>,
    arguments: Option<serde_json::Map<String, serde_json::Value>>,
) -> Answer {
    let (Some(principal), Some(tool)) = (principal, catalog.describe_tool()) else {
        return Answer::UnknownTool;
    };
    let args = serde_json::Value::Object(arguments.unwrap_or_default());
    if let Some(Err(problem)) = tool.validator.as_ref().map(|v| v.check(&args)) {
        return Answer::Result(ToolResult::error(format!(
            "invalid arguments for tool `{DESCRIBE_TOOL}`: {problem}"
        )));
    }
    Answer::Result(describe::answer(catalog, principal, &args))
}

impl ServerHandler for McpHandler {
    fn get_info(&self) -> ServerConfig {
        self.inner.server_config.clone()
    }

    /// A session that finished initializing is told when the tools are replaced (when the
    /// server declares `tools.listChanged`).
    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        self.inner.tools.remember(context.peer);
    }

    /// As rmcp's own; a session rebuilt from the store (`--state-redis`) takes back the log
    /// level it set.
    async fn initialize(
        &self,
        request: rmcp::model::InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::InitializeResult, ErrorData> {
        #[cfg(all(feature = "http", feature = "redis"))]
        super::shared_level::restore(self.shared.as_ref(), &context, &self.log_level).await;
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListPromptsResult, ErrorData> {
        Ok(self.inner.prompts.list())
    }

    /// A prompt may ask the client for input like a tool: over the session, or, in stateless
    /// requests, in rounds answered `input_required`.
    async fn get_prompt(
        &self,
        mut request: rmcp::model::GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetPromptResponse, ErrorData> {
        let mut call = self.call_context(&context);
        call.trace = call.trace.map(|parent| parent.child());
        call.input = mcpgen_contract::input::channel(
            &context,
            request.input_responses.take(),
            request.request_state.take(),
        );
        let no_arguments = rmcp::model::JsonObject::new();
        let binding = mcpgen_contract::input::binding(
            self.principal(&context).map_or("", |p| p.id.as_str()),
            &format!("prompts/get {}", request.name),
            &mcpgen_audit::args_digest(request.arguments.as_ref().unwrap_or(&no_arguments)),
        );
        let states = &self.inner.request_states;
        call.input
            .open(states, &binding)
            .map_err(|refusal| refusal.to_error())?;
        match self
            .inner
            .prompts
            .get(&request.name, request.arguments, &call)
            .await
        {
            Ok(result) => Ok(result.into()),
            Err(error) => match call.input.end(states, &binding) {
                Some(mcpgen_contract::input::RoundEnd::Ask(required)) => {
                    Ok(required.into_result().into())
                }
                Some(mcpgen_contract::input::RoundEnd::Refuse(refusal)) => Err(refusal.to_error()),
                None => Err(error),
            },
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, ErrorData> {
        Ok(self.inner.resources.list())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourceTemplatesResult, ErrorData> {
        Ok(self.inner.resources.list_templates())
    }

    /// A URI nothing serves is "not found" (SEP-2164: invalid params with the URI in `data`),
    /// as is the view of a tool the caller may not call.
    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
        let principal = self.principal(&context);
        if let Some(view) = self.inner.tools.load().views.read(&request.uri, principal) {
            return Ok(view.into());
        }
        Ok(self.inner.resources.read(&request.uri).await?.into())
    }

    /// Only when the resource set accepts subscriptions; they last as long as the session.
    #[allow(deprecated)] // revisions up to 2025-11-25 have resources/subscribe
    async fn subscribe(
        &self,
        request: rmcp::model::SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner
            .resources
            .subscribe(&self.subscriber, context.peer, request.uri)
    }

    /// `subscriptions/listen` (2026-07-28): only resource subscriptions, only when the
    /// resource set accepts subscriptions.
    fn accepted_subscription_filter(
        &self,
        requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        self.inner.resources.accepted_filter(requested)
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), ErrorData> {
        self.inner.resources.listen(context).await
    }

    #[allow(deprecated)] // revisions up to 2025-11-25 have resources/unsubscribe
    async fn unsubscribe(
        &self,
        request: rmcp::model::UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner
            .resources
            .unsubscribe(&self.subscriber, &request.uri)
    }

    async fn complete(
        &self,
        request: rmcp::model::CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CompleteResult, ErrorData> {
        complete(&self.inner, request).await
    }

    /// `logging/setLevel`: later log messages of this connection's calls below `level` are
    /// not sent.
    #[allow(deprecated)] // logging is marked for removal by SEP-2577 but still in the protocol
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        #[cfg(all(feature = "http", feature = "redis"))]
        super::shared_level::remember(self.shared.as_ref(), &_context, request.level).await;
        self.log_level.set(LogLevel::from_wire(request.level));
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let session = context.peer.peer_info();
        let ui = crate::views::request_wants(
            &context.meta,
            session.as_ref().map(|info| &info.capabilities),
        );
        Ok(tools_list(&self.inner, self.principal(&context), ui))
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let owner = self.task_owner(&context, &request.task_id)?;
        let task = self
            .inner
            .tasks
            .get_anywhere(owner, &request.task_id)
            .await?;
        Ok(GetTaskResult::new(task))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let owner = self.task_owner(&context, &request.task_id)?;
        self.inner
            .tasks
            .update_anywhere(owner, &request.task_id, request.input_responses)
            .await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let owner = self.task_owner(&context, &request.task_id)?;
        self.inner
            .tasks
            .cancel_anywhere(owner, &request.task_id)
            .await
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut call = self.call_context(&context);
        // Tools may ask the client: over the session, or, in stateless calls, in rounds whose
        // answers and sealed state come back with the repeated call.
        call.input = mcpgen_contract::input::channel(
            &context,
            request.input_responses.take(),
            request.request_state.take(),
        );
        answer_call(&self.inner, self.principal(&context), request, call).await
    }
}

/// `completion/complete`: the suggestions of the prompt's or resource template's completer.
pub(crate) async fn complete(
    inner: &Inner,
    request: rmcp::model::CompleteRequestParams,
) -> Result<rmcp::model::CompleteResult, ErrorData> {
    // Without completers (no `completions` capability), any request gets no suggestions.
    if inner.server_config.capabilities.completions.is_none() {
        return Ok(rmcp::model::CompleteResult::default());
    }
    let context = request.context.as_ref();
    match &request.r#ref {
        rmcp::model::Reference::Prompt(prompt) => {
            inner
                .prompts
                .complete(&prompt.name, &request.argument, context)
                .await
        }
        rmcp::model::Reference::Resource(template) => {
            inner
                .resources
                .complete(&template.uri, &request.argument, context)
                .await
        }
        _ => Err(ErrorData::invalid_params(
            "completion/complete: `ref` must be `ref/prompt` or `ref/resource`",
            None,
        )),
    }
}

/// Answers one `tools/call` of `principal` with the context `call`: a meta-tool of search
/// mode, `describe_tools`, or a tool through the call pipeline.
pub(crate) async fn answer_call(
    inner: &Arc<Inner>,
    principal: Option<&Principal>,
    request: CallToolRequestParams,
    mut call: CallContext,
) -> Result<CallToolResponse, ErrorData> {
    // The tools served now, for this call's routing.
    let served = inner.tools.load();
    #[cfg(feature = "search")]
    let meta = served
        .search
        .as_ref()
        .and_then(|mode| mode.meta_tool(&request.name));
    #[cfg(not(feature = "search"))]
    let meta: Option<std::convert::Infallible> = None;
    let span = call_span(&mut call.trace, &request.name);
    // Both calls are boxed: rmcp moves the future of each request several times (into a
    // spawned task among others), so it is kept small.
    let (name, answer) = match meta {
        // `call_tool` names the inner tool in its answer, so a hidden or unknown inner
        // tool is answered as if it had been called directly.
        #[cfg(feature = "search")]
        Some(meta) => {
            let routed = Box::pin(
                search_call::answer(
                    inner,
                    &served,
                    principal,
                    meta,
                    &request.name,
                    request.arguments,
                    call,
                )
                .instrument(span),
            )
            .await;
            (routed.name, routed.answer)
        }
        None if request.name == DESCRIBE_TOOL && served.catalog.describe_tool().is_some() => {
            let answer = describe_call(&served.catalog, principal, request.arguments);
            (request.name.to_string(), answer)
        }
        None => match task_call::route(inner, principal, &request.name, &call) {
            task_call::Route::Refused(error) => return Err(error),
            task_call::Route::Task(principal) => {
                return Ok(task_call::start(inner, principal, request, call, span).await);
            }
            task_call::Route::Plain => {
                let answer = Box::pin(
                    pipeline::call_tool(inner, principal, &request.name, request.arguments, call)
                        .instrument(span),
                )
                .await;
                (request.name.to_string(), answer)
            }
        },
    };
    match answer {
        Answer::Result(result) => Ok(mcpgen_contract::wire::call_tool_result(result).into()),
        Answer::UnknownTool => Err(ErrorData::invalid_params(
            pipeline::unknown_tool_message(&name),
            None,
        )),
        Answer::InputRequired(required) => Ok(required.into_result().into()),
        Answer::Refused(refusal) => Err(refusal.to_error()),
    }
}
