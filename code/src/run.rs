//! One program in a worker process, seen from the server: the run is sent, each inner call
//! the worker asks for becomes a task of the server's own, and the program's end is waited
//! for until its deadline plus [`STOP_GRACE`], after which its worker is killed.
//!
//! The server counts the inner calls (the worker's count is not trusted) and enforces
//! [`CodeLimits::max_calls`] and the body limit on each call's arguments itself. Every inner
//! call it starts runs to its end and writes its own audit record, whatever becomes of the
//! program: its task is the server's, not the program's. The `execute` waits for its calls
//! (their upstream timeout is cut to the program's time left) before it writes its own
//! record, at most until the deadline plus the grace.

use std::sync::Arc;
use std::time::Instant;

use tokio::task::JoinSet;

use crate::engine::{CallReply, CallRequest};
use crate::inner::{self, Parent};
use crate::limits::{CodeLimits, Limit, STOP_GRACE};
use crate::pool::{Pool, Worker};
use crate::protocol::{FromWorker, ToWorker};
use crate::report::Failure;

/// What a program came to, as the server saw it.
#[derive(Debug)]
pub(super) struct Ran {
    /// The return value as JSON text, or why there is none.
    pub(super) result: Result<String, Failure>,
    pub(super) logs: Vec<String>,
    /// Inner calls the server started for it (each writes a record linked to the `execute`).
    pub(super) calls: u32,
}

impl Ran {
    fn failed(failure: Failure) -> Self {
        Self {
            result: Err(failure),
            logs: Vec::new(),
            calls: 0,
        }
    }
}

/// Runs `code` for `parent` in a worker of `pool`.
pub(super) async fn run(parent: &Arc<Parent>, pool: &Pool, limits: &CodeLimits, code: &str) -> Ran {
    let mut tries = 0;
    let (mut worker, seq) = loop {
        tries += 1;
        let mut worker = match pool.take().await {
            Ok(worker) => worker,
            Err(why) => return Ran::failed(Failure::Engine(why)),
        };
        let seq = worker.next_seq();
        let timeout_ms = parent
            .deadline
            .saturating_duration_since(Instant::now())
            .as_millis();
        let run = ToWorker::Run {
            seq,
            code: code.to_owned(),
            timeout_ms: u64::try_from(timeout_ms).unwrap_or(u64::MAX),
        };
        match worker.send(&run).await {
            Ok(()) => break (worker, seq),
            // An idle worker may have died meanwhile: one more try, with a new one.
            Err(error) => {
                worker.kill().await;
                if tries >= 2 {
                    return Ran::failed(Failure::Engine(format!(
                        "its worker process could not be reached: {error}"
                    )));
                }
            }
        }
    };
    let mut program = Program {
        parent,
        limits,
        calls: JoinSet::new(),
        started: 0,
        stopped: None,
    };
    let (result, logs) = match program.drive(&mut worker, seq).await {
        End::Done(result, logs) => {
            pool.give_back(worker);
            (result, logs)
        }
        End::Killed(limit) => {
            worker.kill().await;
            (Err(Failure::Limit(limit)), Vec::new())
        }
        End::Broken(why) => {
            worker.kill().await;
            (Err(Failure::Engine(why)), Vec::new())
        }
        End::Died => {
            let words = worker.death(STOP_GRACE).await;
            (Err(Failure::WorkerDied(words)), Vec::new())
        }
    };
    // The calls still running end on their own, each writing its record: waited for until
    // the grace is over, then left to finish without the `execute`.
    let wait = async { while program.calls.join_next().await.is_some() {} };
    let _ = tokio::time::timeout_at((parent.deadline + STOP_GRACE).into(), wait).await;
    program.calls.detach_all();
    Ran {
        result,
        logs,
        calls: program.started,
    }
}

/// How a program's worker left it.
enum End {
    /// The program ended (or was stopped and said so): its result and logs; the worker can
    /// run another.
    Done(Result<String, Failure>, Vec<String>),
    /// Told to stop for this, the worker did not within the grace: it is to be killed.
    Killed(Limit),
    /// The worker said something out of turn.
    Broken(String),
    /// The worker's pipe closed: it died.
    Died,
}

/// The server's side of one running program.
struct Program<'a> {
    parent: &'a Arc<Parent>,
    limits: &'a CodeLimits,
    /// The inner calls started for it, each a task of its own.
    calls: JoinSet<CallReply>,
    started: u32,
    /// Why the worker was told to stop, once it was.
    stopped: Option<Limit>,
}

