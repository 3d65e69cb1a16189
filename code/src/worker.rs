//! The worker side of code mode: the server's own binary started with [`WORKER_ENV`] set runs
//! programs here, one after another, each in a sandbox made for it alone.
//!
//! [`run_worker_if_asked`] must be the first thing a binary's `main` does (generated servers
//! do it in `cli::main`; an application with `#[mcp_tool]` tools and code mode calls it
//! itself). In a worker it never returns: it moves the protocol off the standard output (which
//! then goes to the standard error), says hello, takes its limits, confines itself
//! (`confine`), and serves programs until the server closes its standard input or kills it.
//!
//! One thread: it reads the server's messages itself, between programs and while its program
//! waits on inner calls. The server stops a program by sending the worker `SIGUSR1`, whose
//! handler only sets [`SIGNALLED`], which the engine's interrupt handler and the wait for
//! replies read; the flag is cleared when the next program comes, which the server sends only
//! after the last one's end, so a late stop never reaches the next program.

use std::cell::RefCell;
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::confine;
use crate::engine::{CallReply, Link, NoReply, Outcome, Sandbox, Stop};
use crate::limits::CodeLimits;
use crate::protocol::{self, FromWorker, HOOKS_ENV, MAGIC, ToWorker, VERSION, WORKER_ENV};

/// Set by the stop signal's handler: the running program is to stop.
static SIGNALLED: AtomicBool = AtomicBool::new(false);

/// Runs this process as a code-mode worker if the server started it as one, and never returns
/// then; otherwise returns at once, having done nothing.
///
/// Call it first thing in `main` of a binary that serves code mode (`--tool-mode code`, the
/// `code-mode` feature) with tools of its own (`#[mcp_tool]`): code mode runs each program in
/// a worker process, which is this same binary started again with an environment variable
/// set. Generated servers' `main` (`cli::main`) calls it for them. A server whose binary does
/// not call it fails at start-up with an error naming this function.
///
/// ```no_run
/// // The first line of `main`:
/// // (`mcpgen::code::run_worker_if_asked` through the facade)
/// mcpgen_code::run_worker_if_asked();
/// // ... then build and serve the server.
/// ```
pub fn run_worker_if_asked() {
    if std::env::var_os(WORKER_ENV).is_none() {
        return;
    }
    let code = match serve() {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("mcpgen code-mode worker: {error}");
            1
        }
    };
    std::process::exit(code);
}

fn serve() -> Result<(), String> {
    let (input, output) = confine::take_pipes().map_err(|e| format!("cannot set up: {e}"))?;
    let mut input = BufReader::new(input);
    let output = Rc::new(RefCell::new(BufWriter::new(output)));
    let say = |message: &FromWorker| {
        protocol::write_sync(&mut *output.borrow_mut(), message).map_err(|e| e.to_string())
    };
    say(&FromWorker::Hello {
        magic: MAGIC.to_owned(),
        version: VERSION,
    })?;
    let (limits, hooks) = match protocol::read_sync(&mut input).map_err(|e| e.to_string())? {
        ToWorker::Setup {
            memory,
            max_calls,
            max_output,
        } => (
            CodeLimits::default()
                .with_memory(memory)
                .with_max_calls(max_calls)
                .with_max_output(max_output),
            cfg!(debug_assertions) && std::env::var_os(HOOKS_ENV).is_some(),
        ),
        other => return Err(format!("expected the set-up, got {other:?}")),
    };
    confine::on_stop_signal(on_stop).map_err(|e| format!("cannot set up: {e}"))?;
    // Confined now: nothing of a program's has run yet.
    let unconfined = confine::confine(limits.memory).err();
    say(&FromWorker::Ready { unconfined })?;
    let input = Rc::new(RefCell::new(input));
    loop {
        // The next program's sandbox is made before it comes.
        let sandbox = Sandbox::prepare(&limits);
        let (seq, code, timeout) = match protocol::read_sync(&mut *input.borrow_mut()) {
            Ok(ToWorker::Run {
                seq,
                code,
                timeout_ms,
            }) => (seq, code, Duration::from_millis(timeout_ms)),
            // A late reply of the last program.
            Ok(ToWorker::Reply { .. }) => continue,
            Ok(other) => return Err(format!("expected a program, got {other:?}")),
            // The server closed the pipe: the worker's work is done.
            Err(_) => return Ok(()),
        };
        // Any stop before this was meant for the last program.
        SIGNALLED.store(false, Ordering::Release);
        let outcome = match (&sandbox, hooks) {
            (_, true) if code.trim() == HOOK_CRASH => std::process::abort(),
            (_, true) if code.trim() == HOOK_ESCAPE => Outcome {
                result: Ok(confine::try_to_escape()),
                logs: Vec::new(),
            },
            (Ok(sandbox), _) => {
                let link = link(seq, &input, &output);
                sandbox.run(&code, Instant::now() + timeout, link)
            }
            (Err(failure), _) => Outcome {
                result: Err(failure.clone()),
                logs: Vec::new(),
            },
        };
        say(&FromWorker::Done {
            seq,
            result: outcome.result,
            logs: outcome.logs,
        })?;
        // Once the outcome is on its way, the program's runtime goes, with everything it made,
        // before the next is made.
        drop(sandbox);
    }
}

