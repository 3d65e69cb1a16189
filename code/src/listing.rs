//! What code mode lists: `search_tools`, `describe_tools` and `execute`, with descriptions
//! that teach a model to write a program. Their size does not depend on how many tools the
//! API has, but for one thing: when the TypeScript declarations of all the tools a caller may
//! call fit in [`CodeLimits::inline_declarations`] bytes, `execute`'s description ends with
//! them, so that a model can write its program without asking for them first.

use std::sync::Arc;

use mcpgen_core::tool::{DESCRIBE_TOOLS, SEARCH_TOOL};
use rmcp::model::Tool;
use serde_json::json;

use crate::limits::CodeLimits;
use mcpgen_contract::wire::{describe_listing, meta_listing};
#[cfg(feature = "code-mode")]
use mcpgen_core::tool::{ToolAnnotations, ToolDef};

/// Name of the meta-tool that runs a program, in what is listed with or without the engine.
const EXECUTE_NAME: &str = "execute";

/// Name of the meta-tool that returns full tool definitions.
const DESCRIBE_NAME: &str = DESCRIBE_TOOLS.name;

/// Name of the meta-tool that runs a program.
#[cfg(feature = "code-mode")]
#[doc(hidden)]
pub const EXECUTE_TOOL: &str = EXECUTE_NAME;

/// `execute` as the metrics name it (its `tool` label).
#[cfg(feature = "code-mode")]
pub(crate) const EXECUTE: ToolDef = ToolDef::new(
    EXECUTE_NAME,
    "Runs a JavaScript program against the tools.",
    r#"{"type":"object","properties":{"code":{"type":"string"}},"required":["code"]}"#,
)
.annotations(ToolAnnotations::NONE.read_only(false).open_world(true));

/// Longest program accepted, in bytes.
const MAX_CODE_BYTES: usize = 100_000;

/// The `tools/list` result of a code-mode server over `count` tools whose programs run under
/// `limits`, with no pinned tools: `{"tools":[…]}` as compact JSON, the three meta-tools as
/// the server lists them, `execute`'s description carrying `declarations` (the tools' own,
/// as [`mcpgen_core::typescript::declarations_for`] puts them together) if they fit in
/// [`CodeLimits::inline_declarations`]. Available without the `code-mode` feature (its size
/// is what `mcpgen sizes` reports).
pub fn tools_list_json(count: usize, limits: &CodeLimits, declarations: Option<&str>) -> String {
    let tools = listed(count, limits, declarations);
    serde_json::to_string(&json!({ "tools": tools })).unwrap_or_default()
}

/// `declarations` if `execute`'s description may carry them under `limits`.
#[doc(hidden)]
pub fn inlined<'a>(limits: &CodeLimits, declarations: Option<&'a str>) -> Option<&'a str> {
    declarations.filter(|d| !d.is_empty() && d.len() <= limits.inline_declarations)
}

/// `execute`'s description for programs running under `limits`, ending with `declarations`
/// if they fit.
#[doc(hidden)]
pub fn execute_description(limits: &CodeLimits, declarations: Option<&str>) -> String {
    let mut description = format!(
        "Run a JavaScript program that calls this server's tools, and get back only what \
         it returns: one call instead of a round trip per tool call. The code is the body \
         of an async function. `await tools.NAME(args)` calls a tool and returns the \
         API's response as parsed JSON (null for no content, a string for a non-JSON \
         body); a failed call throws an Error (catch it to go on). `return` the value you \
         need; `console.log` lines come back in `logs`. Plain JavaScript only: no \
         TypeScript, imports, require, fetch or timers. Each run starts fresh and may take \
         {} s, {} tool calls and {} KiB of result and logs. Example:\n\
         const page = await tools.list_items({{limit: 50}});\n\
         const open = page.items.filter(i => i.state === \"open\");\n\
         const details = await Promise.all(open.map(i => tools.get_item({{id: i.id}})));\n\
         return details.map(d => ({{id: d.id, owner: d.owner}}));",
        limits.timeout.as_secs_f64(),
        limits.max_calls,
        limits.max_output / 1024,
    );
    if let Some(declarations) = inlined(limits, declarations) {
        description.push_str(
            "\n\nEvery tool you may call is declared below (TypeScript, for reading): write \
             the program from these, without `search_tools` or `describe_tools`.\n\n",
        );
        description.push_str(declarations);
    }
    description
}

/// The listings of `search_tools`, `describe_tools` and `execute` over `count` tools,
/// programs running under `limits`, `execute`'s description carrying `declarations` if they
/// fit (see [`inlined`]); the server pairs each with the validator of its arguments
/// (`server/catalog/search.rs`).
#[doc(hidden)]
pub fn listed(count: usize, limits: &CodeLimits, declarations: Option<&str>) -> [Tool; 3] {
    let search = meta_listing(
        SEARCH_TOOL,
        format!(
            "Find tools of this server ({count} in all) for a task described in a few words. \
             Returns each match's name, one-line description and access (read or write), best \
             first. Then use `{DESCRIBE_NAME}` for their declarations and `{EXECUTE_NAME}` to \
             run a program that calls them."
        ),
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "description": "What you want to do, e.g. `list open tickets`"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10, "description": "Most results to return"}
            },
            "required": ["query"],
            "additionalProperties": false
        }),
        true,
    );
    let describe = describe_listing(format!(
        "TypeScript declarations of tools found with `{SEARCH_TOOL}`, for `{EXECUTE_NAME}` \
         programs: each tool's `declaration` (arguments and return type, with the \
         descriptions as doc comments) and its full input and output schemas. Names that are \
         not tools are listed under `unknown`."
    ));
    let mut execute = meta_listing(
        EXECUTE_NAME,
        execute_description(limits, declarations),
        json!({
            "type": "object",
            "properties": {
                "code": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_CODE_BYTES,
                    "description": "The body of an async function, with `tools` and `console` in scope"
                }
            },
            "required": ["code"],
            "additionalProperties": false
        }),
        false,
    );
    let output = json!({
        "type": "object",
        "properties": {
            "result": {"description": "The program's return value"},
            "logs": {"type": "array", "items": {"type": "string"}, "description": "Lines the program wrote with console.log"}
        },
        "required": ["result", "logs"]
    });
    if let serde_json::Value::Object(map) = output {
        execute.output_schema = Some(Arc::new(map));
    }
    [search, describe, execute]
}
