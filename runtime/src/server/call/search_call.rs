//! Answers calls of the search-mode meta-tools (see `search`): `search_tools`,
//! `describe_tools`, and `call_tool`, which runs the named tool through the pipeline.
//!
//! A principal sees in search results and descriptions exactly the tools it may call; a
//! hidden tool is reported like an unknown one everywhere.
//!
//! In code mode, `describe_tools` adds each tool's declaration, and `execute` runs a program
//! (`crate::code`) with the server as its [`Host`](mcpgen_code::Host): each inner call goes
//! through `pipeline::call_inner`.

use std::sync::Arc;

use mcpgen_core::result::ToolResult;
use mcpgen_core::tool::Access;
use mcpgen_identity::Principal;
use serde_json::{Map, Value, json};

use super::pipeline::{self, Answer};
use crate::server::catalog::describe::{self, structured};
use crate::server::catalog::live::Served;
use crate::server::catalog::search::{DEFAULT_LIMIT, MAX_LIMIT, Meta, SearchMode};
use crate::server::catalog::table::Catalog;
use crate::server::state::inner::Inner;
use mcpgen_contract::toolset::CallContext;

/// Longest one-line description in search results, in characters.
const SUMMARY_CHARS: usize = 160;

/// A meta-tool call's answer, with the name an unknown-tool error names: the meta-tool's, or
/// for `call_tool` the inner tool's.
pub(crate) struct Routed {
    pub(crate) name: String,
    pub(crate) answer: Answer,
}

/// Answers a call of the meta-tool `meta` of the search mode of `served` (the tools served
/// when the call began).
pub(crate) async fn answer(
    inner: &Arc<Inner>,
    served: &Served,
    principal: Option<&Principal>,
    meta: Meta,
    name: &str,
    args: Option<Map<String, Value>>,
    ctx: CallContext,
) -> Routed {
    let routed = |answer| Routed {
        name: name.to_owned(),
        answer,
    };
    let (Some(principal), Some(mode)) = (principal, &served.search) else {
        return routed(Answer::UnknownTool);
    };
    let catalog = &served.catalog;
    let args = Value::Object(args.unwrap_or_default());
    if let Some(validator) = mode.validator(meta)
        && let Err(problem) = validator.check(&args)
    {
        return routed(Answer::Result(ToolResult::error(format!(
            "invalid arguments for tool `{name}`: {problem}"
        ))));
    }
    match meta {
        Meta::Search => {
            let query = args
                .get("query")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let limit = args
                .get("limit")
                .and_then(Value::as_u64)
                .unwrap_or(DEFAULT_LIMIT)
                .clamp(1, MAX_LIMIT);
            routed(Answer::Result(search(
                catalog, mode, principal, query, limit,
            )))
        }
        #[cfg(feature = "code-mode")]
        Meta::Describe if mode.code.is_some() => routed(Answer::Result(describe::answer_declared(
            catalog, principal, &args,
        ))),
        Meta::Describe => routed(Answer::Result(describe::answer(catalog, principal, &args))),
        #[cfg(feature = "code-mode")]
        Meta::Execute => {
            let answer = match &mode.code {
                Some(code) => {
                    let host: Arc<dyn mcpgen_code::Host> = Arc::<Inner>::clone(inner);
                    Answer::Result(mcpgen_code::execute(host, code, principal, &args, ctx).await)
                }
                None => Answer::UnknownTool,
            };
            routed(answer)
        }
        Meta::Call => {
            let Value::Object(mut args) = args else {
                return routed(Answer::UnknownTool);
            };
            let target = match args.remove("name") {
                Some(Value::String(target)) => target,
                _ => return routed(Answer::UnknownTool),
            };
            let arguments = match args.remove("arguments") {
                Some(Value::Object(arguments)) => Some(arguments),
                _ => None,
            };
            let answer = pipeline::call_tool(inner, Some(principal), &target, arguments, ctx).await;
            Routed {
                name: target,
                answer,
            }
        }
    }
}

/// The best `limit` tools for `query` that `principal` may call, across every index.
fn search(
    catalog: &Catalog,
    mode: &SearchMode,
    principal: &Principal,
    query: &str,
    limit: u64,
) -> ToolResult {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let keep = |name: &str| catalog.get(name).is_some_and(|e| principal.may_call(e.def));
    let mut hits: Vec<_> = mode
        .indexes
        .iter()
        .flat_map(|index| index.search(query, keep, limit))
        .collect();
    hits.sort_by(|a, b| b.score.total_cmp(&a.score));
    hits.truncate(limit);
    let tools: Vec<Value> = hits
        .iter()
        .filter_map(|hit| catalog.get(hit.name))
        .map(|entry| {
            json!({
                "name": entry.def.name,
                "description": summary(entry.def.description),
                "access": match entry.def.access {
                    Access::Read => "read",
                    Access::Write => "write",
                },
            })
        })
        .collect();
    structured(json!({ "tools": tools }))
}

/// The first line of `description`, cut to [`SUMMARY_CHARS`].
fn summary(description: &str) -> String {
    let line = description
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    if line.chars().count() <= SUMMARY_CHARS {
        line.to_owned()
    } else {
        let mut cut: String = line.chars().take(SUMMARY_CHARS).collect();
        cut.push('…');
        cut
    }
}

/// The server as code mode sees it: inner calls run through the pipeline as the `execute`'s
/// caller would call them directly.
#[cfg(feature = "code-mode")]
impl mcpgen_code::Host for Inner {
    fn call<'a>(
        &'a self,
        principal: &'a Principal,
        name: &'a str,
        args: Map<String, Value>,
        ctx: CallContext,
    ) -> mcpgen_core::BoxFuture<'a, mcpgen_code::InnerAnswer> {
        use mcpgen_code::InnerAnswer;
        Box::pin(async move {
            let (answer, upstream_status) =
                pipeline::call_inner(self, principal, name, args, ctx).await;
            match answer {
                Answer::Result(result) => InnerAnswer::Result {
                    result,
                    wrapped: self
                        .tools
                        .load()
                        .catalog
                        .get(name)
                        .is_some_and(|entry| entry.def.wrap_output),
                    upstream_status,
                },
                Answer::UnknownTool => InnerAnswer::Unknown(pipeline::unknown_tool_message(name)),
                Answer::InputRequired(_) => InnerAnswer::AskedClient,
                Answer::Refused(refusal) => {
                    InnerAnswer::Refused(refusal.to_error().message.to_string())
                }
            }
        })
    }

    fn in_flight(&self) -> mcpgen_code::InFlight<'_> {
        Box::new(self.inflight.enter())
    }

    fn audit(&self) -> &mcpgen_audit::MultiSink {
        &self.audit
    }

    fn audit_args(&self) -> bool {
        self.audit_args
    }

    #[cfg(feature = "http")]
    fn max_body_bytes(&self) -> Option<usize> {
        Some(self.max_body_bytes)
    }

    #[cfg(not(feature = "http"))]
    fn max_body_bytes(&self) -> Option<usize> {
        None
    }

    fn execute_finished(
        &self,
        def: &mcpgen_core::tool::ToolDef,
        status: mcpgen_audit::AuditStatus,
        elapsed: std::time::Duration,
    ) {
        #[cfg(feature = "metrics")]
        if let Some(metrics) = self.metrics.as_deref() {
            metrics.call_finished(Some(def), status, elapsed);
        }
        #[cfg(not(feature = "metrics"))]
        let _ = (def, status, elapsed);
    }
}