/// The stop signal's handler: only an atomic store, which is safe in a signal handler.
extern "C" fn on_stop(_signal: libc::c_int) {
    SIGNALLED.store(true, Ordering::Release);
}

/// The code of a program that makes the worker abort (debug builds whose environment has `HOOKS_ENV`).
const HOOK_CRASH: &str = "/* mcpgen-test-hook: crash */";

/// The code of a program that tries to open a file and a socket and returns what happened
/// (test builds only).
const HOOK_ESCAPE: &str = "/* mcpgen-test-hook: escape */";

/// Program `seq`'s link to the server: its inner calls written to `output`, their replies
/// read from `input`.
fn link(
    seq: u64,
    input: &Rc<RefCell<BufReader<File>>>,
    output: &Rc<RefCell<BufWriter<File>>>,
) -> Link {
    let output = Rc::clone(output);
    let input = Rc::clone(input);
    Link {
        requests: Box::new(move |request| {
            let message = FromWorker::Call {
                seq,
                id: request.id,
                name: request.name,
                args: request.args,
            };
            protocol::write_sync(&mut *output.borrow_mut(), &message).is_ok()
        }),
        replies: Box::new(move |deadline| next_reply(seq, &mut input.borrow_mut(), deadline)),
        stop: Arc::new(Stop::default()),
        signalled: &SIGNALLED,
    }
}

/// The next reply to one of program `seq`'s calls, waiting until `deadline` at most.
fn next_reply(
    seq: u64,
    input: &mut BufReader<File>,
    deadline: Instant,
) -> Result<CallReply, NoReply> {
    loop {
        if SIGNALLED.load(Ordering::Acquire) {
            return Err(NoReply::Stopped);
        }
        if input.buffer().is_empty() {
            let left = deadline.saturating_duration_since(Instant::now());
            match confine::wait_readable(input.get_ref(), left) {
                Ok(true) => {}
                Ok(false) => return Err(NoReply::Timeout),
                // Interrupted (by the stop signal, say): look again.
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return Err(NoReply::Stopped),
            }
        }
        match protocol::read_sync::<ToWorker>(input) {
            Ok(ToWorker::Reply {
                seq: of,
                id,
                ok,
                payload,
            }) if of == seq => {
                let outcome = if ok { Ok(payload) } else { Err(payload) };
                return Ok(CallReply { id, outcome });
            }
            // A late reply of an earlier program.
            Ok(ToWorker::Reply { .. }) => {}
            Ok(_) | Err(_) => return Err(NoReply::Stopped),
        }
    }
}
