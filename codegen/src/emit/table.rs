//! The tool table as values: what `src/tools.rs` of a generated crate declares (`TOOLS`, the
//! server constants, `SECURITY_SCHEMES`, `RATE_LIMITS`, `SEARCH_INDEX`), built in memory for a
//! server made at start-up (`mcpgen serve`) instead of compiled.
//!
//! The runtime's table is `&'static [ToolDef]` of `&'static str`s, so every text here is
//! leaked: a table is built once and lives as long as the process.

use mcpgen_core::tool::{
    ArgBinding, BodyBinding, Declaration, FullDefs, HttpBinding, PropertyEncoding, SecurityScheme,
    SecuritySchemeKind, ToolAnnotations, ToolDef,
};
use mcpgen_core::view::ViewDef;

use super::{declarations, search, tools, views};
use crate::ir;

/// A server's tool table and the constants beside it, as a generated crate's `src/tools.rs`
/// and `src/search.rs` hold them.
#[derive(Debug, Clone, Copy)]
pub struct Table {
    /// `SERVER_NAME`.
    pub name: &'static str,
    /// `SERVER_VERSION`.
    pub version: &'static str,
    /// `API_TITLE`.
    pub title: &'static str,
    /// `SERVER_DESCRIPTION`.
    pub description: &'static str,
    /// `DEFAULT_UPSTREAM_URL`.
    pub default_upstream_url: Option<&'static str>,
    /// `SECURITY_SCHEMES`.
    pub security_schemes: &'static [SecurityScheme],
    /// `TOOLS`, in allowlist order.
    pub tools: &'static [ToolDef],
    /// `RATE_LIMITS`: each limited tool with its calls per second and burst.
    pub rate_limits: &'static [(&'static str, f64, f64)],
    /// `SEARCH_INDEX`, in the search index's text format.
    pub search_index: &'static str,
}

/// The table of `server` (as advertised under its profile, the IR [`super::emit`] writes
/// `src/tools.rs` from). Leaks every text it holds; build it once per process.
pub fn build(server: &ir::Server) -> Table {
    let declarations = declarations::build(server, "");
    let full_defs: Option<&'static FullDefs> =
        server.tools.iter().any(ir::Tool::is_summarised).then(|| {
            let (input, output) = tools::full_defs_texts(server);
            &*Box::leak(Box::new(FullDefs {
                input: leak(input),
                output: leak(output),
            }))
        });
    let defs = server
        .tools
        .iter()
        .enumerate()
        .map(|(i, tool)| {
            let def = tool_def(tool, full_defs);
            match declarations.values(i) {
                Some((signature, types)) => def.declaration(Box::leak(Box::new(Declaration {
                    signature: leak(signature),
                    types: leak_all(types.map(leak).collect()),
                }))),
                None => def,
            }
        })
        .collect();
    let rate_limits = server
        .tools
        .iter()
        .filter_map(|t| {
            let (per_second, burst) = t.rate_limit?;
            Some((leak(&t.name), per_second, burst))
        })
        .collect();
    Table {
        name: leak(&server.name),
        version: leak(&server.version),
        title: leak(&server.title),
        description: leak(&server.description),
        default_upstream_url: server.upstream_url.as_deref().map(leak),
        security_schemes: leak_all(server.security_schemes.iter().map(scheme).collect()),
        tools: leak_all(defs),
        rate_limits: leak_all(rate_limits),
        search_index: leak(search::index_text(server)),
    }
}

