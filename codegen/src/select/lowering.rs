//! Lowering the selected operations on two threads, with the outcome of lowering them one
//! after another in allowlist order.
//!
//! The tools are cut into runs of consecutive entries, each lowered in order with its own
//! [`ir::FullDefs`]; runs are shared out between this thread and a second one (see
//! [`crate::parallel`]), and their results are put back in entry order. Referenced schemas are
//! converted once for all runs through one [`SharedDefs`].
//!
//! A definition in the full schemas is kept from the first tool that reaches it: merging the
//! runs' definitions in run order, each name from the first run that has it, gives what one
//! ordered pass gives, because a definition converts the same in every tool. That stops being
//! so once a conversion hoists schema-local `$defs` (see [`crate::schema::SharedDefs`]): then
//! the tools are lowered again, one after another, as selection always did.

use std::path::Path;

use crate::allowlist::Entry;
use crate::error::{Error, Warning};
use crate::ir;
use crate::lower;
use crate::naming::ToolNames;
use crate::parallel;
use crate::schema::SharedDefs;
use crate::spec::{Operation, Spec};

/// One operation to lower: the file and entry that select it, the operation, its names.
pub(super) struct Job<'a> {
    pub(super) file: &'a Path,
    pub(super) entry: &'a Entry,
    pub(super) op: &'a Operation,
    pub(super) names: ToolNames,
}

/// What lowering one operation gave.
pub(super) type Lowered = Result<(ir::Tool, Vec<Warning>), Error>;

/// Fewest tools in a run: below this, a second thread is not worth starting.
const RUN_TOOLS: usize = 16;
/// Most runs: each run walks the full schemas' definitions it reaches once more.
const MAX_RUNS: usize = 6;

/// Lowers `jobs` (in allowlist order); returns each one's outcome in the same order and the
/// definitions the full schemas reach.
pub(super) fn lower_all(
    spec: &Spec,
    document_url: Option<&str>,
    jobs: Vec<Job<'_>>,
) -> (Vec<Lowered>, ir::FullDefs) {
    let runs = (jobs.len() / RUN_TOOLS).clamp(1, MAX_RUNS);
    if runs > 1 {
        let shared = SharedDefs::new();
        let per_run = jobs.len().div_ceil(runs);
        let parts: Vec<parallel::Job<'_, (Vec<Lowered>, ir::FullDefs)>> = jobs
            .chunks(per_run)
            .map(|run| {
                let shared = &shared;
                Box::new(move || lower_run(spec, document_url, run, shared))
                    as parallel::Job<'_, (Vec<Lowered>, ir::FullDefs)>
            })
            .collect();
        let results = parallel::run(parts);
        if !shared.stopped() {
            let mut lowered = Vec::with_capacity(jobs.len());
            let mut full = ir::FullDefs::default();
            for (run, defs) in results {
                lowered.extend(run);
                for (name, def) in defs.input {
                    full.input.entry(name).or_insert(def);
                }
                for (name, def) in defs.output {
                    full.output.entry(name).or_insert(def);
                }
            }
            return (lowered, full);
        }
    }
    lower_run(spec, document_url, &jobs, &SharedDefs::new())
}

/// Lowers `jobs` one after another, sharing conversions through `shared`.
fn lower_run<'s>(
    spec: &'s Spec,
    document_url: Option<&str>,
    jobs: &[Job<'_>],
    shared: &'s SharedDefs<'s>,
) -> (Vec<Lowered>, ir::FullDefs) {
    let mut full = ir::FullDefs::default();
    let lowered = jobs
        .iter()
        .map(|job| {
            lower::tool(
                spec,
                job.file,
                job.entry,
                job.op,
                job.names.clone(),
                document_url,
                lower::Definitions {
                    shared,
                    full: &mut full,
                },
            )
        })
        .collect();
    (lowered, full)
}
