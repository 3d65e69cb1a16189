//! A code-mode worker and nothing else: the program the runtime's own tests start as code
//! mode's worker process ([`CodeLimits::with_worker_program`]), since a test binary cannot
//! serve as one. Its test-only hooks are on.
//!
//! [`CodeLimits::with_worker_program`]: mcpgen_runtime::code::CodeLimits::with_worker_program

fn main() -> std::process::ExitCode {
    // SAFETY: nothing else runs yet; the tests' worker may run the hooks that make it crash or
    // try to escape (debug builds only).
    unsafe { std::env::set_var("MCPGEN_CODE_TEST_HOOKS", "1") };
    mcpgen_runtime::code::run_worker_if_asked();
    eprintln!("mcpgen-code-worker runs only as code mode's worker, started by a server");
    std::process::ExitCode::from(2)
}
