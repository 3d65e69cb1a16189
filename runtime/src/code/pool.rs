//! The threads programs run on, kept warm between programs.
//!
//! A program's JavaScript runs on a thread of its own, never on an async worker. Starting a
//! thread and making a sandbox (runtime, context, prelude) for each program cost more than a
//! short program itself, so the threads stay: each one, once its program has ended, drops
//! that program's sandbox, makes a fresh one for the next, and waits. A program then starts
//! in a sandbox no code has run in yet, without waiting for it to be made.
//!
//! There are never more threads than programs may run at once (the caller holds a slot of
//! [`CodeLimits::max_concurrent`] for each job), and a thread left idle for [`IDLE_EXIT`]
//! ends, so a server that stops running programs gives their memory back.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use tokio::sync::OwnedSemaphorePermit;

use super::engine::{Link, Outcome, Sandbox};
use super::limits::{CodeLimits, THREAD_STACK_BYTES};

/// How long a thread waits for a program before it ends.
const IDLE_EXIT: Duration = Duration::from_secs(60);

/// One program for a thread to run.
pub(crate) struct Job {
    pub(crate) code: String,
    pub(crate) deadline: Instant,
    pub(crate) link: Link,
    /// Where the outcome goes.
    pub(crate) done: tokio::sync::oneshot::Sender<Outcome>,
    /// The program's slot, given back when it ends (not when the `execute` stops waiting).
    pub(crate) slot: OwnedSemaphorePermit,
}

/// An idle thread, waiting for a job on the other end of `jobs`.
struct Idle {
    id: u64,
    jobs: Sender<Job>,
}

/// The warm threads of one code mode.
#[derive(Debug)]
pub(crate) struct Pool {
    limits: CodeLimits,
    idle: Mutex<IdleThreads>,
    /// Threads started so far.
    started: AtomicUsize,
}

#[derive(Default)]
struct IdleThreads {
    /// The most recently idle last.
    threads: Vec<Idle>,
    next_id: u64,
}

impl std::fmt::Debug for IdleThreads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdleThreads")
            .field("threads", &self.threads.len())
            .finish_non_exhaustive()
    }
}

impl Pool {
    /// A pool for programs running under `limits`, with no thread yet.
    pub(crate) fn new(limits: CodeLimits) -> Arc<Self> {
        Arc::new(Self {
            limits,
            idle: Mutex::new(IdleThreads::default()),
            started: AtomicUsize::new(0),
        })
    }

    /// How many threads the pool has started so far.
    #[cfg(test)]
    fn threads_started(&self) -> usize {
        self.started.load(Ordering::Relaxed)
    }

