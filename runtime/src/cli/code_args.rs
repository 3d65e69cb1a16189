//! The limits of code mode's programs (`--code-*`), read by servers built with the
//! `code-mode` feature.

use std::time::Duration;

use super::values::parse_positive_bytes;
use crate::code::CodeLimits;

/// Limits of the programs `execute` runs in code mode (`--tool-mode code`). Each breach ends
/// the program with an error result naming the limit.
#[derive(Debug, Clone, clap::Args)]
pub struct CodeArgs {
    /// Seconds one code-mode program may run, waiting on its tool calls included (an inner
    /// call's upstream timeout is cut to the time left).
    #[arg(
        long,
        env = "MCPGEN_CODE_TIMEOUT",
        default_value_t = 10,
        value_parser = clap::value_parser!(u64).range(1..),
        value_name = "SECONDS"
    )]
    pub code_timeout: u64,
    /// Bytes of memory one code-mode program may allocate.
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
    #[arg(
        long,
        env = "MCPGEN_CODE_MAX_CALLS",
        default_value_t = 50,
        value_parser = clap::value_parser!(u32).range(1..),
        value_name = "N"
    )]
    pub code_max_calls: u32,
    /// Bytes of result plus logs one code-mode program may return.
    #[arg(
        long,
        env = "MCPGEN_CODE_MAX_OUTPUT",
        default_value_t = 256 * 1024,
        value_parser = parse_positive_bytes,
        value_name = "BYTES"
    )]
    pub code_max_output: usize,
    /// Code-mode programs running at once (default: 4 per core); more wait for a slot until
    /// their time runs out, then are refused.
    #[arg(
        long,
        env = "MCPGEN_CODE_MAX_CONCURRENT",
        value_parser = clap::value_parser!(u64).range(1..),
        value_name = "N"
    )]
    pub code_max_concurrent: Option<u64>,
}

impl CodeArgs {
    /// The limits these flags set.
    pub fn limits(&self) -> CodeLimits {
        let limits = CodeLimits::default()
            .with_timeout(Duration::from_secs(self.code_timeout))
            .with_memory(self.code_memory)
            .with_max_calls(self.code_max_calls)
            .with_max_output(self.code_max_output);
        match self.code_max_concurrent {
            Some(n) => limits.with_max_concurrent(usize::try_from(n).unwrap_or(usize::MAX)),
            None => limits,
        }
    }
}
