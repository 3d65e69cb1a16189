//! Whether an operation runs long: its tool runs as an MCP task and a `202 Accepted` with a
//! `Location` is polled until the operation ends.

use crate::allowlist::Entry;
use crate::spec::Operation;

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
