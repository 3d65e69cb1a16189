//! The diff as Markdown (for a pull-request comment) and as JSON.

use serde_json::{Value, json};

use super::{ChangeKind, SurfaceDiff};

/// The sections, in the order a reviewer reads them.
const SECTIONS: [(ChangeKind, &str); 7] = [
    (ChangeKind::Removed, "Removed tools"),
    (ChangeKind::Breaking, "Breaking input changes"),
    (ChangeKind::Security, "Security changes"),
    (ChangeKind::Added, "Added tools"),
    (ChangeKind::Output, "Output schema changes"),
    (
        ChangeKind::Policy,
        "Access, annotations, scope and confirmation",
    ),
    (ChangeKind::Compatible, "Compatible changes"),
];

pub(super) fn markdown(diff: &SurfaceDiff, old: &str, new: &str) -> String {
    let mut out = format!("## Tool surface: `{old}` → `{new}`\n\n");
    if diff.is_empty() {
        out.push_str("No changes.\n");
        return out;
    }
    let counts: Vec<String> = SECTIONS
        .iter()
        .filter_map(|(kind, _)| {
            let n = diff.count(*kind);
            (n > 0).then(|| format!("{n} {}", kind.as_str()))
        })
        .collect();
    out.push_str(&format!("**{}**\n", counts.join(", ")));
    for (kind, title) in SECTIONS {
        let changes: Vec<_> = diff.changes.iter().filter(|c| c.kind == kind).collect();
        if changes.is_empty() {
            continue;
        }
        out.push_str(&format!("\n### {title}\n\n"));
        for c in changes {
            if c.pointer.is_empty() {
                out.push_str(&format!("- `{}`: {}\n", c.tool, c.message));
            } else {
                out.push_str(&format!(
                    "- `{}`: {} (`{}`)\n",
                    c.tool, c.message, c.pointer
                ));
            }
        }
    }
    out
}

pub(super) fn json(diff: &SurfaceDiff) -> Value {
    let mut summary = serde_json::Map::new();
    for (kind, _) in SECTIONS {
        summary.insert(kind.as_str().into(), json!(diff.count(kind)));
    }
    json!({
        "summary": summary,
        "changes": diff.changes.iter().map(|c| json!({
            "kind": c.kind.as_str(),
            "tool": c.tool,
            "pointer": c.pointer,
            "message": c.message,
        })).collect::<Vec<_>>(),
    })
}