    /// Hands `job` to the thread that went idle last, or to a new thread.
    pub(crate) fn start(self: &Arc<Self>, mut job: Job) -> Result<(), std::io::Error> {
        loop {
            let idle = self.lock().threads.pop();
            let Some(idle) = idle else { break };
            match idle.jobs.send(job) {
                Ok(()) => return Ok(()),
                // The thread ended (it panicked): the next one takes the job.
                Err(returned) => job = returned.0,
            }
        }
        let (jobs, waiting) = channel();
        let pool = Arc::downgrade(self);
        let limits = self.limits.clone();
        let _ = jobs.send(job);
        self.started.fetch_add(1, Ordering::Relaxed);
        std::thread::Builder::new()
            .name("mcpgen-code".to_owned())
            .stack_size(THREAD_STACK_BYTES)
            .spawn(move || work(&pool, &limits, waiting))
            .map(drop)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, IdleThreads> {
        // The list stays whole whatever panicked while holding it.
        self.idle.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Puts the calling thread on the idle list: the end of a channel a job will come on.
    fn go_idle(&self) -> (u64, Receiver<Job>) {
        let (jobs, waiting) = channel();
        let mut idle = self.lock();
        idle.next_id += 1;
        let id = idle.next_id;
        idle.threads.push(Idle { id, jobs });
        (id, waiting)
    }

    /// Takes thread `id` off the idle list; false if a job was already handed to it.
    fn leave(&self, id: u64) -> bool {
        let mut idle = self.lock();
        let before = idle.threads.len();
        idle.threads.retain(|thread| thread.id != id);
        idle.threads.len() < before
    }
}

/// A thread's life: run the job it was started with, then go idle, make a sandbox for the next
/// job and wait for it, until the pool is gone or no job came for [`IDLE_EXIT`].
fn work(pool: &Weak<Pool>, limits: &CodeLimits, mut waiting: Receiver<Job>) {
    // The first job is already waiting: its sandbox is made now.
    let mut idle_as = None;
    loop {
        let sandbox = Sandbox::prepare(limits);
        let job = loop {
            match waiting.recv_timeout(IDLE_EXIT) {
                Ok(job) => break job,
                Err(RecvTimeoutError::Disconnected) => return,
                Err(RecvTimeoutError::Timeout) => {}
            }
            let Some(pool) = pool.upgrade() else { return };
            if idle_as.is_some_and(|id| pool.leave(id)) {
                return;
            }
            // Taken off the list already: its job is on the way.
        };
        let Job {
            code,
            deadline,
            link,
            done,
            slot,
        } = job;
        let outcome = match &sandbox {
            Ok(sandbox) => sandbox.run(&code, deadline, link),
            Err(failure) => Outcome {
                result: Err(failure.clone()),
                logs: Vec::new(),
                calls: 0,
            },
        };
        // Idle before the slot and the outcome go, so that the next program (of this caller
        // or another) finds this thread rather than starting one; it waits in the channel
        // while the sandbox is remade.
        let Some(pool) = pool.upgrade() else {
            drop(slot);
            let _ = done.send(outcome);
            return;
        };
        let (id, next) = pool.go_idle();
        drop(pool);
        idle_as = Some(id);
        waiting = next;
        drop(slot);
        let _ = done.send(outcome);
        // The program's runtime goes, with everything it made, before the next is made.
        drop(sandbox);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use tokio::sync::Semaphore;

    use super::{Job, Pool};
    use crate::code::engine::{Link, Outcome, Stop};
    use crate::code::limits::CodeLimits;

    /// Runs `code` (which makes no tool call) on `pool`, holding a slot of `slots`.
    async fn run(pool: &Arc<Pool>, slots: &Arc<Semaphore>, code: &str) -> Outcome {
        let slot = Arc::clone(slots).acquire_owned().await.expect("a slot");
        let (requests, _asked) = tokio::sync::mpsc::unbounded_channel();
        let (_replies, answered) = std::sync::mpsc::channel();
        let (done, finished) = tokio::sync::oneshot::channel();
        let link = Link {
            requests,
            replies: answered,
            stop: Arc::new(Stop::default()),
        };
        let job = Job {
            code: code.to_owned(),
            deadline: Instant::now() + Duration::from_secs(10),
            link,
            done,
            slot,
        };
        pool.start(job).expect("a thread");
        finished.await.expect("an outcome")
    }

    #[tokio::test]
    async fn one_thread_runs_programs_one_after_another_each_in_a_fresh_sandbox() {
        let pool = Pool::new(CodeLimits::default());
        let slots = Arc::new(Semaphore::new(4));
        let first = run(
            &pool,
            &slots,
            "globalThis.left = 1; Object.prototype.added = 2; Array.prototype.push = null; return 1;",
        )
        .await;
        assert_eq!(first.result.as_deref(), Ok("1"));
        for _ in 0..5 {
            let next = run(
                &pool,
                &slots,
                "const a = []; a.push(1); return [typeof left, ({}).added ?? null, a.length];",
            )
            .await;
            assert_eq!(next.result.as_deref(), Ok(r#"["undefined",null,1]"#));
        }
        assert_eq!(pool.threads_started(), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn programs_at_once_take_no_more_threads_than_slots() {
        let pool = Pool::new(CodeLimits::default());
        let slots = Arc::new(Semaphore::new(3));
        let programs = (0..12).map(|i| {
            let (pool, slots) = (Arc::clone(&pool), Arc::clone(&slots));
            tokio::spawn(async move {
                let code =
                    format!("let n = 0; for (let i = 0; i < 20000; i++) n += i; return {i};");
                run(&pool, &slots, &code).await
            })
        });
        for (i, program) in programs.enumerate() {
            let outcome = program.await.expect("the task");
            assert_eq!(outcome.result, Ok(i.to_string()));
        }
        let started = pool.threads_started();
        assert!((1..=3).contains(&started), "{started} threads for 3 slots");
    }
}
