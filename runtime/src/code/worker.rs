//! The worker side of code mode: the server's own binary started with [`WORKER_ENV`] set runs
//! programs here, one after another, each in a sandbox made for it alone.
//!
//! [`run_worker_if_asked`] must be the first thing a binary's `main` does (generated servers
//! do it in `cli::main`; an application with `#[mcp_tool]` tools and code mode calls it
//! itself). In a worker it never returns: it moves the protocol off the standard output (which
//! then goes to the standard error), says hello, takes its limits, confines itself
//! (`confine`), and serves programs until the server closes its standard input or kills it.
//!
//! Two threads: the main one runs the engine; a reader takes the server's messages, handing
//! runs to the main thread, replies to the running program, and stops straight to the
//! program's [`Stop`], which the engine's interrupt handler reads.

use std::cell::RefCell;
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::rc::Rc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::confine;
use super::engine::{CallReply, Link, Outcome, Sandbox, Stop};
use super::limits::{CodeLimits, Limit};
use super::protocol::{self, FromWorker, HOOKS_ENV, MAGIC, ToWorker, VERSION, WORKER_ENV};

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
/// mcpgen_runtime::code::run_worker_if_asked();
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

/// A program the reader handed to the main thread.
struct Job {
    seq: u64,
    code: String,
    timeout: Duration,
    stop: Arc<Stop>,
    replies: Receiver<CallReply>,
}

/// What the reader knows of the running program.
#[derive(Default)]
struct Current {
    seq: u64,
    stop: Option<Arc<Stop>>,
    replies: Option<Sender<CallReply>>,
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
    let (jobs, waiting) = channel();
    let current = Arc::new(Mutex::new(Current::default()));
    let reader_current = Arc::clone(&current);
    std::thread::Builder::new()
        .name("mcpgen-code-reader".to_owned())
        .spawn(move || read(input, &reader_current, &jobs))
        .map_err(|e| format!("cannot start the reader: {e}"))?;
    // Confined only now: every thread exists, and nothing of the program's has run.
    let unconfined = confine::confine(limits.memory).err();
    say(&FromWorker::Ready { unconfined })?;
    loop {
        // The next program's sandbox is made before it comes.
        let sandbox = Sandbox::prepare(&limits);
        let Ok(job) = waiting.recv() else {
            return Ok(());
        };
        let seq = job.seq;
        let outcome = match (&sandbox, hooks) {
            (_, true) if job.code.trim() == HOOK_CRASH => std::process::abort(),
            (_, true) if job.code.trim() == HOOK_ESCAPE => Outcome {
                result: Ok(confine::try_to_escape()),
                logs: Vec::new(),
            },
            (Ok(sandbox), _) => run(sandbox, job, &output),
            (Err(failure), _) => Outcome {
                result: Err(failure.clone()),
                logs: Vec::new(),
            },
        };
        // The program's runtime goes, with everything it made, before the next is made.
        drop(sandbox);
        say(&FromWorker::Done {
            seq,
            result: outcome.result,
            logs: outcome.logs,
        })?;
    }
}

/// The code of a program that makes the worker abort (debug builds whose environment has `HOOKS_ENV`).
const HOOK_CRASH: &str = "/* mcpgen-test-hook: crash */";

/// The code of a program that tries to open a file and a socket and returns what happened
/// (test builds only).
const HOOK_ESCAPE: &str = "/* mcpgen-test-hook: escape */";

/// Runs `job` in `sandbox`, its inner calls written to `output`.
fn run(sandbox: &Sandbox, job: Job, output: &Rc<RefCell<BufWriter<File>>>) -> Outcome {
    let output = Rc::clone(output);
    let seq = job.seq;
    let link = Link {
        requests: Box::new(move |request| {
            let message = FromWorker::Call {
                seq,
                id: request.id,
                name: request.name,
                args: request.args,
            };
            protocol::write_sync(&mut *output.borrow_mut(), &message).is_ok()
        }),
        replies: job.replies,
        stop: job.stop,
    };
    sandbox.run(&job.code, Instant::now() + job.timeout, link)
}

/// The reader's loop: until the server closes the pipe.
fn read(mut input: BufReader<File>, current: &Mutex<Current>, jobs: &Sender<Job>) {
    let lock = || current.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        let message = match protocol::read_sync::<ToWorker>(&mut input) {
            Ok(message) => message,
            Err(_) => {
                // The server is gone: stop what runs, and let the main thread end.
                if let Some(stop) = &lock().stop {
                    stop.stop(Limit::Cancelled);
                }
                return;
            }
        };
        match message {
            ToWorker::Run {
                seq,
                code,
                timeout_ms,
            } => {
                let stop = Arc::new(Stop::default());
                let (replying, replies) = channel();
                {
                    let mut current = lock();
                    current.seq = seq;
                    current.stop = Some(Arc::clone(&stop));
                    current.replies = Some(replying);
                }
                let job = Job {
                    seq,
                    code,
                    timeout: Duration::from_millis(timeout_ms),
                    stop,
                    replies,
                };
                if jobs.send(job).is_err() {
                    return;
                }
            }
            ToWorker::Reply {
                seq,
                id,
                ok,
                payload,
            } => {
                let current = lock();
                if current.seq == seq
                    && let Some(replies) = &current.replies
                {
                    let outcome = if ok { Ok(payload) } else { Err(payload) };
                    let _ = replies.send(CallReply { id, outcome });
                }
            }
            ToWorker::Stop { seq, why } => {
                let mut current = lock();
                if current.seq == seq
                    && let (Some(stop), Some(why)) = (&current.stop, Limit::from_code(why))
                {
                    stop.stop(why);
                    // A program waiting on its calls' replies wakes up now, and stops.
                    current.replies = None;
                }
            }
            ToWorker::Setup { .. } => {}
        }
    }
}
