//! Progress lines on stderr for long runs: quiet for the first two seconds of a run, then one
//! line per phase with the time elapsed, so a large spec never looks hung.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

static ENABLED: AtomicBool = AtomicBool::new(false);
static START: Mutex<Option<Instant>> = Mutex::new(None);

/// Turns progress lines on (the CLI does; the library is quiet by default) and starts the clock.
pub fn enable() {
    ENABLED.store(true, Ordering::Relaxed);
    if let Ok(mut start) = START.lock() {
        *start = Some(Instant::now());
    }
}

/// Reports that `phase` is starting, if enabled and the run has lasted more than two seconds.
pub fn step(phase: impl FnOnce() -> String) {
    if !ENABLED.load(Ordering::Relaxed) {
        return;
    }
    let elapsed = START
        .lock()
        .ok()
        .and_then(|s| *s)
        .map(|s| s.elapsed())
        .unwrap_or_default();
    if elapsed > Duration::from_secs(2) || std::env::var_os("MCPGEN_PROGRESS").is_some() {
        eprintln!("  [{:>6.1}s] {}", elapsed.as_secs_f64(), phase());
    }
}
