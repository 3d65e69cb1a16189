//! Filtering the operations of a spec by tag, path prefix, method and access, and excluding
//! some by tag, path prefix or operation, for `mcpgen init` and `mcpgen list`.

use super::closest::closest;
use crate::error::Error;
use crate::ir;
use crate::lower;
use crate::spec::{METHODS, Operation, Spec};

/// Which operations to keep. Different filters must all match; several values of one filter
/// mean any of them. An operation an exclusion names is left out whatever the filters say.
/// Messages name the filters by their `mcpgen` flags (`--tag`, `--path-prefix`, `--method`,
/// `--read-only`, `--exclude-tag`, `--exclude-path-prefix`, `--exclude-operation`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OperationFilter {
    /// Only operations that read (GET, HEAD, OPTIONS, TRACE).
    pub read_only: bool,
    /// Only operations carrying one of these OpenAPI tags.
    pub tags: Vec<String>,
    /// Only operations whose path starts with one of these prefixes.
    pub path_prefixes: Vec<String>,
    /// Only operations with one of these HTTP methods, case-insensitive.
    pub methods: Vec<String>,
    /// Leave out operations carrying one of these OpenAPI tags.
    pub exclude_tags: Vec<String>,
    /// Leave out operations whose path starts with one of these prefixes.
    pub exclude_path_prefixes: Vec<String>,
    /// Leave out these operations, named by operationId or `METHOD /path`.
    pub exclude_operations: Vec<String>,
}

impl OperationFilter {
    /// Whether any filter was given.
    pub fn is_set(&self) -> bool {
        self.read_only
            || !self.tags.is_empty()
            || !self.path_prefixes.is_empty()
            || !self.methods.is_empty()
    }

    /// Whether an exclusion was given.
    fn excludes_any(&self) -> bool {
        !self.exclude_tags.is_empty()
            || !self.exclude_path_prefixes.is_empty()
            || !self.exclude_operations.is_empty()
    }

    /// Whether `op` passes every filter and no exclusion names it.
    pub fn matches(&self, op: &Operation) -> bool {
        self.access_matches(op)
            && self.tag_matches(op)
            && self.prefix_matches(op)
            && self.method_matches(op)
            && !self.excluded(op)
    }

    /// Whether an exclusion names `op`.
    pub fn excluded(&self, op: &Operation) -> bool {
        self.exclude_tags.iter().any(|t| op.tags.contains(t))
            || self
                .exclude_path_prefixes
                .iter()
                .any(|p| op.path.starts_with(p))
            || self
                .exclude_operations
                .iter()
                .any(|wanted| names_operation(wanted, op))
    }

    fn tag_matches(&self, op: &Operation) -> bool {
        self.tags.is_empty() || self.tags.iter().any(|t| op.tags.contains(t))
    }

    fn prefix_matches(&self, op: &Operation) -> bool {
        self.path_prefixes.is_empty() || self.path_prefixes.iter().any(|p| op.path.starts_with(p))
    }

    fn method_matches(&self, op: &Operation) -> bool {
        self.methods.is_empty()
            || self
                .methods
                .iter()
                .any(|m| m.trim().eq_ignore_ascii_case(&op.method))
    }

    fn access_matches(&self, op: &Operation) -> bool {
        !self.read_only || lower::method_access(&op.method) == ir::Access::Read
    }

    /// The filters given, as flags, for messages.
    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.read_only {
            parts.push("--read-only".to_owned());
        }
        for (flag, values) in [
            ("--tag", &self.tags),
            ("--path-prefix", &self.path_prefixes),
            ("--method", &self.methods),
        ] {
            if !values.is_empty() {
                let alternatives: Vec<String> =
                    values.iter().map(|v| format!("{flag} {v}")).collect();
                parts.push(alternatives.join(" or "));
            }
        }
        for (flag, values) in [
            ("--exclude-tag", &self.exclude_tags),
            ("--exclude-path-prefix", &self.exclude_path_prefixes),
            ("--exclude-operation", &self.exclude_operations),
        ] {
            for value in values {
                parts.push(format!("{flag} {value}"));
            }
        }
        parts.join(", ")
    }
}

/// The allowlist selector of `op`: its operationId, else `METHOD /path`.
pub fn selector(op: &Operation) -> String {
    op.operation_id
        .clone()
        .unwrap_or_else(|| format!("{} {}", op.method.to_ascii_uppercase(), op.path))
}