/// One tool's `ToolDef`, field by field as `tools::tool_def` writes it, without the
/// declaration.
fn tool_def(tool: &ir::Tool, full_defs: Option<&'static FullDefs>) -> ToolDef {
    let schema = |v: &serde_json::Value| leak(tools::schema_text(v));
    let mut def = ToolDef::new(
        leak(&tool.name),
        leak(&tool.description),
        schema(&tool.input_schema),
    );
    def.title = tool.title.as_deref().map(leak);
    def.output_schema = tool.output_schema.as_ref().map(schema);
    def.full_input_schema = tool.full_input_schema.as_ref().map(schema);
    def.full_output_schema = tool.full_output_schema.as_ref().map(schema);
    if tool.is_summarised() {
        def.full_defs = full_defs;
    }
    def.documented_output_schema = tool.documented_output_schema.as_ref().map(schema);
    def.wrap_output = tool.wrap_output;
    if tool.access == ir::Access::Read {
        def = def.read();
    }
    if tools::has_hints(tool.annotations) {
        def = def.annotations(hints(tool.annotations));
    }
    def.confirm = tool.confirm;
    def.required_scope = tool.required_scope.as_deref().map(leak);
    def.plugin = tool.plugin.as_deref().map(leak);
    def = def.http(http_binding(&tool.http));
    if let Some(layout) = &tool.view {
        // The text of `views/<tool>.json`, which a written crate's table includes.
        let view = ViewDef::new(def.name, leak(views::layout_file(layout)));
        def = def.view(Box::leak(Box::new(view)));
    }
    def
}

fn hints(a: ir::Annotations) -> ToolAnnotations {
    ToolAnnotations {
        read_only_hint: a.read_only,
        destructive_hint: a.destructive,
        idempotent_hint: a.idempotent,
        open_world_hint: a.open_world,
    }
}

fn http_binding(http: &ir::HttpBinding) -> HttpBinding {
    let mut binding = HttpBinding::new(
        leak(&http.method),
        leak(&http.path),
        leak(&http.operation_id),
    );
    binding.args = leak_all(http.args.iter().map(arg_binding).collect());
    binding.body = http.body.as_ref().map(body_binding);
    binding.security = leak_all(http.security.iter().map(leak).collect());
    binding.server_url = http.server_url.as_deref().map(leak);
    binding.task = http.task;
    binding.cancel = leak_all(http.cancel.iter().map(leak).collect());
    binding
}

fn arg_binding(b: &ir::ArgBinding) -> ArgBinding {
    let mut binding = ArgBinding::new(leak(&b.arg), b.location).wire(leak(&b.wire));
    binding.required = b.required;
    binding.style = b.style.as_deref().map(leak);
    binding.explode = b.explode;
    binding.allow_reserved = b.allow_reserved;
    binding
}

fn body_binding(b: &ir::BodyBinding) -> BodyBinding {
    let mut binding = BodyBinding::new(leak(&b.content_type));
    binding.required = b.required;
    binding.encoding = leak_all(
        b.encoding
            .iter()
            .map(|e| {
                let mut encoding = PropertyEncoding::new(leak(&e.property));
                encoding.content_type = e.content_type.as_deref().map(leak);
                encoding.style = e.style.as_deref().map(leak);
                encoding.explode = e.explode;
                encoding.allow_reserved = e.allow_reserved;
                encoding
            })
            .collect(),
    );
    binding
}

fn scheme(s: &ir::SecurityScheme) -> SecurityScheme {
    let kind = match &s.kind {
        ir::SecurityKind::ApiKeyHeader(n) => SecuritySchemeKind::ApiKeyHeader(leak(n)),
        ir::SecurityKind::ApiKeyQuery(n) => SecuritySchemeKind::ApiKeyQuery(leak(n)),
        ir::SecurityKind::ApiKeyCookie(n) => SecuritySchemeKind::ApiKeyCookie(leak(n)),
        ir::SecurityKind::Bearer => SecuritySchemeKind::Bearer,
        ir::SecurityKind::Basic => SecuritySchemeKind::Basic,
        ir::SecurityKind::OAuth2 => SecuritySchemeKind::OAuth2,
        ir::SecurityKind::Other => SecuritySchemeKind::Other,
    };
    SecurityScheme {
        name: leak(&s.name),
        kind,
    }
}

/// `text` for the life of the process.
fn leak(text: impl Into<String>) -> &'static str {
    Box::leak(text.into().into_boxed_str())
}

/// `items` for the life of the process.
fn leak_all<T>(items: Vec<T>) -> &'static [T] {
    Box::leak(items.into_boxed_slice())
}
