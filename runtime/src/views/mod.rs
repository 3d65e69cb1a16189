//! Views (MCP Apps, `io.modelcontextprotocol/ui`) of the served tools.
//!
//! A tool whose [`ToolDef::view`] is set has a view at `ui://<server>/<view>`. Only clients
//! that declared the extension (`capabilities.extensions["io.modelcontextprotocol/ui"]`, in
//! `initialize` or, in the stateless 2026-07-28 era, in each request's client capabilities)
//! see `_meta.ui.resourceUri` on those tools; other clients get the tool entries unchanged.
//! `resources/read` of a view's URI answers its HTML document (`text/html;profile=mcp-app`),
//! assembled from the view's layout and the shared renderer, with `_meta.ui.csp` saying what
//! the document's own policy says (it loads nothing). A principal that may not call a tool
//! cannot read its view: the URI answers as an unknown resource would. The views stay out of
//! `resources/list`, as the extension allows.

use std::collections::HashMap;

use rmcp::model::{
    CacheScope, ClientCapabilities, JsonObject, MetaObject, ReadResourceResult, ResourceContents,
    Tool,
};
use serde_json::{Value, json};

use mcpgen_core::tool::ToolDef;
use mcpgen_core::view::html::CSP_DOMAINS;
use mcpgen_core::view::{EXTENSION_ID, MIME_TYPE, ViewDef, document, resource_uri};
use mcpgen_identity::principal::Principal;

/// How long a client may cache a view's document: the views are fixed at start-up.
const VIEW_TTL_MS: u64 = 60_000;

/// The views of one catalog.
#[derive(Debug, Default)]
pub(crate) struct Views {
    /// Each view by its URI, with the tool it shows.
    by_uri: HashMap<String, (&'static ToolDef, &'static ViewDef)>,
    /// Each tool's `_meta` naming its view, by tool name.
    meta_by_tool: HashMap<&'static str, MetaObject>,
    /// Whether views are on (off with `--no-ui`).
    enabled: bool,
}

impl Views {
    /// The views of `defs`, served by the server `server`; none when `enabled` is off
    /// (`--no-ui`).
    pub(crate) fn build<'a>(
        server: &str,
        defs: impl IntoIterator<Item = &'a &'static ToolDef>,
        enabled: bool,
    ) -> Self {
        let mut views = Self {
            enabled,
            ..Self::default()
        };
        if !enabled {
            return views;
        }
        for def in defs {
            let Some(view) = def.view else { continue };
            let uri = resource_uri(server, view.name);
            let mut meta = MetaObject::new();
            meta.insert("ui".into(), json!({ "resourceUri": uri }));
            views.meta_by_tool.insert(def.name, meta);
            views.by_uri.insert(uri, (*def, view));
        }
        views
    }

    /// Whether views are on (catalogs mounted later follow the server's setting).
    pub(crate) fn enabled(&self) -> bool {
        self.enabled
    }

    /// Whether no tool has a view.
    pub(crate) fn is_empty(&self) -> bool {
        self.by_uri.is_empty()
    }

    /// `tools` as a client with the extension sees them: each tool with a view names it in
    /// `_meta.ui.resourceUri`.
    pub(crate) fn decorate(&self, tools: &mut [Tool]) {
        if self.is_empty() {
            return;
        }
        for tool in tools {
            if let Some(meta) = self.meta_by_tool.get(tool.name.as_ref()) {
                let mut merged = tool.meta.take().unwrap_or_default();
                for (key, value) in meta.iter() {
                    merged.insert(key.clone(), value.clone());
                }
                tool.meta = Some(merged);
            }
        }
    }

    /// The `resources/read` answer for `uri`, when it names the view of a tool `principal`
    /// may call (none without a principal).
    pub(crate) fn read(
        &self,
        uri: &str,
        principal: Option<&Principal>,
    ) -> Option<ReadResourceResult> {
        let (def, view) = self.by_uri.get(uri)?;
        if !principal.is_some_and(|p| p.may_call(def)) {
            return None;
        }
        let csp: serde_json::Map<String, Value> = CSP_DOMAINS
            .iter()
            .map(|name| ((*name).to_owned(), Value::Array(Vec::new())))
            .collect();
        let mut meta = MetaObject::new();
        meta.insert("ui".into(), json!({ "csp": csp, "prefersBorder": true }));
        let contents = ResourceContents::TextResourceContents {
            uri: uri.to_owned(),
            mime_type: Some(MIME_TYPE.to_owned()),
            text: document(view.layout),
            meta: Some(meta),
        };
        Some(
            ReadResourceResult::new(vec![contents])
                .with_ttl_ms(VIEW_TTL_MS)
                .with_cache_scope(CacheScope::Private),
        )
    }
}

/// Whether `capabilities` declare the extension (and, when they list media types, ours).
pub(crate) fn client_wants(capabilities: &ClientCapabilities) -> bool {
    let Some(settings) = capabilities
        .extensions
        .as_ref()
        .and_then(|extensions| extensions.get(EXTENSION_ID))
    else {
        return false;
    };
    match settings.get("mimeTypes") {
        Some(Value::Array(types)) => types.iter().any(|t| t.as_str() == Some(MIME_TYPE)),
        _ => true,
    }
}

/// Whether a request's `_meta` (stateless era), else the session's `initialize`, declared
/// the extension.
pub(crate) fn request_wants(
    meta: &rmcp::model::RequestMetaObject,
    session: Option<&ClientCapabilities>,
) -> bool {
    match meta.client_capabilities() {
        Some(capabilities) => client_wants(&capabilities),
        None => session.is_some_and(client_wants),
    }
}

/// The server's declaration of the extension, for `capabilities.extensions`.
pub(crate) fn declaration() -> (String, JsonObject) {
    (EXTENSION_ID.to_owned(), JsonObject::new())
}
