//! The multi-threaded async runtime a server binary runs on: one worker thread per core the
//! process may use, or as many as `TOKIO_WORKER_THREADS` says; and [`block_on_main`], which
//! runs a server's `main` on it.
//!
//! The runtime library reads that variable itself and panics on a value it cannot use; read
//! here first, a bad value stops the start with an error that names the variable.

use std::ffi::OsString;
use std::process::ExitCode;

use tokio::runtime::{Builder, Runtime};

use super::logging::init_logging;

/// The variable that sets the number of worker threads (the runtime library's own name).
const WORKER_THREADS: &str = "TOKIO_WORKER_THREADS";

/// The most worker threads the variable may ask for.
const MAX_WORKER_THREADS: usize = 1024;

/// Sets up logging (`RUST_LOG`, to stderr), runs `main` on a multi-threaded async runtime (one
/// worker thread per core, or `TOKIO_WORKER_THREADS` of them) and turns its outcome into an
/// exit code, printing the error: the body of a server binary's `main`, for servers built by
/// hand (application tools) as for generated ones.
pub fn block_on_main(main: impl Future<Output = Result<(), String>>) -> ExitCode {
    let (tracing, runtime) = match init_logging().and_then(|t| Ok((t, build()?))) {
        Ok(started) => started,
        Err(message) => return failure(&message),
    };
    let outcome = runtime.block_on(main);
    drop(runtime);
    // Spans still in the batch go out before the process ends.
    #[cfg(feature = "otel")]
    if let Some(provider) = tracing
        && let Err(error) = provider.shutdown()
    {
        eprintln!("warning: OpenTelemetry export at exit: {error}");
    }
    #[cfg(not(feature = "otel"))]
    let () = tracing;
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => failure(&message),
    }
}

/// Prints `message` as the error that ends the process, and says it failed.
fn failure(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::FAILURE
}

/// Builds the runtime, with the worker count from `TOKIO_WORKER_THREADS` when it is set.
pub(super) fn build() -> Result<Runtime, String> {
    let mut builder = Builder::new_multi_thread();
    builder.enable_all();
    if let Some(threads) = worker_threads(std::env::var_os(WORKER_THREADS))? {
        builder.worker_threads(threads);
    }
    builder
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))
}

/// The worker count a value of `TOKIO_WORKER_THREADS` asks for (`None` when it is unset).
fn worker_threads(value: Option<OsString>) -> Result<Option<usize>, String> {
    let Some(value) = value else {
        return Ok(None);
    };
    value
        .to_str()
        .and_then(|text| text.trim().parse::<usize>().ok())
        .filter(|threads| (1..=MAX_WORKER_THREADS).contains(threads))
        .map(Some)
        .ok_or_else(|| {
            format!(
                "{WORKER_THREADS} must be a number of worker threads from 1 to \
                 {MAX_WORKER_THREADS}, not {:?}",
                value.to_string_lossy()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(value: &str) -> Result<Option<usize>, String> {
        worker_threads(Some(OsString::from(value)))
    }

    #[test]
    fn an_unset_variable_leaves_the_default() {
        assert_eq!(worker_threads(None), Ok(None));
    }

    #[test]
    fn a_count_in_range_is_taken() {
        assert_eq!(read("1"), Ok(Some(1)));
        assert_eq!(read(" 4 "), Ok(Some(4)));
        assert_eq!(read("1024"), Ok(Some(1024)));
    }

    #[test]
    fn other_values_are_refused_naming_the_variable_and_the_value() {
        for bad in [
            "",
            "0",
            "-1",
            "two",
            "1.5",
            "1025",
            "99999999999999999999999",
        ] {
            let error = read(bad).expect_err(bad);
            assert!(error.starts_with("TOKIO_WORKER_THREADS must be"), "{error}");
            assert!(error.contains(&format!("{bad:?}")), "{error}");
        }
    }
}
