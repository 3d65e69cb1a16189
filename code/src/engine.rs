//! The engine side of a program: a QuickJS runtime and context made for it alone, with its
//! limits set before any of its code runs.
//!
//! A [`Sandbox`] is made ahead of its program, in the worker process that will run it (see
//! `worker`):
//! the runtime gets the memory limit and the stack limit, the context gets only the
//! language's own built-ins (no `std`/`os` modules, no module loader, no timers), and the
//! prelude (`prelude.js`) is evaluated to hand the program `tools` and `console`. No code but
//! the prelude has run in it. When its program comes, [`Sandbox::run`] gives the runtime an
//! interrupt handler that stops the program once its time is up or it was told to stop
//! ([`Stop`]), and the sandbox is dropped with the program's end: no two programs share one.
//!
//! `tools.<name>(args)` sends a [`CallRequest`] to the server and returns a promise; the
//! loop in [`Sandbox::run`] drives the engine's job queue, and while the program waits on
//! calls, blocks on their replies until the time left runs out, settling each promise as its
//! reply comes.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Instant;

use rquickjs::context::{EvalOptions, intrinsic};
use rquickjs::promise::PromiseState;
use rquickjs::{Context, Ctx, Exception, Function, Object, Persistent, Promise, Runtime, Value};

use crate::limits::{CodeLimits, JS_STACK_BYTES, Limit};
use crate::report::{FILE_NAME, Failure, HEADER, describe_thrown};

const PRELUDE: &str = include_str!("prelude.js");

const FOOTER: &str = "\n})";

/// The built-ins a program's context has: the language without timers, typed arrays, weak
/// references or performance counters.
type Intrinsics = (
    intrinsic::Date,
    intrinsic::Eval,
    intrinsic::RegExpCompiler,
    intrinsic::RegExp,
    intrinsic::Json,
    intrinsic::Proxy,
    intrinsic::MapSet,
    intrinsic::Promise,
);

/// Tells a running program to stop, and why; shared by the engine thread, its interrupt
/// handler and the async side.
#[derive(Debug, Default)]
pub(crate) struct Stop(AtomicU8);

impl Stop {
    /// Stops the program for `why` (the first reason given wins).
    pub(crate) fn stop(&self, why: Limit) {
        let _ = self
            .0
            .compare_exchange(0, why.code(), Ordering::AcqRel, Ordering::Acquire);
    }

    /// Why the program was told to stop, if it was.
    pub(crate) fn reason(&self) -> Option<Limit> {
        Limit::from_code(self.0.load(Ordering::Acquire))
    }
}

/// An inner call a program makes: `tools.<name>(args)`, its arguments as JSON text.
#[derive(Debug)]
pub(crate) struct CallRequest {
    pub(crate) id: u32,
    pub(crate) name: String,
    pub(crate) args: String,
}

/// How an inner call ended: its value as JSON text, or the error message the program's
/// promise is rejected with.
#[derive(Debug)]
pub(crate) struct CallReply {
    pub(crate) id: u32,
    pub(crate) outcome: Result<String, String>,
}

/// What a program came to.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// The return value as JSON text, or why there is none.
    pub(crate) result: Result<String, Failure>,
    pub(crate) logs: Vec<String>,
}

/// Where a program's inner calls go: false when they can no longer be sent.
pub(crate) type Requests = Box<dyn FnMut(CallRequest) -> bool>;

/// Why no reply came.
#[derive(Debug)]
pub(crate) enum NoReply {
    /// The deadline passed first.
    Timeout,
    /// The program was told to stop, or the server is gone.
    Stopped,
}

/// Waits until the given deadline for the next reply to one of the program's inner calls.
pub(crate) type Replies = Box<dyn FnMut(Instant) -> Result<CallReply, NoReply>>;

/// The program's ends of the channels to the server.
pub(crate) struct Link {
    pub(crate) requests: Requests,
    pub(crate) replies: Replies,
    pub(crate) stop: Arc<Stop>,
    /// Set from outside the engine (a signal handler) to stop the program.
    pub(crate) signalled: &'static std::sync::atomic::AtomicBool,
}

/// What the host functions of one program share with its loop. Made with the sandbox; the
/// program's own ends of the channels are put in when it comes.
struct Host {
    requests: Option<Requests>,
    stop: Arc<Stop>,
    max_calls: u32,
    max_output: usize,
    calls: u32,
    in_flight: u32,
    logs: Vec<String>,
    log_bytes: usize,
}

