//! Runtime tool tables built in-process from the IR, for previews and tests.
//!
//! A generated crate holds its tool table as `static` items; [`tool_defs`] builds the same
//! [`ToolDef`]s at run time, so a program (or a test) can prepare or send a tool's upstream
//! request with `mcpgen_runtime` without generating and compiling a crate. Test support: the
//! engine itself does not depend on the runtime.
//!
//! The runtime's tables borrow `'static` strings, so every string is leaked: each call leaks
//! memory in proportion to the tools' size. Call it once per spec, not per request.

use mcpgen_runtime::{
    ArgBinding, BodyBinding, HttpBinding, Location, PropertyEncoding, ToolAnnotations, ToolDef,
};

use mcpgen_codegen::ir;

/// The runtime tool table for `tools`, as the generated `TOOLS` would hold it (leaking every
/// string and slice; see the module documentation).
/// Full schemas are left out: see [`server_tool_defs`].
pub fn tool_defs(tools: &[ir::Tool]) -> Vec<ToolDef> {
    tools.iter().map(|t| tool_def(t, None)).collect()
}

/// The runtime tool table of `server`, each full schema standing on its own (its shared
/// definitions attached).
pub fn server_tool_defs(server: &ir::Server) -> Vec<ToolDef> {
    server
        .tools
        .iter()
        .map(|t| tool_def(t, Some(server)))
        .collect()
}

/// One tool's runtime definition (leaking its strings), with its full schemas when `server`
/// is given.
pub fn tool_def(tool: &ir::Tool, server: Option<&ir::Server>) -> ToolDef {
    let http = &tool.http;
    let args: Vec<ArgBinding> = http
        .args
        .iter()
        .map(|a| ArgBinding {
            arg: leak(&a.arg),
            wire: leak(&a.wire),
            location: location(a.location),
            required: a.required,
            style: leak_opt(a.style.as_deref()),
            explode: a.explode,
            allow_reserved: a.allow_reserved,
        })
        .collect();
    let body = http.body.as_ref().map(|b| {
        let encoding: Vec<PropertyEncoding> = b
            .encoding
            .iter()
            .map(|e| PropertyEncoding {
                property: leak(&e.property),
                content_type: leak_opt(e.content_type.as_deref()),
                style: leak_opt(e.style.as_deref()),
                explode: e.explode,
                allow_reserved: e.allow_reserved,
            })
            .collect();
        BodyBinding {
            content_type: leak(&b.content_type),
            required: b.required,
            encoding: Vec::leak(encoding),
        }
    });
    let security: Vec<&'static str> = http.security.iter().map(|s| leak(s)).collect();
    ToolDef {
        name: leak(&tool.name),
        title: leak_opt(tool.title.as_deref()),
        description: leak(&tool.description),
        input_schema: leak(&tool.input_schema.to_string()),
        output_schema: tool
            .output_schema
            .as_ref()
            .map(|schema| leak(&schema.to_string())),
        full_input_schema: server
            .and_then(|s| s.full_input_schema(tool))
            .map(|schema| leak(&schema.to_string())),
        full_output_schema: server
            .and_then(|s| s.full_output_schema(tool))
            .map(|schema| leak(&schema.to_string())),
        full_defs: None,
        documented_output_schema: tool
            .documented_output_schema
            .as_ref()
            .map(|schema| leak(&schema.to_string())),
        wrap_output: tool.wrap_output,
        access: match tool.access {
            ir::Access::Read => mcpgen_runtime::Access::Read,
            ir::Access::Write => mcpgen_runtime::Access::Write,
        },
        annotations: ToolAnnotations {
            read_only_hint: tool.annotations.read_only,
            destructive_hint: tool.annotations.destructive,
            idempotent_hint: tool.annotations.idempotent,
            open_world_hint: tool.annotations.open_world,
        },
        confirm: false,
        required_scope: leak_opt(tool.required_scope.as_deref()),
        plugin: leak_opt(tool.plugin.as_deref()),
        http: Some(HttpBinding {
            method: leak(&http.method),
            path: leak(&http.path),
            operation_id: leak(&http.operation_id),
            args: Vec::leak(args),
            body,
            security: Vec::leak(security),
            server_url: leak_opt(http.server_url.as_deref()),
            task: http.task,
            cancel: Vec::leak(http.cancel.iter().map(|p| leak(p)).collect()),
        }),
        declaration: None,
        view: None,
    }
}

fn leak(text: &str) -> &'static str {
    String::leak(text.to_owned())
}

fn leak_opt(text: Option<&str>) -> Option<&'static str> {
    text.map(leak)
}

fn location(location: ir::ArgLocation) -> Location {
    match location {
        ir::ArgLocation::Path => Location::Path,
        ir::ArgLocation::Query => Location::Query,
        ir::ArgLocation::Header => Location::Header,
        ir::ArgLocation::Cookie => Location::Cookie,
        ir::ArgLocation::BodyField => Location::BodyField,
        ir::ArgLocation::Body => Location::Body,
    }
}
