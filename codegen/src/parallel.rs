//! Jobs on two threads: emission is mostly independent pieces of work (the argument types, the
//! output types, the tool table, the other files), and a second core shortens the longest
//! runs by the time of the pieces it takes.

use std::sync::Mutex;
use std::thread;

/// The second thread's stack: typify and syn recurse as deep as the schemas they are given,
/// so it gets at least the room of a process's main thread. Only the pages used are allocated.
const STACK_BYTES: usize = 64 * 1024 * 1024;

/// One job of [`run`].
pub(crate) type Job<'a, T> = Box<dyn FnOnce() -> T + Send + 'a>;

/// Runs `jobs` on this thread and a second one, each thread taking the next job not yet
/// started, and returns the results in the order of `jobs`. A panic in a job is resumed here.
///
/// Inside a procedural macro (`mcpgen::generate!`) every job runs on this thread, in order:
/// there `proc_macro2` tokens belong to the compiler, which serves only the macro's own thread.
/// They also do when no thread can be started.
pub(crate) fn run<T: Send>(jobs: Vec<Job<'_, T>>) -> Vec<T> {
    let count = jobs.len();
    let queue = Mutex::new(jobs.into_iter().enumerate());
    let results: Mutex<Vec<Option<T>>> = Mutex::new((0..count).map(|_| None).collect());
    let work = || {
        while let Some((index, job)) = queue.lock().ok().and_then(|mut queue| queue.next()) {
            let result = job();
            if let Ok(mut results) = results.lock()
                && let Some(slot) = results.get_mut(index)
            {
                *slot = Some(result);
            }
        }
    };
    if count > 1 && !proc_macro::is_available() {
        thread::scope(|scope| {
            let helper = thread::Builder::new()
                .name("mcpgen-emit".into())
                .stack_size(STACK_BYTES)
                .spawn_scoped(scope, work)
                .ok();
            work();
            if let Some(Err(panic)) = helper.map(|helper| helper.join()) {
                std::panic::resume_unwind(panic);
            }
        });
    } else {
        work();
    }
    results
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .into_iter()
        .flatten()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_job_runs_once_and_results_keep_the_order_of_the_jobs() {
        let jobs: Vec<Job<'_, usize>> = (0..20)
            .map(|i| Box::new(move || (0..=i).sum::<usize>()) as Job<'_, usize>)
            .collect();
        let expected: Vec<usize> = (0..20).map(|i| (0..=i).sum()).collect();
        assert_eq!(run(jobs), expected);
    }

    #[test]
    fn a_panic_in_a_job_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| {
            let jobs: Vec<Job<'_, u8>> = vec![Box::new(|| 1), Box::new(|| panic!("boom"))];
            run(jobs)
        });
        assert!(caught.is_err());
    }
}
