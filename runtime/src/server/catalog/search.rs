//! Search mode: `tools/list` shows three meta-tools (and the pinned tools) instead of every
//! tool. `search_tools` finds tools in the index, `describe_tools` returns their definitions,
//! and `call_tool` runs one through the same pipeline as a direct `tools/call`, so visibility,
//! rate limits, argument validation and audit apply to the inner tool. This module sets search
//! mode up and lists the meta-tools; `search_call` answers their calls.
//!
//! A principal sees in search results and descriptions exactly the tools it may call; a
//! hidden tool is reported like an unknown one everywhere.

use std::sync::Arc;

use rmcp::model::Tool;
use serde_json::json;

#[cfg(feature = "code-mode")]
use super::meta_tool::listed_tool;
use super::meta_tool::{DESCRIBE_TOOL, MetaTool, describe_tool, meta_tool};
use super::schema::validate::ArgsValidator;
use super::table::Catalog;
use crate::search::{SEARCH_TOOL, SearchIndex, index_tools};
use crate::server::error::ConfigProblem;
use mcpgen_contract::toolset::ToolSet;
use mcpgen_identity::principal::Principal;

/// Name of the meta-tool that calls a tool by name.
pub const CALL_TOOL: &str = "call_tool";

/// Results `search_tools` returns unless asked for another number.
pub(crate) const DEFAULT_LIMIT: u64 = 10;
/// Most results one search returns.
pub(crate) const MAX_LIMIT: u64 = 50;

/// Which meta-tool a call names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Meta {
    Search,
    Describe,
    Call,
    /// Code mode's `execute`.
    #[cfg(feature = "code-mode")]
    Execute,
}

/// Everything search mode adds to a server.
pub(crate) struct SearchMode {
    /// One index per tool set that has tools.
    pub(crate) indexes: Vec<SearchIndex>,
    /// Catalogue indices of the pinned tools, in catalogue order.
    pinned: Vec<usize>,
    meta: Vec<(Meta, MetaTool)>,
    /// Set in code mode.
    #[cfg(feature = "code-mode")]
    pub(crate) code: Option<mcpgen_code::CodeMode>,
    /// Code mode: whether `execute`'s description carries the declarations of the tools a
    /// caller may call (those of every tool fit in its limit).
    #[cfg(feature = "code-mode")]
    inline_declarations: bool,
}

impl std::fmt::Debug for SearchMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchMode")
            .field("indexes", &self.indexes.len())
            .field("pinned", &self.pinned)
            .finish_non_exhaustive()
    }
}

