//! Access, annotation hints and confirmation. Access is decided here once: from the HTTP method
//! ([`method_access`]) unless the allowlist entry sets `access:`; annotations derive from it and
//! the entry's `annotations:` override the hints, never the access.

use crate::allowlist::Entry;
use crate::ir;

/// The access an HTTP method implies: GET, HEAD, OPTIONS and TRACE read; every other method
/// writes. The method's case does not matter.
pub fn method_access(method: &str) -> ir::Access {
    let reads = ["GET", "HEAD", "OPTIONS", "TRACE"]
        .iter()
        .any(|m| m.eq_ignore_ascii_case(method));
    if reads {
        ir::Access::Read
    } else {
        ir::Access::Write
    }
}

/// A tool's access: the entry's `access:` when set, else what the method implies
/// ([`method_access`]). Annotations never change it.
pub fn access(method: &str, entry: &Entry) -> ir::Access {
    entry.access.unwrap_or_else(|| method_access(method))
}

/// Whether calls need the person's confirmation: the entry's `confirm:` when set, else the
/// server block's `confirm_destructive` for a write whose `destructive` hint is set.
pub(super) fn confirm(access: ir::Access, annotations: ir::Annotations, entry: &Entry) -> bool {
    entry.confirm.unwrap_or(
        entry.confirm_destructive
            && access == ir::Access::Write
            && annotations.destructive == Some(true),
    )
}

/// Annotation hints: from the access (a read is `readOnlyHint`; a write is destructive when
/// the method is DELETE and idempotent when it is PUT or DELETE), then the entry's
/// `annotations:` overrides. `method` is upper-case.
pub(super) fn annotations_for(method: &str, access: ir::Access, entry: &Entry) -> ir::Annotations {
    let mut a = match access {
        ir::Access::Read => ir::Annotations {
            read_only: Some(true),
            ..Default::default()
        },
        ir::Access::Write => ir::Annotations {
            read_only: Some(false),
            destructive: Some(method == "DELETE"),
            idempotent: Some(matches!(method, "PUT" | "DELETE")),
            open_world: None,
        },
    };
    let o = entry.annotations;
    a.read_only = o.read_only.or(a.read_only);
    a.destructive = o.destructive.or(a.destructive);
    a.idempotent = o.idempotent.or(a.idempotent);
    a.open_world = o.open_world.or(a.open_world);
    a
}
