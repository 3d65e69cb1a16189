//! Code mode (`--tool-mode code`, `ToolMode::Code`): a whole
//! API behind one `execute` tool that runs a JavaScript program against the tools.
//!
//! `tools/list` shows `search_tools`, `describe_tools` (which adds each tool's TypeScript
//! declaration) and `execute`, plus the pinned tools; every tool stays callable by name.
//!
//! # The programming model
//!
//! The code is the body of an `async` function with `tools` and `console` in scope.
//! `await tools.<name>(args)` calls a tool and returns the API's response body as parsed JSON
//! (unwrapped from the `{"result": …}` MCP needs around a non-object; `null` for a 204; a
//! non-JSON body as its text). A failed call throws an `Error` the program can catch, whose
//! message is the tool's error text. The function's return value is the result:
//! `structuredContent: {"result": <value>, "logs": [...]}`, with `console.log` lines in `logs`.
//!
//! # What every inner call obeys
//!
//! An inner call runs through the same pipeline as a direct `tools/call` of the `execute`'s
//! caller: visibility (a hidden tool is an unknown one), scopes, validation against the full
//! schema, rate limits (inner calls take tokens; `execute` itself takes none), the upstream
//! guard, token exchange, metrics, traces and audit (each inner record names the `execute`'s
//! `call_id` as its `parent_call_id`). A tool that needs a person's confirmation is refused
//! inside a program: it must be called directly.
//!
//! # The sandbox
//!
//! Each program runs in a worker process (`pool`, `worker`): the server's own binary started
//! again, which a binary enters first thing in `main` through [`run_worker_if_asked`]. In it
//! the program gets a QuickJS runtime and context of its own (`engine`), made for it alone: a
//! fresh global object every time, the language's built-ins and nothing else of the host's (no
//! file system, network, environment, timers, module loading, `require` or `process`). The
//! runtime's memory limit, stack limit and interrupt handler (time) are set before any of the
//! program's code runs; on Linux the worker is held by an address-space limit and a seccomp
//! filter (`confine`). The server counts inner calls and output bytes ([`CodeLimits`]), owns
//! every inner call (`run`), and kills a worker that has not stopped a grace after its
//! program's deadline. What it relies on: the engine's own memory safety (QuickJS, a C
//! library) within the worker's confinement, and the pipeline for everything a call may do.

//!
//! # Without the engine
//!
//! Without the `code-mode` feature, this crate holds what code mode lists and the limits
//! its description names ([`tools_list_json`], [`CodeLimits`]), so that tools can report the
//! `tools/list` size of code mode without linking the engine; serving code mode needs the
//! `code-mode` feature.
//!
//! The server runtime (`mcpgen-runtime`) re-exports this crate as `mcpgen_runtime::code` (with
//! its `search` feature) and forwards its `code-mode` feature; the server hands itself in as a
//! `Host` (with `code-mode`), so this crate names nothing of the server.

#![deny(missing_docs)]

#[cfg(feature = "code-mode")]
mod confine;
#[cfg(feature = "code-mode")]
mod engine;
#[cfg(feature = "code-mode")]
mod execute;
#[cfg(feature = "code-mode")]
mod host;
#[cfg(feature = "code-mode")]
mod inner;
mod limits;
mod listing;
#[cfg(feature = "code-mode")]
mod pool;
#[cfg(feature = "code-mode")]
mod protocol;
#[cfg(feature = "code-mode")]
mod report;
#[cfg(feature = "code-mode")]
mod run;
#[cfg(feature = "code-mode")]
mod slots;
#[cfg(feature = "code-mode")]
mod worker;

#[cfg(feature = "code-mode")]
#[doc(hidden)]
pub use execute::CodeMode;
pub use limits::CodeLimits;
pub use listing::tools_list_json;
#[cfg(feature = "code-mode")]
pub use worker::run_worker_if_asked;

#[cfg(feature = "code-mode")]
#[doc(hidden)]
pub use execute::execute;
#[cfg(feature = "code-mode")]
#[doc(hidden)]
pub use host::{Host, InFlight, InnerAnswer};
#[cfg(feature = "code-mode")]
#[doc(hidden)]
pub use listing::{EXECUTE_TOOL, execute_description, inlined, listed};