/// A runtime with a program's limits and a fresh context on it, the prelude evaluated, waiting
/// for its program. Lives on one thread (it is not `Send`).
pub(crate) struct Sandbox {
    /// What the prelude returned (`tools`, `console`, `settle`, `finish`). Declared before the
    /// context so that it is released first.
    api: Persistent<Object<'static>>,
    context: Context,
    host: Rc<RefCell<Host>>,
}

impl Sandbox {
    /// Makes a sandbox for a program running under `limits`.
    pub(crate) fn prepare(limits: &CodeLimits) -> Result<Self, Failure> {
        let engine_failure =
            |e: rquickjs::Error| Failure::Engine(format!("cannot start the engine: {e}"));
        let runtime = Runtime::new().map_err(engine_failure)?;
        runtime.set_memory_limit(limits.memory);
        runtime.set_max_stack_size(JS_STACK_BYTES);
        let context = Context::custom::<Intrinsics>(&runtime).map_err(engine_failure)?;
        let host = Rc::new(RefCell::new(Host {
            requests: None,
            stop: Arc::new(Stop::default()),
            max_calls: limits.max_calls,
            max_output: limits.max_output,
            calls: 0,
            in_flight: 0,
            logs: Vec::new(),
            log_bytes: 0,
        }));
        let api = context.with(|ctx| {
            prelude(&ctx, &host)
                .map(|api| Persistent::save(&ctx, api))
                .map_err(|e| engine_error(&ctx, "the prelude", e))
        })?;
        Ok(Self { api, context, host })
    }

    /// Runs `code` until it returns, fails, or is stopped at `deadline`.
    pub(crate) fn run(&self, code: &str, deadline: Instant, mut link: Link) -> Outcome {
        {
            let mut host = self.host.borrow_mut();
            host.requests = Some(link.requests);
            host.stop = Arc::clone(&link.stop);
        }
        let stop = Arc::clone(&link.stop);
        let signalled = link.signalled;
        self.context
            .runtime()
            .set_interrupt_handler(Some(Box::new(move || {
                if stop.reason().is_some() {
                    return true;
                }
                if signalled.load(Ordering::Acquire) {
                    stop.stop(Limit::Cancelled);
                    return true;
                }
                if Instant::now() >= deadline {
                    stop.stop(Limit::Time);
                    return true;
                }
                false
            })));
        let result = self.context.with(|ctx| {
            let prelude = self
                .api
                .clone()
                .restore(&ctx)
                .and_then(|api| Prelude::of(&api))
                .map_err(|e| engine_error(&ctx, "the prelude", e))?;
            drive(
                &ctx,
                code,
                &prelude,
                &self.host,
                &mut link.replies,
                deadline,
            )
        });
        // A stop decided outside the program (a limit the host saw, the time, a cancellation)
        // outranks what the program made of it.
        let result = match (link.stop.reason(), result) {
            (Some(limit), _) => Err(Failure::Limit(limit)),
            (None, result) => result,
        };
        let host = self.host.borrow();
        Outcome {
            result,
            logs: host.logs.clone(),
        }
    }
}

/// What the prelude returns.
struct Prelude<'js> {
    tools: Value<'js>,
    console: Value<'js>,
    settle: Function<'js>,
    finish: Function<'js>,
}

impl<'js> Prelude<'js> {
    /// The parts of the object the prelude returned.
    fn of(api: &Object<'js>) -> rquickjs::Result<Self> {
        Ok(Self {
            tools: api.get("tools")?,
            console: api.get("console")?,
            settle: api.get("settle")?,
            finish: api.get("finish")?,
        })
    }
}

/// Compiles the program, then drives it to its end.
fn drive<'js>(
    ctx: &Ctx<'js>,
    code: &str,
    prelude: &Prelude<'js>,
    host: &Rc<RefCell<Host>>,
    replies: &mut Replies,
    deadline: Instant,
) -> Result<String, Failure> {
    let mut options = EvalOptions::default();
    options.strict = false;
    options.filename = Some(FILE_NAME.to_owned());
    let source = format!("{HEADER}{code}{FOOTER}");
    let program: Function = ctx
        .eval_with_options(source, options)
        .map_err(|e| match e {
            rquickjs::Error::Exception => Failure::Syntax(describe_thrown(ctx, ctx.catch())),
            other => Failure::Engine(other.to_string()),
        })?;
    let promise: Promise = program
        .call((prelude.tools.clone(), prelude.console.clone()))
        .map_err(|e| thrown(ctx, e))?;
    loop {
        while ctx.execute_pending_job() {
            if host.borrow().stop.reason().is_some() {
                break;
            }
        }
        if let Some(limit) = host.borrow().stop.reason() {
            return Err(Failure::Limit(limit));
        }
        match promise.state() {
            PromiseState::Resolved => {
                let value: Value = promise
                    .result()
                    .unwrap_or(Ok(Value::new_undefined(ctx.clone())))
                    .map_err(|e| thrown(ctx, e))?;
                return finish(ctx, prelude, host, value);
            }
            PromiseState::Rejected => {
                return Err(match promise.result::<Value>() {
                    Some(Err(e)) => thrown(ctx, e),
                    Some(Ok(value)) => Failure::Thrown(describe_thrown(ctx, value)),
                    None => Failure::Engine("a rejected promise without a reason".to_owned()),
                });
            }
            PromiseState::Pending => {}
        }
        if host.borrow().in_flight == 0 {
            return Err(Failure::NeverSettles);
        }
        let reply = match replies(deadline) {
            Ok(reply) => reply,
            Err(NoReply::Timeout) => return Err(Failure::Limit(Limit::Time)),
            Err(NoReply::Stopped) => return Err(Failure::Limit(Limit::Cancelled)),
        };
        host.borrow_mut().in_flight -= 1;
        let (ok, payload) = match reply.outcome {
            Ok(json) => (true, json),
            Err(message) => (false, message),
        };
        prelude
            .settle
            .call::<_, ()>((reply.id, ok, payload))
            .map_err(|e| thrown(ctx, e))?;
    }
}

