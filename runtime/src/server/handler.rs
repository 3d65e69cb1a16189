//! The rmcp adapter: answers `initialize`, `tools/list` and `tools/call` for one connection
//! (stdio, a legacy SSE connection) or for the Streamable HTTP service.
//!
//! Who is calling comes from, in order: the principal fixed when the handler was made (stdio,
//! or a transport that authenticated the connection), a [`Principal`] in the request's
//! extensions, or a [`Principal`] in the extensions of the HTTP request parts rmcp hands over
//! (where the auth middleware puts it). With none, nothing is visible.

use std::sync::Arc;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::Inner;
use super::pipeline::{self, Answer};
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
}

impl std::fmt::Debug for McpHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHandler")
            .field("principal", &self.principal.as_ref().map(|p| &p.id))
            .field("credential", &self.credential)
            .finish()
    }
}

/// The `initialize` answer: server info and the tools capability.
pub(crate) fn server_config(inner: &Inner) -> ServerConfig {
    let mut implementation = Implementation::new(inner.name.clone(), inner.version.clone());
    if let Some(title) = &inner.title {
        implementation = implementation.with_title(title.clone());
    }
    if let Some(description) = &inner.description {
        implementation = implementation.with_description(description.clone());
    }
    // Prompts and resources are declared (and empty) so clients and the conformance suite see
    // the empty lists the server answers with as declared capabilities.
    ServerConfig::new(
        ServerCapabilities::builder()
            .enable_tools()
            .enable_prompts()
            .enable_resources()
            .build(),
    )
    .with_server_info(implementation)
}

impl McpHandler {
    /// A handler whose caller is `principal`, or, when `None`, is read from each request.
    pub(crate) fn new(inner: Arc<Inner>, principal: Option<Principal>) -> Self {
        Self {
            inner,
            principal: principal.map(Arc::new),
            credential: None,
        }
    }

    /// The same handler, whose fixed principal presented `credential`.
    pub(crate) fn with_credential(mut self, credential: Option<CallerCredential>) -> Self {
        self.credential = credential;
        self
    }

    /// The context of one call: its request id, the caller's credential (fixed, or put into
    /// the HTTP request's extensions by the auth layer) and the headers to forward.
    fn call_context(&self, ctx: &RequestContext<RoleServer>) -> CallContext {
        let mut call = CallContext::new().with_request_id(ctx.id.to_string());
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
            Content::Resource {
                uri,
                mime_type,
                blob,
            } => ContentBlock::resource(
                rmcp::model::ResourceContents::blob(blob, uri).with_mime_type(mime_type),
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

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self
            .inner
            .catalog
            .visible(self.principal(&context))
            .into_iter()
            .map(|entry| entry.listed.clone())
            .collect();
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
        let answer = pipeline::call_tool(
            &self.inner,
            principal,
            &request.name,
            request.arguments,
            call,
        )
        .await;
        match answer {
            Answer::Result(result) => Ok(to_call_tool_result(result).into()),
            Answer::UnknownTool => Err(ErrorData::invalid_params(
                pipeline::unknown_tool_message(&request.name),
                None,
            )),
        }
    }
}
