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

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::Inner;
use super::pipeline::{self, Answer};
use super::search;
use crate::notify::{Cancellation, LogLevel, Notifier, SessionLogLevel};
use crate::{CallContext, CallerCredential, Content, ForwardedHeaders, Principal, ToolResult};

/// How long a client may cache a `tools/list` answer: the lists are fixed at start-up.
const TOOLS_LIST_TTL_MS: u64 = 60_000;

/// Serves the MCP protocol for a [`super::Server`].
#[derive(Clone)]
pub(crate) struct McpHandler {
    inner: Arc<Inner>,
    principal: Option<Arc<Principal>>,
    /// The credential the fixed principal authenticated with (stdio), for pass-through.
    credential: Option<CallerCredential>,
    /// The level the client asked for with `logging/setLevel`, shared by its calls.
    log_level: Arc<SessionLogLevel>,
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
    // Prompts and resources are declared (and empty) so clients and the conformance suite see
    // the empty lists the server answers with as declared capabilities. Logging is declared
    // because tools may send log messages (`ToolContext::log`) and `logging/setLevel` is
    // answered.
    #[allow(deprecated)] // logging is marked for removal by SEP-2577 but still in the protocol
    let capabilities = ServerCapabilities::builder()
        .enable_tools()
        .enable_prompts()
        .enable_resources()
        .enable_logging()
        .build();
    ServerConfig::new(capabilities).with_server_info(implementation)
}

impl McpHandler {
    /// A handler whose caller is `principal`, or, when `None`, is read from each request.
    pub(crate) fn new(inner: Arc<Inner>, principal: Option<Principal>) -> Self {
        Self {
            inner,
            principal: principal.map(Arc::new),
            credential: None,
            log_level: Arc::default(),
        }
    }

    /// The same handler, whose fixed principal presented `credential`.
    pub(crate) fn with_credential(mut self, credential: Option<CallerCredential>) -> Self {
        self.credential = credential;
        self
    }

    /// The context of one call: its request id, the caller's credential (fixed, or put into
    /// the HTTP request's extensions by the auth layer), the headers to forward, the request's
    /// cancellation and a notifier for its progress token and log level. The pipeline adds
    /// the principal once the caller may call the tool.
    fn call_context(&self, ctx: &RequestContext<RoleServer>) -> CallContext {
        let notifier = Notifier::for_request(
            ctx.peer.clone(),
            ctx.meta.get_progress_token(),
            ctx.meta.log_level(),
            self.log_level.clone(),
            ctx.meta.protocol_version().is_some(),
        );
        let mut call = CallContext::new()
            .with_request_id(ctx.id.to_string())
            .with_notifier(notifier)
            .with_cancellation(Cancellation::from_token(ctx.ct.clone()));
        let parts = ctx.extensions.get::<http::request::Parts>();
        call.caller_credential = self.credential.clone().or_else(|| {
            parts.and_then(|parts| parts.extensions.get::<CallerCredential>().cloned())
        });
        if let Some(parts) = parts
            && !self.inner.forward_headers.is_empty()
        {
            let mut headers = ForwardedHeaders::new();
            for name in &self.inner.forward_headers {
                for value in parts.headers.get_all(name) {
                    headers.append(name.clone(), value.clone());
                }
            }
            call.forwarded_headers = headers;
        }
        call
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

/// Maps our result to rmcp's.
pub(crate) fn to_call_tool_result(result: ToolResult) -> CallToolResult {
    let content = result
        .content
        .into_iter()
        .map(|block| match block {
            Content::Text(text) => ContentBlock::text(text),
            Content::Image { data, mime_type } => ContentBlock::image(data, mime_type),
            Content::Audio { data, mime_type } => ContentBlock::audio(data, mime_type),
            Content::Resource {
                uri,
                mime_type,
                blob,
            } => ContentBlock::resource(
                rmcp::model::ResourceContents::blob(blob, uri).with_mime_type(mime_type),
            ),
            Content::TextResource {
                uri,
                mime_type,
                text,
            } => ContentBlock::resource(
                rmcp::model::ResourceContents::text(text, uri).with_mime_type(mime_type),
            ),
        })
        .collect();
    let mut mapped = if result.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    mapped.structured_content = result.structured_content;
    mapped
}

impl ServerHandler for McpHandler {
    fn get_info(&self) -> ServerConfig {
        self.inner.server_config.clone()
    }

    /// The server has no resources: every URI is "not found" (SEP-2164: invalid params with
    /// the URI in `data`).
    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
        Err(ErrorData::invalid_params(
            format!("resource not found: {}", request.uri),
            Some(serde_json::json!({ "uri": request.uri })),
        ))
    }

    /// `logging/setLevel`: later log messages of this connection's calls below `level` are
    /// not sent.
    #[allow(deprecated)] // logging is marked for removal by SEP-2577 but still in the protocol
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log_level.set(LogLevel::from_wire(request.level));
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let principal = self.principal(&context);
        let tools = match &self.inner.search {
            Some(mode) => mode.listed(&self.inner.catalog, principal),
            None => self
                .inner
                .catalog
                .visible(principal)
                .into_iter()
                .map(|entry| entry.listed.clone())
                .collect(),
        };
        // Lists differ per caller, so only the caller's own client may cache them.
        Ok(ListToolsResult::with_all_items(tools)
            .with_ttl_ms(TOOLS_LIST_TTL_MS)
            .with_cache_scope(CacheScope::Private))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let principal = self.principal(&context);
        let call = self.call_context(&context);
        let meta = self
            .inner
            .search
            .as_ref()
            .and_then(|mode| Some((mode, mode.meta_tool(&request.name)?)));
        let (name, answer) = match meta {
            // `call_tool` names the inner tool in its answer, so a hidden or unknown inner
            // tool is answered as if it had been called directly.
            Some((mode, meta)) => {
                let routed = search::answer(
                    &self.inner,
                    mode,
                    principal,
                    meta,
                    &request.name,
                    request.arguments,
                    call,
                )
                .await;
                (routed.name, routed.answer)
            }
            None => {
                let answer = pipeline::call_tool(
                    &self.inner,
                    principal,
                    &request.name,
                    request.arguments,
                    call,
                )
                .await;
                (request.name.to_string(), answer)
            }
        };
        match answer {
            Answer::Result(result) => Ok(to_call_tool_result(result).into()),
            Answer::UnknownTool => Err(ErrorData::invalid_params(
                pipeline::unknown_tool_message(&name),
                None,
            )),
        }
    }
}