/// The prelude, evaluated and handed the host functions: the object it returns.
fn prelude<'js>(ctx: &Ctx<'js>, host: &Rc<RefCell<Host>>) -> rquickjs::Result<Object<'js>> {
    let make: Function = ctx.eval(PRELUDE)?;
    let calls = Rc::clone(host);
    let call = Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, name: String, args: String| -> rquickjs::Result<u32> {
            let mut host = calls.borrow_mut();
            if host.stop.reason().is_some() {
                return Err(Exception::throw_internal(&ctx, "the program is stopping"));
            }
            if host.calls >= host.max_calls {
                host.stop.stop(Limit::Calls);
                return Err(Exception::throw_internal(
                    &ctx,
                    &format!("limit of {} tool calls reached", host.max_calls),
                ));
            }
            host.calls += 1;
            let id = host.calls;
            let sent = host
                .requests
                .as_mut()
                .is_some_and(|requests| requests(CallRequest { id, name, args }));
            if !sent {
                host.stop.stop(Limit::Cancelled);
                return Err(Exception::throw_internal(&ctx, "the program is stopping"));
            }
            host.in_flight += 1;
            Ok(id)
        },
    )?;
    let logs = Rc::clone(host);
    let log = Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, level: String, line: String| -> rquickjs::Result<()> {
            let mut host = logs.borrow_mut();
            let line = match level.as_str() {
                "log" | "info" | "debug" => line,
                other => format!("[{other}] {line}"),
            };
            host.log_bytes = host.log_bytes.saturating_add(line.len() + 4);
            if host.log_bytes > host.max_output {
                host.stop.stop(Limit::Output);
                return Err(Exception::throw_internal(&ctx, "output limit reached"));
            }
            host.logs.push(line);
            Ok(())
        },
    )?;
    make.call((call, log))
}

/// The program's return value as JSON text, within the output limit.
fn finish<'js>(
    ctx: &Ctx<'js>,
    prelude: &Prelude<'js>,
    host: &Rc<RefCell<Host>>,
    value: Value<'js>,
) -> Result<String, Failure> {
    let json: String = prelude.finish.call((value,)).map_err(|e| match e {
        rquickjs::Error::Exception => {
            let thrown = describe_thrown(ctx, ctx.catch());
            match thrown.limit {
                // Writing the JSON ran out of memory or stack: that limit, not the value.
                Some(limit) => Failure::Limit(limit),
                None => Failure::NotJson(thrown.message),
            }
        }
        other => Failure::NotJson(other.to_string()),
    })?;
    let host = host.borrow();
    if json.len().saturating_add(host.log_bytes) > host.max_output {
        host.stop.stop(Limit::Output);
        return Err(Failure::Limit(Limit::Output));
    }
    Ok(json)
}

/// The failure an exception thrown out of the engine stands for.
fn thrown(ctx: &Ctx<'_>, error: rquickjs::Error) -> Failure {
    match error {
        rquickjs::Error::Exception => Failure::Thrown(describe_thrown(ctx, ctx.catch())),
        other => Failure::Engine(other.to_string()),
    }
}

/// A failure of the engine itself while doing `what`.
fn engine_error(ctx: &Ctx<'_>, what: &str, error: rquickjs::Error) -> Failure {
    let detail = match error {
        rquickjs::Error::Exception => describe_thrown(ctx, ctx.catch()).message,
        other => other.to_string(),
    };
    Failure::Engine(format!("{what} failed: {detail}"))
}
