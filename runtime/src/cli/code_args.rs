//! The limits of code mode's programs (`--code-*`), read by servers built with the
//! `code-mode` feature.

use std::time::Duration;

use super::values::parse_positive_bytes;
use mcpgen_code::CodeLimits;

/// Limits of the programs `execute` runs in code mode (`--tool-mode code`). Each breach ends
/// the program with an error result naming the limit.
#[derive(Debug, Clone, clap::Args)]
pub struct CodeArgs {
    /// Seconds one code-mode program may run, waiting on its tool calls included (an inner
    /// call's upstream timeout is cut to the time left).
    ///
    /// The engine's interrupt handler stops a CPU-bound loop at the limit, and a promise that
    /// can never settle ends the program at once; either way the `execute` result is an error
    /// naming this flag. Programs run in worker processes of their own, never on the threads
    /// that answer requests, so a slow program does not hold up other calls; a worker that has
    /// not stopped half a second past the limit (an engine looping in its own C code) is
    /// killed and replaced, and its slot given back.
    ///
    /// See `--tool-mode` for the programming model and the threat model, and the book's "Code
    /// mode" page (docs/src/api-owner/code-mode.md).
    #[arg(
        long,
        env = "MCPGEN_CODE_TIMEOUT",
        default_value_t = 10,
        value_parser = clap::value_parser!(u64).range(1..),
        value_name = "SECONDS"
    )]
    pub code_timeout: u64,
    /// Bytes of memory one code-mode program may allocate.
    ///
    /// The limit is set on the program's engine before any of its code runs: an allocation
    /// past it fails inside the program, and the `execute` result is an error naming this
    /// flag. The engine's stack is fixed at 512 KiB; deeper recursion is an error naming the
    /// stack depth.
    ///
    /// See `--tool-mode` for the programming model and the threat model, and the book's "Code
    /// mode" page (docs/src/api-owner/code-mode.md).
    #[arg(
        long,
        env = "MCPGEN_CODE_MEMORY",
        default_value_t = 64 * 1024 * 1024,
        value_parser = parse_positive_bytes,
        value_name = "BYTES"
    )]
    pub code_memory: usize,
    /// Tool calls one code-mode program may make; the call past the limit stops the program,
    /// and nothing of it reaches the upstream.
    ///
    /// Each inner call is a real call of the caller's, counted by the rate limits and
    /// recorded in the audit log like a direct one; this bounds what one program may ask of
    /// the API, whatever loop it runs.
    ///
    /// See `--tool-mode` for the programming model and the threat model, and the book's "Code
    /// mode" page (docs/src/api-owner/code-mode.md).
    #[arg(
        long,
        env = "MCPGEN_CODE_MAX_CALLS",
        default_value_t = 50,
        value_parser = clap::value_parser!(u32).range(1..),
        value_name = "N"
    )]
    pub code_max_calls: u32,
    /// Bytes of result plus logs one code-mode program may return.
    ///
    /// The program's return value as JSON plus its `console` lines; past the limit the
    /// `execute` result is an error naming this flag, so no program can flood the model's
    /// context or the server's memory with its answer.
    ///
    /// See `--tool-mode` for the programming model and the threat model, and the book's "Code
    /// mode" page (docs/src/api-owner/code-mode.md).
    #[arg(
        long,
        env = "MCPGEN_CODE_MAX_OUTPUT",
        default_value_t = 256 * 1024,
        value_parser = parse_positive_bytes,
        value_name = "BYTES"
    )]
    pub code_max_output: usize,
    /// Code-mode programs running at once (default: 4 per core); more wait for a slot until
    /// their time runs out, then are refused as not run.
    ///
    /// Each running program holds a worker process and an engine of its own: this bounds how
    /// many exist at once. The wait for a slot counts against the program's `--code-timeout`.
    ///
    /// See `--tool-mode` for the programming model and the threat model, and the book's "Code
    /// mode" page (docs/src/api-owner/code-mode.md).
    #[arg(
        long,
        env = "MCPGEN_CODE_MAX_CONCURRENT",
        value_parser = clap::value_parser!(u64).range(1..),
        value_name = "N"
    )]
    pub code_max_concurrent: Option<u64>,
    /// Code-mode programs one principal may run at once (default: a quarter of
    /// `--code-max-concurrent`, at least 1).
    ///
    /// So that one caller running slow or runaway programs leaves slots to the others: a
    /// program past this waits for one of its caller's own to end, within its
    /// `--code-timeout`, and is otherwise refused as not run, naming this flag.
    ///
    /// See the book's "Code mode" page (docs/src/api-owner/code-mode.md).
    #[arg(
        long,
        env = "MCPGEN_CODE_MAX_PER_PRINCIPAL",
        value_parser = clap::value_parser!(u64).range(1..),
        value_name = "N"
    )]
    pub code_max_per_principal: Option<u64>,
    /// Most bytes of TypeScript declarations that `execute`'s description carries (0: none).
    ///
    /// When the declarations of all the tools a caller may call fit in this many bytes,
    /// `execute`'s description in `tools/list` ends with them: a model can then write its
    /// program in its first turn, without asking `search_tools` and `describe_tools` first.
    /// A larger API keeps the short description, so `tools/list` stays the same size however
    /// many tools there are. A caller sees only the declarations of tools it may call.
    ///
    /// See `--tool-mode` for the programming model, and the book's "Code mode" page
    /// (docs/src/api-owner/code-mode.md).
    #[arg(
        long,
        env = "MCPGEN_CODE_INLINE_DECLARATIONS",
        default_value_t = 8 * 1024,
        value_name = "BYTES"
    )]
    pub code_inline_declarations: usize,
}

impl CodeArgs {
    /// The limits these flags set.
    pub fn limits(&self) -> CodeLimits {
        let limits = CodeLimits::default()
            .with_timeout(Duration::from_secs(self.code_timeout))
            .with_memory(self.code_memory)
            .with_max_calls(self.code_max_calls)
            .with_max_output(self.code_max_output)
            .with_inline_declarations(self.code_inline_declarations);
        let limits = match self.code_max_concurrent {
            Some(n) => limits.with_max_concurrent(usize::try_from(n).unwrap_or(usize::MAX)),
            None => limits,
        };
        match self.code_max_per_principal {
            Some(n) => limits.with_max_per_principal(usize::try_from(n).unwrap_or(usize::MAX)),
            None => limits,
        }
    }
}
