//! `execute`: runs a program on a thread of its own (one of the [`Pool`]'s) and serves its
//! inner calls on the async side, then answers with its result and writes the `execute`'s
//! audit record.
//!
//! The program's thread only runs JavaScript; every inner call it asks for runs here, in the
//! `execute`'s own task, through the call pipeline ([`inner::call`]). So a CPU-bound program
//! never holds an async worker, and an inner call is exactly a direct call. A slot among
//! [`CodeLimits::max_concurrent`] is taken before the program starts and given back when it
//! ends; a program whose task is dropped (the client went away) is told to stop.

use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::EXECUTE_TOOL;
use super::engine::{Link, Outcome, Stop};
use super::inner::{self, Parent};
use super::limits::{CodeLimits, Limit};
use super::pool::{Job, Pool};
use super::report::Failure;
use crate::audit::{AuditEvent, AuditSink, AuditStatus, args_digest, error_text, now_rfc3339};
use crate::principal::Principal;
use crate::server::for_code::{Answer, Inner};
use crate::{CallContext, Content, ToolResult};

/// How long past its deadline the `execute` waits for a program's thread to notice it was
/// stopped, before answering without it (the thread keeps its slot until it ends).
const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Code mode's share of one catalog: its limits, the slots of programs running at once and
/// the threads they run on.
#[derive(Debug, Clone)]
pub(crate) struct CodeMode {
    limits: CodeLimits,
    slots: Arc<Semaphore>,
    pool: Arc<Pool>,
}

impl CodeMode {
    /// Code mode with `limits`.
    pub(crate) fn new(limits: CodeLimits) -> Self {
        let slots = Arc::new(Semaphore::new(limits.max_concurrent.max(1)));
        let pool = Pool::new(limits.clone());
        Self {
            limits,
            slots,
            pool,
        }
    }

    /// The limits programs run under.
    pub(crate) fn limits(&self) -> &CodeLimits {
        &self.limits
    }
}

/// Stops the program when the `execute` ends, however it ends.
struct StopOnDrop(Arc<Stop>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop(Limit::Cancelled);
    }
}

/// Answers an `execute` of `principal` with `args` (already checked against its schema).
pub(crate) async fn execute(
    inner: &Inner,
    mode: &CodeMode,
    principal: &Principal,
    args: &Value,
    ctx: CallContext,
) -> Answer {
    let _in_flight = inner.inflight.enter();
    let started = Instant::now();
    let time = now_rfc3339();
    let code = args
        .get("code")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let call_id: Arc<str> = crate::audit::new_call_id().into();
    let deadline = started + mode.limits.timeout;
    let outcome =
        match tokio::time::timeout_at(deadline.into(), Arc::clone(&mode.slots).acquire_owned())
            .await
        {
            Ok(Ok(slot)) => {
                let parent = Parent {
                    inner,
                    principal,
                    ctx: &ctx,
                    call_id: Arc::clone(&call_id),
                    deadline,
                };
                run(&parent, &mode.pool, &code, slot).await
            }
            _ => Outcome {
                result: Err(Failure::Limit(Limit::Concurrency)),
                logs: Vec::new(),
                calls: 0,
            },
        };
    let (result, status, error) = answer(outcome.result, outcome.logs, &mode.limits);
    #[cfg(feature = "metrics")]
    if let Some(metrics) = &inner.metrics {
        metrics.call_finished(Some(&super::listing::EXECUTE), status, started.elapsed());
    }
    let span = tracing::Span::current();
    if !span.is_none() {
        span.record("status", status.as_str());
        span.record("principal", principal.id.as_str());
    }
    if inner.audit.keeps_records() {
        let mut arguments = Map::new();
        arguments.insert("code".to_owned(), Value::String(code.clone()));
        let event = AuditEvent {
            time,
            request_id: ctx.request_id.clone(),
            principal: Some(principal.id.clone()),
            key_id: principal.key_id.clone(),
            tool: EXECUTE_TOOL.to_owned(),
            operation_id: None,
            status,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            upstream_status: None,
            args_sha256: args_digest(&arguments),
            args: inner.audit_args.then_some(Value::Object(arguments)),
            error: error.as_deref().map(error_text),
            trace_id: ctx.trace.as_ref().map(|t| t.trace_id()),
            call_id: call_id.to_string(),
            parent_call_id: None,
            code_sha256: Some(sha256_hex(code.as_bytes())),
            inner_calls: Some(outcome.calls),
        };
        inner.audit.record(event).await;
    }
    Answer::Result(result)
}

/// Runs `code` on a thread of `pool` holding `slot`, serving its inner calls until it ends.
async fn run(
    parent: &Parent<'_>,
    pool: &Arc<Pool>,
    code: &str,
    slot: OwnedSemaphorePermit,
) -> Outcome {
    let (requests, mut asked) = tokio::sync::mpsc::unbounded_channel();
    let (replies, answered) = std::sync::mpsc::channel();
    let (done, mut finished) = tokio::sync::oneshot::channel();
    let stop = Arc::new(Stop::default());
    let link = Link {
        requests,
        replies: answered,
        stop: Arc::clone(&stop),
    };
    let deadline = parent.deadline;
    let job = Job {
        code: code.to_owned(),
        deadline,
        link,
        done,
        slot,
    };
    if let Err(error) = pool.start(job) {
        return Outcome {
            result: Err(Failure::Engine(format!(
                "no thread could be started for it: {error}"
            ))),
            logs: Vec::new(),
            calls: 0,
        };
    }
    let _stop_on_drop = StopOnDrop(Arc::clone(&stop));
    let mut calls = FuturesUnordered::new();
    let mut cancelled = false;
    let give_up = tokio::time::sleep_until((deadline + STOP_GRACE).into());
    tokio::pin!(give_up);
    loop {
        tokio::select! {
            outcome = &mut finished => {
                return outcome.unwrap_or_else(|_| Outcome {
                    result: Err(Failure::Engine("the program's thread ended without an outcome".to_owned())),
                    logs: Vec::new(),
                    calls: 0,
                });
            }
            Some(request) = asked.recv() => calls.push(inner::call(parent, request)),
            Some(reply) = calls.next(), if !calls.is_empty() => {
                // The program may have ended meanwhile: its reply then has no reader.
                let _ = replies.send(reply);
            }
            () = parent.ctx.cancellation.cancelled(), if !cancelled => {
                cancelled = true;
                stop.stop(Limit::Cancelled);
            }
            () = &mut give_up => {
                stop.stop(Limit::Time);
                return Outcome {
                    result: Err(Failure::Limit(Limit::Time)),
                    logs: Vec::new(),
                    calls: 0,
                };
            }
        }
    }
}

/// The `execute` result of a program's outcome, its audit status, and its error text.
fn answer(
    result: Result<String, Failure>,
    logs: Vec<String>,
    limits: &CodeLimits,
) -> (ToolResult, AuditStatus, Option<String>) {
    let failure = match result.map(|json| serde_json::from_str::<Value>(&json)) {
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