impl SearchMode {
    /// Prepares search mode over `catalog`: loads or builds each tool set's index, resolves
    /// the pins and checks that no served tool is named like a meta-tool. With `code`, the
    /// mode is code mode: `execute` takes the place of `call_tool`.
    pub(crate) fn build(
        sets: &[Arc<dyn ToolSet>],
        catalog: &Catalog,
        pins: &[String],
        #[cfg(feature = "code-mode")] code: Option<mcpgen_code::CodeMode>,
    ) -> Result<Self, Vec<ConfigProblem>> {
        #[cfg(feature = "code-mode")]
        let meta_names: &[&str] = match code {
            Some(_) => &[SEARCH_TOOL, DESCRIBE_TOOL, mcpgen_code::EXECUTE_TOOL],
            None => &[SEARCH_TOOL, DESCRIBE_TOOL, CALL_TOOL],
        };
        #[cfg(not(feature = "code-mode"))]
        let meta_names: &[&str] = &[SEARCH_TOOL, DESCRIBE_TOOL, CALL_TOOL];
        let mut problems = Vec::new();
        for entry in catalog.entries() {
            if meta_names.contains(&entry.def.name) {
                problems.push(ConfigProblem::MetaToolCollision {
                    tool: entry.def.name.to_owned(),
                    set: entry.set + 1,
                    operation: entry.def.http.map(|h| {
                        format!("{} {} (operationId `{}`)", h.method, h.path, h.operation_id)
                    }),
                });
            }
        }
        let mut indexes = Vec::new();
        for (i, set) in sets.iter().enumerate() {
            let index = match set.search_index() {
                Some(text) => match SearchIndex::parse(text) {
                    Ok(index) => index,
                    Err(error) => {
                        problems.push(ConfigProblem::InvalidSearchIndex {
                            set: i + 1,
                            message: error.to_string(),
                        });
                        continue;
                    }
                },
                None => index_tools(set.tools()),
            };
            if let Some(missing) = set
                .tools()
                .iter()
                .find(|t| !index.tools().any(|n| n == t.name))
            {
                problems.push(ConfigProblem::InvalidSearchIndex {
                    set: i + 1,
                    message: format!(
                        "tool `{}` is served but not indexed: the index was built for other tools; regenerate the crate",
                        missing.name
                    ),
                });
            }
            indexes.push(index);
        }
        let mut pinned = Vec::new();
        for pin in pins {
            match catalog.index_of(pin) {
                Some(i) => {
                    if !pinned.contains(&i) {
                        pinned.push(i);
                    }
                }
                None => {
                    let closest = indexes
                        .iter()
                        .flat_map(|index| index.search(pin, |_| true, 3))
                        .map(|hit| hit.name.to_owned())
                        .take(3)
                        .collect();
                    problems.push(ConfigProblem::UnknownPinnedTool {
                        tool: pin.clone(),
                        closest,
                    });
                }
            }
        }
        pinned.sort_unstable();
        if !problems.is_empty() {
            return Err(problems);
        }
        let count = catalog.entries().len();
        #[cfg(feature = "code-mode")]
        if let Some(code) = code {
            let declarations = all_declarations(catalog, code.limits());
            return Ok(Self {
                indexes,
                pinned,
                meta: code_meta_tools(count, code.limits(), declarations.as_deref()),
                inline_declarations: declarations.is_some(),
                code: Some(code),
            });
        }
        let meta = vec![
            (
                Meta::Search,
                meta_tool(
                    SEARCH_TOOL,
                    format!(
                        "Find tools of this server ({count} in all) for a task described in a few words. Returns each match's name, one-line description and access (read or write), best first. Then use `{DESCRIBE_TOOL}` for a tool's argument schema and `{CALL_TOOL}` to run it."
                    ),
                    json!({
                        "type": "object",
                        "properties": {
                            "query": {"type": "string", "minLength": 1, "description": "What you want to do, e.g. `star a repository`"},
                            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT, "description": "Most results to return"}
                        },
                        "required": ["query"],
                        "additionalProperties": false
                    }),
                    true,
                ),
            ),
            (
                Meta::Describe,
                describe_tool(format!(
                    "Full definitions of tools found with `{SEARCH_TOOL}`: description, input schema and output schema. Names that are not tools are listed under `unknown`."
                )),
            ),
            (
                Meta::Call,
                meta_tool(
                    CALL_TOOL,
                    format!(
                        "Call a tool found with `{SEARCH_TOOL}` by name, with arguments that match the input schema `{DESCRIBE_TOOL}` returns. The result is the tool's own."
                    ),
                    json!({
                        "type": "object",
                        "properties": {
                            "name": {"type": "string", "description": "The tool's name"},
                            "arguments": {"type": "object", "description": "The tool's arguments"}
                        },
                        "required": ["name"],
                        "additionalProperties": false
                    }),
                    false,
                ),
            ),
        ];
        Ok(Self {
            indexes,
            pinned,
            meta,
            #[cfg(feature = "code-mode")]
            code: None,
            #[cfg(feature = "code-mode")]
            inline_declarations: false,
        })
    }

    /// Which meta-tool `name` is, if any.
    pub(crate) fn meta_tool(&self, name: &str) -> Option<Meta> {
        self.meta
            .iter()
            .find(|(_, tool)| tool.listed.name == name)
            .map(|(meta, _)| *meta)
    }

    /// The search-mode `tools/list`: the meta-tools, then the pinned tools `principal` may
    /// call (nothing without a principal).
    pub(crate) fn listed(&self, catalog: &Catalog, principal: Option<&Principal>) -> Vec<Tool> {
        let Some(principal) = principal else {
            return Vec::new();
        };
        self.meta
            .iter()
            .map(|(meta, m)| {
                #[cfg(feature = "code-mode")]
                if *meta == Meta::Execute {
                    return self.execute_for(&m.listed, catalog, principal);
                }
                let _ = meta;
                m.listed.clone()
            })
            .chain(
                self.pinned
                    .iter()
                    .filter_map(|&i| catalog.entries().get(i))
                    .filter(|e| principal.may_call(e.def))
                    .map(|e| e.listed.clone()),
            )
            .collect()
    }

    /// `execute` as `principal` sees it: when its description carries declarations, only
    /// those of the tools `principal` may call.
    #[cfg(feature = "code-mode")]
    fn execute_for(&self, listed: &Tool, catalog: &Catalog, principal: &Principal) -> Tool {
        let (Some(code), true) = (&self.code, self.inline_declarations) else {
            return listed.clone();
        };
        if catalog.entries().iter().all(|e| principal.may_call(e.def)) {
            return listed.clone();
        }
        let visible: Vec<&mcpgen_core::tool::ToolDef> = catalog
            .entries()
            .iter()
            .filter(|e| principal.may_call(e.def))
            .map(|e| e.def)
            .collect();
        let declarations = mcpgen_core::typescript::declarations_for(&visible);
        let mut tool = listed.clone();
        tool.description = Some(std::borrow::Cow::Owned(mcpgen_code::execute_description(
            code.limits(),
            Some(&declarations),
        )));
        tool
    }

    pub(crate) fn validator(&self, meta: Meta) -> Option<&ArgsValidator> {
        self.meta
            .iter()
            .find(|(m, _)| *m == meta)
            .and_then(|(_, t)| t.validator.as_ref())
    }
}

/// The meta-tools of code mode over a catalog of `count` tools, programs running under
/// `limits`; `execute`'s description carries `declarations` if they fit.
#[cfg(feature = "code-mode")]
fn code_meta_tools(
    count: usize,
    limits: &mcpgen_code::CodeLimits,
    declarations: Option<&str>,
) -> Vec<(Meta, MetaTool)> {
    let [search, describe, execute] = mcpgen_code::listed(count, limits, declarations);
    vec![
        (Meta::Search, listed_tool(search)),
        (Meta::Describe, listed_tool(describe)),
        (Meta::Execute, listed_tool(execute)),
    ]
}

/// The declarations of every tool of `catalog`, if they fit in what `execute`'s description
/// may carry under `limits`.
#[cfg(feature = "code-mode")]
fn all_declarations(catalog: &Catalog, limits: &mcpgen_code::CodeLimits) -> Option<String> {
    // The signatures alone are a lower bound: a large API is turned down without putting
    // its declarations together.
    let signatures: usize = catalog
        .entries()
        .iter()
        .map(|e| e.def.declaration.map_or(0, |d| d.signature.len()))
        .sum();
    if signatures > limits.inline_declarations {
        return None;
    }
    let defs: Vec<&mcpgen_core::tool::ToolDef> = catalog.entries().iter().map(|e| e.def).collect();
    let all = mcpgen_core::typescript::declarations_for(&defs);
    mcpgen_code::inlined(limits, Some(&all))
        .is_some()
        .then_some(all)
}
