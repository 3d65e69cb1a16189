//! The limits a program runs under ([`CodeLimits`]) and, with the `code-mode` feature, the
//! breach of one (`Limit`), whose message names the limit and the flag that sets it.

use std::time::Duration;

/// Most bytes of native stack a program's JavaScript may use: deeper recursion fails with a
/// stack-depth error instead of overflowing the thread.
#[cfg(feature = "code-mode")]
pub(crate) const JS_STACK_BYTES: usize = 512 * 1024;

/// How long past its deadline (or its cancellation) a program's worker may take to stop
/// before it is killed: the slot comes back by the deadline plus this, whatever the engine
/// is doing.
#[cfg(feature = "code-mode")]
pub(crate) const STOP_GRACE: Duration = Duration::from_millis(500);

/// What a program run by `execute` may use, each limit reached ending the program with an
/// error result naming the limit; and how large the tools' declarations may be for
/// `execute`'s description to carry them.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CodeLimits {
    /// Wall-clock time of one program, waiting on its inner calls included
    /// (`--code-timeout`, default 10 s). An inner call's upstream timeout is capped to the
    /// time left.
    pub timeout: Duration,
    /// Bytes of memory one program's engine may allocate (`--code-memory`, default 64 MiB).
    pub memory: usize,
    /// Inner calls one program may make (`--code-max-calls`, default 50).
    pub max_calls: u32,
    /// Bytes of result plus logs one program may return (`--code-max-output`, default
    /// 256 KiB).
    pub max_output: usize,
    /// Programs running at once (`--code-max-concurrent`, default 4 per core); more wait for
    /// a slot until their time runs out, then are refused.
    pub max_concurrent: usize,
    /// Programs one principal may run at once (`--code-max-per-principal`; `None`: a
    /// quarter of [`max_concurrent`](Self::max_concurrent), at least 1), so that one caller's
    /// runaway programs leave slots to the others.
    pub max_per_principal: Option<usize>,
    /// The program started as code mode's worker process (`None`: this process's own
    /// executable). It must call `code::run_worker_if_asked` (feature `code-mode`) first
    /// thing in its `main`.
    pub worker_program: Option<std::path::PathBuf>,
    /// Most bytes of TypeScript declarations `execute`'s description carries
    /// (`--code-inline-declarations`, default 8 KiB): when the declarations of every tool fit,
    /// the description has them, and a model can write its program without asking
    /// `search_tools` and `describe_tools` first. 0: never.
    pub inline_declarations: usize,
}

impl Default for CodeLimits {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        Self {
            timeout: Duration::from_secs(10),
            memory: 64 * 1024 * 1024,
            max_calls: 50,
            max_output: 256 * 1024,
            max_concurrent: 4 * cores,
            max_per_principal: None,
            worker_program: None,
            inline_declarations: 8 * 1024,
        }
    }
}

impl CodeLimits {
    /// Sets the wall-clock time of one program.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the bytes of memory one program may allocate.
    pub fn with_memory(mut self, bytes: usize) -> Self {
        self.memory = bytes;
        self
    }

    /// Sets the inner calls one program may make.
    pub fn with_max_calls(mut self, calls: u32) -> Self {
        self.max_calls = calls;
        self
    }

    /// Sets the bytes of result plus logs one program may return.
    pub fn with_max_output(mut self, bytes: usize) -> Self {
        self.max_output = bytes;
        self
    }

    /// Sets the most bytes of declarations `execute`'s description carries (0: none).
    pub fn with_inline_declarations(mut self, bytes: usize) -> Self {
        self.inline_declarations = bytes;
        self
    }

    /// Sets how many programs one principal may run at once (at least one).
    pub fn with_max_per_principal(mut self, programs: usize) -> Self {
        self.max_per_principal = Some(programs.max(1));
        self
    }

    /// Sets the program started as code mode's worker process (by default this process's
    /// own executable), for a binary other than the server's: a test's, for one.
    pub fn with_worker_program(mut self, program: impl Into<std::path::PathBuf>) -> Self {
        self.worker_program = Some(program.into());
        self
    }

    /// Programs one principal may run at once: [`max_per_principal`](Self::max_per_principal)
    /// or a quarter of [`max_concurrent`](Self::max_concurrent), at least 1, never more than
    /// `max_concurrent`.
    pub fn per_principal(&self) -> usize {
        self.max_per_principal
            .unwrap_or(self.max_concurrent / 4)
            .clamp(1, self.max_concurrent.max(1))
    }

    /// Sets how many programs may run at once (at least one).
    pub fn with_max_concurrent(mut self, programs: usize) -> Self {
        self.max_concurrent = programs.max(1);
        self
    }
}

/// A limit a program reached, or why it was stopped from outside.
#[cfg(feature = "code-mode")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum Limit {
    Time,
    Memory,
    Stack,
    Calls,
    Output,
    Concurrency,
    /// The programs one principal may run at once.
    PerPrincipal,
    /// Not a limit: the caller cancelled the request or went away.
    Cancelled,
}

#[cfg(feature = "code-mode")]
impl Limit {
    /// The code [`Stop`](crate::engine::Stop) keeps (never 0, which means "running").
    pub(crate) fn code(self) -> u8 {
        match self {
            Self::Time => 1,
            Self::Memory => 2,
            Self::Stack => 3,
            Self::Calls => 4,
            Self::Output => 5,
            Self::Concurrency => 6,
            Self::Cancelled => 7,
            Self::PerPrincipal => 8,
        }
    }

    /// The limit of [`code`](Self::code), if it is one.
    pub(crate) fn from_code(code: u8) -> Option<Self> {
        Some(match code {
            1 => Self::Time,
            2 => Self::Memory,
            3 => Self::Stack,
            4 => Self::Calls,
            5 => Self::Output,
            6 => Self::Concurrency,
            7 => Self::Cancelled,
            8 => Self::PerPrincipal,
            _ => return None,
        })
    }

    /// What the `execute` result says: which limit, its value and the flag that sets it.
    pub(crate) fn message(self, limits: &CodeLimits) -> String {
        match self {
            Self::Time => format!(
                "the program was stopped at its time limit of {} s (--code-timeout), waiting \
                 on tool calls included",
                limits.timeout.as_secs_f64()
            ),
            Self::Memory => format!(
                "the program ran out of memory: it may allocate {} bytes (--code-memory)",
                limits.memory
            ),
            Self::Stack => format!(
                "the program exceeded the stack depth limit ({} KiB of stack; too deep a \
                 recursion)",
                JS_STACK_BYTES / 1024
            ),
            Self::Calls => format!(
                "the program was stopped at its limit of {} tool calls (--code-max-calls); \
                 no call past the limit was made",
                limits.max_calls
            ),
            Self::Output => format!(
                "the program's result and logs passed their limit of {} bytes \
                 (--code-max-output); return less",
                limits.max_output
            ),
            Self::Concurrency => format!(
                "the program was not run: {} programs were running, the most at once \
                 (--code-max-concurrent), and no slot came free in time; retry later",
                limits.max_concurrent
            ),
            Self::PerPrincipal => format!(
                "the program was not run: this caller was running {} programs, the most one \
                 caller may run at once (--code-max-per-principal), and none ended in time; \
                 retry when one has ended",
                limits.per_principal()
            ),
            Self::Cancelled => "the program was stopped: the request was cancelled".to_owned(),
        }
    }
}
