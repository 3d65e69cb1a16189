//! The worker processes programs run in, kept warm between programs (the server's side).
//!
//! A worker is this server's own binary (or [`CodeLimits::worker_program`]) started with
//! `protocol::WORKER_ENV` set, talking over its standard input and output (`protocol`). It
//! runs one program at a time, each in a sandbox it made for that program alone before the
//! program came. A worker whose program ended is put back on the idle list; one that was
//! killed, died or said something out of turn is not, and the next program starts a new one.
//! There are never more workers than programs may run at once (the caller holds a slot for
//! each), and an idle one is reaped by [`IDLE_EXIT`].

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::limits::CodeLimits;
use crate::protocol::{
    self, FrameError, Frames, FromWorker, HOOKS_ENV, MAGIC, ToWorker, VERSION, WORKER_ENV,
};

/// How long a starting worker may take to say hello and to be set up.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a worker stays idle before it is ended.
const IDLE_EXIT: Duration = Duration::from_secs(300);

/// The function a binary's `main` must call to serve as a worker, as errors name it.
const ENTRY: &str = "mcpgen::code::run_worker_if_asked()";

/// One worker process, set up and waiting for a program or running one.
pub(crate) struct Worker {
    child: Child,
    to: ChildStdin,
    /// The worker's messages.
    from: Frames<ChildStdout>,
    /// The number of its next program.
    next_seq: u64,
    idle_since: Instant,
}

impl Worker {
    /// Sends `message`.
    pub(crate) async fn send(&mut self, message: &ToWorker) -> Result<(), FrameError> {
        protocol::write(&mut self.to, message).await
    }

    /// The next message, or why none can come.
    pub(crate) async fn receive(&mut self) -> Result<FromWorker, FrameError> {
        self.from.next().await
    }

    /// Tells the worker to stop its program (`SIGUSR1`); it answers with the program's end.
    pub(crate) fn stop(&self) {
        #[cfg(unix)]
        if let Some(pid) = self
            .child
            .id()
            .and_then(|pid| libc::pid_t::try_from(pid).ok())
        {
            // SAFETY: `kill` only sends a signal, to a child this pool started and has not
            // reaped (its id is `None` once it has been).
            unsafe { libc::kill(pid, libc::SIGUSR1) };
        }
    }

    /// The number of a new program of this worker.
    pub(crate) fn next_seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    /// Kills the worker (`SIGKILL`) and reaps it.
    pub(crate) async fn kill(mut self) {
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
    }

    /// How the worker ended, once it has (waiting at most `grace`), in words.
    pub(crate) async fn death(mut self, grace: Duration) -> String {
        let status = tokio::time::timeout(grace, self.child.wait()).await;
        match status {
            Ok(Ok(status)) => describe_exit(status),
            _ => {
                let _ = self.child.start_kill();
                let _ = self.child.wait().await;
                "it stopped answering and was killed".to_owned()
            }
        }
    }
}

/// A worker's exit status in words.
fn describe_exit(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                6 => " (SIGABRT: it aborted)",
                9 => " (SIGKILL: killed, for example by the kernel when out of memory)",
                11 => " (SIGSEGV: a memory fault)",
                _ => "",
            };
            return format!("it was ended by signal {signal}{name}");
        }
    }
    match status.code() {
        Some(code) => format!("it exited with status {code}"),
        None => "it ended".to_owned(),
    }
}

/// The warm workers of one code mode.
#[derive(Debug)]
pub(crate) struct Pool {
    limits: CodeLimits,
    program: PathBuf,
    idle: Mutex<Vec<Worker>>,
}

impl std::fmt::Debug for Worker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Worker")
            .field("pid", &self.child.id())
            .finish_non_exhaustive()
    }
}