/// The operations of `spec` that `filter` keeps, in spec order. A filter value that matches
/// no operation on its own is an error naming the closest values the spec has; so is a
/// combination of filters that leaves nothing. All such problems are reported together, in one
/// [`Error::Other`].
pub fn filter_operations<'a>(
    spec: &'a Spec,
    filter: &OperationFilter,
) -> Result<Vec<&'a Operation>, Error> {
    let shown = spec.path.display();
    if spec.operations.is_empty() && filter.is_set() {
        return Err(Error::Other(format!(
            "{shown} has no operations that can be read; there is nothing to filter"
        )));
    }
    let mut problems = Vec::new();
    let mut used_tags: Vec<&str> = spec
        .operations
        .iter()
        .flat_map(|op| op.tags.iter().map(String::as_str))
        .collect();
    used_tags.sort_unstable();
    used_tags.dedup();
    for tag in &filter.tags {
        if used_tags.contains(&tag.as_str()) {
            continue;
        }
        problems.push(if used_tags.is_empty() {
            format!("--tag {tag}: no operation in {shown} carries a tag")
        } else {
            format!(
                "--tag {tag}: no operation in {shown} carries this tag; closest: {}",
                quoted_closest(tag, used_tags.iter().copied())
            )
        });
    }
    let mut prefixes: Vec<String> = spec
        .operations
        .iter()
        .flat_map(|op| path_prefixes(&op.path))
        .collect();
    prefixes.sort_unstable();
    prefixes.dedup();
    for prefix in &filter.path_prefixes {
        if !spec.operations.iter().any(|op| op.path.starts_with(prefix)) {
            problems.push(format!(
                "--path-prefix {prefix}: no path in {shown} starts with it; closest: {}",
                quoted_closest(prefix, prefixes.iter().map(String::as_str))
            ));
        }
    }
    let mut used_methods: Vec<String> = spec
        .operations
        .iter()
        .map(|op| op.method.to_ascii_uppercase())
        .collect();
    used_methods.sort_unstable();
    used_methods.dedup();
    for method in &filter.methods {
        let known = METHODS
            .iter()
            .any(|m| m.eq_ignore_ascii_case(method.trim()));
        if !known {
            let all: Vec<String> = METHODS.iter().map(|m| m.to_ascii_uppercase()).collect();
            problems.push(format!(
                "--method {method}: not an HTTP method; use one of {}",
                all.join(", ")
            ));
        } else if !used_methods
            .iter()
            .any(|m| m.eq_ignore_ascii_case(method.trim()))
        {
            problems.push(format!(
                "--method {method}: no operation in {shown} uses it; the spec uses {}",
                used_methods.join(", ")
            ));
        }
    }
    let selection_problems = problems.len();
    for tag in &filter.exclude_tags {
        if !used_tags.contains(&tag.as_str()) {
            problems.push(format!(
                "--exclude-tag {tag}: no operation in {shown} carries this tag; closest: {}",
                quoted_closest(tag, used_tags.iter().copied())
            ));
        }
    }
    for prefix in &filter.exclude_path_prefixes {
        if !spec.operations.iter().any(|op| op.path.starts_with(prefix)) {
            problems.push(format!(
                "--exclude-path-prefix {prefix}: no path in {shown} starts with it; closest: {}",
                quoted_closest(prefix, prefixes.iter().map(String::as_str))
            ));
        }
    }
    let selectors: Vec<String> = spec.operations.iter().map(selector).collect();
    for wanted in &filter.exclude_operations {
        if !spec.operations.iter().any(|op| names_operation(wanted, op)) {
            problems.push(format!(
                "--exclude-operation {wanted}: no operation in {shown} has this operationId \
                 or `METHOD /path`; closest: {}",
                quoted_closest(wanted, selectors.iter().map(String::as_str))
            ));
        }
    }
    if !problems.is_empty() {
        let lines: Vec<String> = problems.iter().map(|p| format!("  {p}")).collect();
        let what = if selection_problems == 0 {
            "an exclusion matches no operation"
        } else {
            "the selection matches nothing"
        };
        return Err(Error::Other(format!(
            "{what} (run `mcpgen list --spec {shown}` to see every operation):\n{}",
            lines.join("\n")
        )));
    }
    let kept: Vec<&Operation> = spec
        .operations
        .iter()
        .filter(|op| filter.matches(op))
        .collect();
    if kept.is_empty() && (filter.is_set() || filter.excludes_any()) {
        let count = |keep: &dyn Fn(&Operation) -> bool| {
            spec.operations.iter().filter(|op| keep(op)).count()
        };
        let mut each = Vec::new();
        if filter.read_only {
            each.push(format!(
                "--read-only keeps {}",
                count(&|op| filter.access_matches(op))
            ));
        }
        if !filter.tags.is_empty() {
            each.push(format!(
                "--tag keeps {}",
                count(&|op| filter.tag_matches(op))
            ));
        }
        if !filter.path_prefixes.is_empty() {
            each.push(format!(
                "--path-prefix keeps {}",
                count(&|op| filter.prefix_matches(op))
            ));
        }
        if !filter.methods.is_empty() {
            each.push(format!(
                "--method keeps {}",
                count(&|op| filter.method_matches(op))
            ));
        }
        if filter.excludes_any() {
            each.push(format!(
                "the exclusions leave {}",
                count(&|op| !filter.excluded(op))
            ));
        }
        return Err(Error::Other(format!(
            "no operation in {shown} matches all of {} (on its own, of {} operations: {}); \
             drop or widen one of them",
            filter.describe(),
            spec.operations.len(),
            each.join(", ")
        )));
    }
    Ok(kept)
}

/// Whether `wanted` (an operationId or `METHOD /path`) names `op`.
fn names_operation(wanted: &str, op: &Operation) -> bool {
    let wanted = wanted.trim();
    op.operation_id.as_deref() == Some(wanted)
        || wanted.split_once(' ').is_some_and(|(method, path)| {
            op.method.eq_ignore_ascii_case(method.trim()) && op.path == path.trim()
        })
}

/// Every segment-boundary prefix of `path`: `/a/b` gives `/a` and `/a/b`.
fn path_prefixes(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, c) in path.char_indices().skip(1) {
        if c == '/' {
            out.push(path[..i].to_owned());
        }
    }
    out.push(path.to_owned());
    out
}

/// The values most like `wanted` (case folded), quoted and comma-separated.
fn quoted_closest<'c>(wanted: &str, candidates: impl Iterator<Item = &'c str>) -> String {
    let names: Vec<String> = closest(wanted, candidates, str::to_lowercase)
        .into_iter()
        .map(|c| format!("`{c}`"))
        .collect();
    names.join(", ")
}
