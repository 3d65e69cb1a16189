//! What code mode needs of the server that runs it, as a trait the server implements
//! (`server/call/search_call.rs`) and hands to [`execute`](crate::execute): code mode names
//! nothing of `server/`, so the server can depend on it and it can leave the crate.

use std::time::Duration;

use mcpgen_audit::AuditStatus;
use mcpgen_core::BoxFuture;
use mcpgen_core::result::ToolResult;
use mcpgen_core::tool::ToolDef;
use serde_json::{Map, Value};

use mcpgen_audit::MultiSink;
use mcpgen_contract::toolset::CallContext;
use mcpgen_identity::principal::Principal;

/// Held while an `execute` runs: the server counts it as a call in progress, which shutdown
/// waits for.
#[doc(hidden)]
pub type InFlight<'a> = Box<dyn Send + 'a>;

/// How one inner call ended, as the server's pipeline answered it.
#[doc(hidden)]
pub enum InnerAnswer {
    /// The tool's result (possibly `is_error`).
    Result {
        result: ToolResult,
        /// Whether the tool's structured output is its value wrapped in `{"result": …}`.
        wrapped: bool,
        /// The status of the upstream response, if the tool made a request.
        upstream_status: Option<u16>,
    },
    /// No tool of that name for this caller, with the text a direct call would answer.
    Unknown(String),
    /// The tool asked the client a question, which a program cannot answer.
    AskedClient,
    /// The call was refused with this error text.
    Refused(String),
}

/// The server a program's inner calls go to, with what the `execute`'s own record needs.
#[doc(hidden)]
pub trait Host: Send + Sync {
    /// Runs tool `name` with `args` as `principal` through the call pipeline (visibility,
    /// scopes, validation, limits, audit), with `ctx` made from the `execute`'s.
    fn call<'a>(
        &'a self,
        principal: &'a Principal,
        name: &'a str,
        args: Map<String, Value>,
        ctx: CallContext,
    ) -> BoxFuture<'a, InnerAnswer>;

    /// Counts an `execute` as a call in progress until the guard is dropped.
    fn in_flight(&self) -> InFlight<'_>;

    /// The sinks the `execute`'s audit record goes to.
    fn audit(&self) -> &MultiSink;

    /// Whether audit records carry the arguments (`--audit-args`).
    fn audit_args(&self) -> bool;

    /// Largest request body accepted, which an inner call's arguments are held to; `None` when
    /// the server reads no request bodies (built without its HTTP transport).
    fn max_body_bytes(&self) -> Option<usize>;

    /// Counts a finished `execute` (`def`, its audit `status`, the time it took) into the
    /// server's metrics, if it keeps them.
    fn execute_finished(&self, def: &ToolDef, status: AuditStatus, elapsed: Duration);
}