impl Pool {
    /// A pool for programs under `limits`, having checked that its program starts as a worker.
    pub(crate) fn new(limits: CodeLimits) -> Result<Self, String> {
        let program = match &limits.worker_program {
            Some(program) => program.clone(),
            None => std::env::current_exe()
                .map_err(|e| format!("cannot find this program's own executable: {e}"))?,
        };
        let unconfined = check(&program, &limits)?;
        match unconfined {
            None => tracing::debug!(
                program = %program.display(),
                "code mode: programs run in confined worker processes"
            ),
            Some(why) => tracing::warn!(
                program = %program.display(),
                "code mode: worker processes are not confined ({why}); programs are bounded \
                 by the engine's own limits only"
            ),
        }
        Ok(Self {
            limits,
            program,
            idle: Mutex::new(Vec::new()),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Worker>> {
        // The list stays whole whatever panicked while holding it.
        self.idle.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The worker that went idle last, or a new one; idle workers past [`IDLE_EXIT`] are
    /// ended on the way.
    pub(crate) async fn take(&self) -> Result<Worker, String> {
        let (worker, stale) = {
            let mut idle = self.lock();
            let now = Instant::now();
            let (stale, fresh): (Vec<_>, Vec<_>) = idle
                .drain(..)
                .partition(|w| now.duration_since(w.idle_since) > IDLE_EXIT);
            *idle = fresh;
            (idle.pop(), stale)
        };
        for worker in stale {
            tokio::spawn(worker.kill());
        }
        match worker {
            Some(worker) => Ok(worker),
            None => self.start().await,
        }
    }

    /// Puts `worker`, whose program ended as it should, back on the idle list.
    pub(crate) fn give_back(&self, mut worker: Worker) {
        worker.idle_since = Instant::now();
        self.lock().push(worker);
    }

    /// Starts a worker and sets it up.
    async fn start(&self) -> Result<Worker, String> {
        let mut child = command(&self.program)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start a worker ({}): {e}", self.program.display()))?;
        let (Some(to), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("a worker was started without its pipes".to_owned());
        };
        let mut worker = Worker {
            child,
            to,
            from: Frames::new(stdout),
            next_seq: 0,
            idle_since: Instant::now(),
        };
        let set_up = async {
            hello(worker.receive().await)?;
            worker
                .send(&setup(&self.limits))
                .await
                .map_err(|e| e.to_string())?;
            match worker.receive().await {
                Ok(FromWorker::Ready { .. }) => Ok(()),
                Ok(other) => Err(format!("a worker answered its set-up with {other:?}")),
                Err(e) => Err(format!("a worker failed its set-up: {e}")),
            }
        };
        match tokio::time::timeout(START_TIMEOUT, set_up).await {
            Ok(Ok(())) => Ok(worker),
            Ok(Err(why)) => {
                worker.kill().await;
                Err(why)
            }
            Err(_) => {
                worker.kill().await;
                Err(format!(
                    "a worker did not get ready within {} s",
                    START_TIMEOUT.as_secs()
                ))
            }
        }
    }
}

/// How a worker of `program` is started.
fn command(program: &std::path::Path) -> Command {
    let mut command = Command::new(program);
    command
        // Nothing of the server's environment (its upstream credentials among it) is in a
        // worker's memory for a compromised engine to find.
        .env_clear()
        .envs(worker_env())
        // A binary that does not serve as a worker then fails at once on an argument it does
        // not know, rather than serving.
        .arg("--mcpgen-code-worker")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    command
}

/// A worker's whole environment: the variable that makes it one, and in debug builds the one
/// that lets its test-only hooks run, if the server has it.
fn worker_env() -> Vec<(&'static str, std::ffi::OsString)> {
    let mut env = vec![(WORKER_ENV, "1".into())];
    if cfg!(debug_assertions)
        && let Some(hooks) = std::env::var_os(HOOKS_ENV)
    {
        env.push((HOOKS_ENV, hooks));
    }
    env
}

/// The set-up message for `limits`.
fn setup(limits: &CodeLimits) -> ToWorker {
    ToWorker::Setup {
        memory: limits.memory,
        max_calls: limits.max_calls,
        max_output: limits.max_output,
    }
}

/// Whether `first` is a worker's hello.
fn hello(first: Result<FromWorker, FrameError>) -> Result<(), String> {
    match first {
        Ok(FromWorker::Hello { magic, version }) if magic == MAGIC && version == VERSION => Ok(()),
        Ok(FromWorker::Hello { magic, version }) => Err(format!(
            "the worker speaks {magic} version {version}, not {MAGIC} version {VERSION}: the \
             worker program is another build than the server"
        )),
        Ok(other) => Err(format!(
            "a worker began with {other:?} instead of its hello"
        )),
        Err(error) => Err(not_a_worker(&error.to_string())),
    }
}

fn not_a_worker(what: &str) -> String {
    format!(
        "the program did not start as a code-mode worker ({what}); a binary serving code mode \
         must call `{ENTRY}` first thing in its `main` (generated servers do)"
    )
}

/// Starts `program` as a worker once, blocking, to see that it answers as one; the worker's
/// reason for running unconfined, if it is.
fn check(program: &std::path::Path, limits: &CodeLimits) -> Result<Option<String>, String> {
    let mut command = std::process::Command::new(program);
    command
        .env_clear()
        .envs(worker_env())
        .arg("--mcpgen-code-worker")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start a worker ({}): {e}", program.display()))?;
    let (Some(mut to), Some(mut from)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err("a worker was started without its pipes".to_owned());
    };
    let setup = setup(limits);
    let (done, answer) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut talk = || -> Result<Option<String>, String> {
            hello(protocol::read_sync(&mut from))?;
            protocol::write_sync(&mut to, &setup).map_err(|e| e.to_string())?;
            match protocol::read_sync::<FromWorker>(&mut from) {
                Ok(FromWorker::Ready { unconfined }) => Ok(unconfined),
                Ok(other) => Err(format!("a worker answered its set-up with {other:?}")),
                Err(e) => Err(format!("a worker failed its set-up: {e}")),
            }
        };
        let _ = done.send(talk());
    });
    let answer = answer
        .recv_timeout(START_TIMEOUT)
        .unwrap_or_else(|_| Err(not_a_worker("no hello within 10 s")));
    let _ = child.kill();
    let _ = child.wait();
    answer
}