impl Program<'_> {
    /// Serves the program until it ends.
    async fn drive(&mut self, worker: &mut Worker, seq: u64) -> End {
        let deadline = tokio::time::sleep_until(self.parent.deadline.into());
        tokio::pin!(deadline);
        let kill = tokio::time::sleep_until((self.parent.deadline + STOP_GRACE).into());
        tokio::pin!(kill);
        let cancellation = self.parent.ctx.cancellation.clone();
        loop {
            let was_stopped = self.stopped.is_some();
            tokio::select! {
                message = worker.receive() => match message {
                    Ok(FromWorker::Call { seq: of, id, name, args }) if of == seq => {
                        if let Some(refused) = self.start(id, name, &args) {
                            let _ = worker.send(&reply_of(seq, refused)).await;
                        }
                    }
                    Ok(FromWorker::Done { seq: of, result, logs }) if of == seq => {
                        // The worker's own count of the output is not trusted either.
                        let bytes = logs.iter().map(|line| line.len() + 4).sum::<usize>()
                            + result.as_ref().map_or(0, String::len);
                        let result = match (self.stopped, result) {
                            (Some(limit), _) => Err(Failure::Limit(limit)),
                            (None, _) if bytes > self.limits.max_output => {
                                return End::Done(Err(Failure::Limit(Limit::Output)), Vec::new());
                            }
                            (None, result) => result,
                        };
                        return End::Done(result, logs);
                    }
                    Ok(other) => {
                        return End::Broken(format!(
                            "its worker process broke the protocol ({other:?})"
                        ));
                    }
                    Err(_) => {
                        return match self.stopped {
                            // Killed meanwhile by what it was stopped for (the kernel, say).
                            Some(limit) if limit != Limit::Calls => End::Killed(limit),
                            _ => End::Died,
                        };
                    }
                },
                Some(done) = self.calls.join_next(), if !self.calls.is_empty() => {
                    if let Ok(reply) = done {
                        // The worker may be gone: then its next message says so.
                        let _ = worker.send(&reply_of(seq, reply)).await;
                    }
                }
                () = &mut deadline, if !was_stopped => self.stopped = Some(Limit::Time),
                () = cancellation.cancelled(), if !was_stopped => {
                    self.stopped = Some(Limit::Cancelled);
                }
                () = &mut kill, if was_stopped => {
                    return End::Killed(self.stopped.unwrap_or(Limit::Time));
                }
            }
            if let (false, true) = (was_stopped, self.stopped.is_some()) {
                // Whatever the engine is doing, the worker is killed a grace after this.
                let at = (Instant::now() + STOP_GRACE).min(self.parent.deadline + STOP_GRACE);
                kill.as_mut().reset(at.into());
                worker.stop();
            }
        }
    }

    /// Starts inner call `id`, or says why it was refused without being made.
    fn start(&mut self, id: u32, name: String, args: &str) -> Option<CallReply> {
        let refuse = |message: String| {
            Some(CallReply {
                id,
                outcome: Err(message),
            })
        };
        if self.stopped.is_some() {
            return refuse("the program is stopping".to_owned());
        }
        if self.started >= self.limits.max_calls {
            self.stopped = Some(Limit::Calls);
            return refuse(format!(
                "limit of {} tool calls reached",
                self.limits.max_calls
            ));
        }
        if let Some(max) = self.parent.host.max_body_bytes()
            && args.len() > max
        {
            return refuse(format!(
                "tools.{name}: the arguments are {} bytes, more than the {max} a call may carry \
                 (--max-body-bytes); nothing was sent",
                args.len(),
            ));
        }
        let args = match inner::arguments(&name, args) {
            Ok(args) => args,
            Err(message) => return refuse(message),
        };
        self.started += 1;
        let request = CallRequest {
            id,
            name,
            args: String::new(),
        };
        self.calls
            .spawn(inner::call(Arc::clone(self.parent), request, args));
        None
    }
}

fn reply_of(seq: u64, reply: CallReply) -> ToWorker {
    let (ok, payload) = match reply.outcome {
        Ok(json) => (true, json),
        Err(message) => (false, message),
    };
    ToWorker::Reply {
        seq,
        id: reply.id,
        ok,
        payload,
    }
}
