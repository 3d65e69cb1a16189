//! `execute`: runs a program in a worker process (one of the [`Pool`]'s) and serves its inner
//! calls on the server's side (`run`), then answers with its result and writes the
//! `execute`'s audit record.
//!
//! The whole `execute` runs as a task of its own: a client that goes away cancels the
//! program (its worker is told to stop, and killed a grace later) but never the inner calls
//! already made or the record, which is written after theirs, with `inner_calls` counting
//! exactly the calls the server made. Slots ([`Slots`]) are taken before the program starts,
//! within its deadline, and given back when its worker has stopped or been killed.

use std::sync::Arc;
use std::time::Instant;

use mcpgen_audit::{AuditEvent, AuditSink, AuditStatus, args_digest, now_rfc3339};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use tracing::Instrument;

use crate::host::Host;
use crate::inner::Parent;
use crate::limits::CodeLimits;
use crate::listing::EXECUTE_TOOL;
use crate::pool::Pool;
use crate::report::{Failure, well_formed};
use crate::run::{Ran, run};
use crate::slots::Slots;
use mcpgen_contract::toolset::CallContext;
use mcpgen_core::result::{Content, ToolResult};
use mcpgen_identity::principal::Principal;

/// Code mode's share of one catalog: its limits, the slots of programs running at once and
/// the worker processes they run in.
#[derive(Debug, Clone)]
#[doc(hidden)]
pub struct CodeMode {
    limits: CodeLimits,
    slots: Arc<Slots>,
    pool: Arc<Pool>,
}

impl CodeMode {
    /// Code mode with `limits`, once a first worker has answered as one.
    #[doc(hidden)]
    pub fn new(limits: CodeLimits) -> Result<Self, String> {
        let pool = Arc::new(Pool::new(limits.clone())?);
        Ok(Self {
            slots: Arc::new(Slots::new(&limits)),
            limits,
            pool,
        })
    }

    /// The limits programs run under.
    #[doc(hidden)]
    pub fn limits(&self) -> &CodeLimits {
        &self.limits
    }
}

/// Answers an `execute` of `principal` with `args` (already checked against its schema).
#[doc(hidden)]
pub async fn execute(
    host: Arc<dyn Host>,
    mode: &CodeMode,
    principal: &Principal,
    args: &Value,
    ctx: CallContext,
) -> ToolResult {
    let code = args
        .get("code")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let task = answer_and_record(host, mode.clone(), principal.clone(), code, ctx)
        .instrument(tracing::Span::current());
    match tokio::spawn(task).await {
        Ok(answer) => answer,
        Err(error) => ToolResult::error(format!("the program could not be run: {error}")),
    }
}

async fn answer_and_record(
    host: Arc<dyn Host>,
    mode: CodeMode,
    principal: Principal,
    code: String,
    ctx: CallContext,
) -> ToolResult {
    let _in_flight = host.in_flight();
    let started = Instant::now();
    let time = now_rfc3339();
    let call_id: Arc<str> = mcpgen_audit::new_call_id().into();
    let deadline = started + mode.limits.timeout;
    let request_id = ctx.request_id.clone();
    let trace_id = ctx.trace.as_ref().map(|t| t.trace_id());
    let ran = match mode.slots.take(&principal.id, deadline).await {
        Ok(slot) => {
            let parent = Arc::new(Parent {
                host: Arc::clone(&host),
                principal: principal.clone(),
                ctx,
                call_id: Arc::clone(&call_id),
                deadline,
            });
            let ran = run(&parent, &mode.pool, &mode.limits, &code).await;
            drop(slot);
            ran
        }
        Err(limit) => Ran {
            result: Err(Failure::Limit(limit)),
            logs: Vec::new(),
            calls: 0,
        },
    };
    let (result, status, error) = answer(ran.result, ran.logs, &mode.limits);
    host.execute_finished(&crate::listing::EXECUTE, status, started.elapsed());
    let span = tracing::Span::current();
    if !span.is_none() {
        span.record("status", status.as_str());
        span.record("principal", principal.id.as_str());
    }
    if host.audit().keeps_records() {
        let mut arguments = Map::new();
        arguments.insert("code".to_owned(), Value::String(code.clone()));
        let keep_args = host.audit_args();
        let event = AuditEvent {
            code_sha256: Some(sha256_hex(code.as_bytes())),
            inner_calls: Some(ran.calls),
            ..AuditEvent::new(
                call_id.to_string(),
                time,
                EXECUTE_TOOL.to_owned(),
                status,
                args_digest(&arguments),
            )
            .by(Some(principal.id.as_str()), principal.key_id.as_deref())
            .took(started.elapsed())
            .args_if(keep_args, || arguments)
            .failed(error.as_deref())
            .request(request_id, trace_id)
        };
        host.audit().record(event).await;
    }
    result
}

/// The `execute` result of a program's outcome, its audit status, and its error text.
fn answer(
    result: Result<String, Failure>,
    logs: Vec<String>,
    limits: &CodeLimits,
) -> (ToolResult, AuditStatus, Option<String>) {
    let failure = match result.map(|json| serde_json::from_str::<Value>(&well_formed(&json))) {
        Ok(Ok(value)) => {
            let structured = json!({ "result": value, "logs": logs });
            let text = structured.to_string();
            let result = ToolResult {
                content: vec![Content::Text(text)],
                structured_content: Some(structured),
                is_error: false,
            };
            return (result, AuditStatus::Ok, None);
        }
        Ok(Err(error)) => Failure::NotJson(error.to_string()),
        Err(failure) => failure,
    };
    let (message, status) = failure.report(limits);
    let mut text = message.clone();
    if !logs.is_empty() {
        text.push_str("\nlogs:");
        for line in &logs {
            text.push('\n');
            text.push_str(line);
        }
    }
    (ToolResult::error(text), status, Some(message))
}

/// SHA-256 of `bytes`, in lowercase hex.
fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}
