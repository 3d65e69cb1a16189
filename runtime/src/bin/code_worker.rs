//! A code-mode worker and nothing else: the program the runtime's own tests start as code
//! mode's worker process ([`CodeLimits::with_worker_program`]), since a test binary cannot
//! serve as one.
//!
//! [`CodeLimits::with_worker_program`]: mcpgen_runtime::code::CodeLimits::with_worker_program

fn main() -> std::process::ExitCode {
    mcpgen_runtime::code::run_worker_if_asked();
    eprintln!("mcpgen-code-worker runs only as code mode's worker, started by a server");
    std::process::ExitCode::from(2)
}
