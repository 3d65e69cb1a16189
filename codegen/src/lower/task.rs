//! Whether an operation runs long: its tool runs as an MCP task and a `202 Accepted` with a
//! `Location` is polled until the operation ends.

use crate::allowlist::Entry;
use crate::spec::{Operation, Spec};

/// The entry's `task:` when set; otherwise whether `op` documents a `202` response with a
/// `Location` header (the usual shape of an operation that goes on after its answer).
pub(super) fn runs_long(op: &Operation, entry: &Entry) -> bool {
    entry.task.unwrap_or_else(|| accepts_for_later(op))
}

/// Whether `op` documents `202` with a `Location` header (header names are case-insensitive).
fn accepts_for_later(op: &Operation) -> bool {
    op.responses.get("202").is_some_and(|response| {
        response
            .headers
            .iter()
            .any(|name| name.eq_ignore_ascii_case("location"))
    })
}

/// The path templates of `spec`'s status endpoints that cancel by `DELETE`: paths whose `GET`
/// documents `202` (still working) or `303` (see the result), and which also document
/// `DELETE`. A task polling a status URL on such a path sends it `DELETE` when cancelled.
pub(super) fn cancel_paths(spec: &Spec) -> Vec<String> {
    let mut paths: Vec<String> = spec
        .operations
        .iter()
        .filter(|op| op.method == "get")
        .filter(|op| {
            ["202", "303"]
                .iter()
                .any(|code| op.responses.contains_key(*code))
        })
        .filter(|get| {
            spec.operations
                .iter()
                .any(|op| op.method == "delete" && op.path == get.path)
        })
        .map(|op| op.path.clone())
        .collect();
    paths.dedup();
    paths
}
