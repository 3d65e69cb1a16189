//! Selection: which operations the allowlist picks, and what their tools are called.
//!
//! Each enabled entry names one operation by operationId (or `METHOD /path` for operations
//! without one). An unknown operation is an error listing the closest real operationIds; an
//! operation selected twice, a tool name used twice, or a tool name outside the limit
//! ([`naming::tool_name_problem`]) is an error naming the entry. Every selected operation is then
//! lowered to an [`ir::Tool`] by [`crate::lower`]; all problems are reported together.
//!
//! Plugin manifests ([`crate::plugins`]) add entries after the allowlist's, checked the same way
//! against their own file; a tool name is unique across the allowlist and every manifest.
//!
//! Beside it: [`closest`], the suggestions of "not found" messages, and [`filter_operations`],
//! the operations an [`OperationFilter`] keeps (`mcpgen init` and `mcpgen list`), and
//! [`sensitive_reason`], why an operation looks like an admin, internal or debug endpoint.

mod closest;
mod filter;
mod lowering;
mod sensitive;

use std::collections::BTreeMap;
use std::path::Path;

use crate::allowlist::Allowlist;
use crate::error::{Error, Warning};
use crate::ir;
use crate::lower;
use crate::naming;
use crate::plugins::Manifest;
use crate::servers;
use crate::spec::{Operation, Spec};

pub use closest::closest;
pub use filter::{OperationFilter, filter_operations, selector};
pub use sensitive::{SENSITIVE_WORDS, sensitive_reason, sensitive_word};

/// Options that change selection.
#[derive(Debug, Clone, Default)]
pub struct SelectOptions {
    /// Server name when the allowlist's `server.name` is absent (e.g. the spec folder's name).
    pub default_name: Option<String>,
    /// Server name that overrides the allowlist's.
    pub name_override: Option<String>,
    /// Plugin manifests whose `mcp_tools` entries are selected after the allowlist's, in this
    /// order.
    pub plugins: Vec<Manifest>,
}

/// Selects the allowlisted operations of `spec` and lowers them into the IR of one server. All
/// problems are returned together.
pub fn select(
    spec: &Spec,
    allowlist: &Allowlist,
    options: &SelectOptions,
) -> Result<(ir::Server, Vec<Warning>), Vec<Error>> {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let max_len = naming::max_tool_name_len(allowlist.server.max_name_len);

    let by_id: BTreeMap<&str, &Operation> = spec
        .operations
        .iter()
        .filter_map(|op| op.operation_id.as_deref().map(|id| (id, op)))
        .collect();

    // Operations are checked per file (a plugin may expose an allowlisted operation under its
    // own name); tool names across all files.
    let mut seen_ops: BTreeMap<(&Path, String), usize> = BTreeMap::new();
    let mut seen_names: BTreeMap<String, (&Path, usize)> = BTreeMap::new();
    let mut crate_names = naming::CrateNames::default();
    let mut tools = Vec::new();
    // Problems with the document's own servers are reported where its URL is used.
    let document_url = servers::default_url(&spec.root, "").ok().flatten();
    // The entries' errors and the operations to lower, in entry order.
    let mut steps: Vec<Option<Error>> = Vec::new();
    let mut jobs = Vec::new();

    let sources = std::iter::once((allowlist.path.as_path(), &allowlist.tools))
        .chain(options.plugins.iter().map(|m| (m.path.as_path(), &m.tools)));
    let entries = sources.flat_map(|(path, entries)| entries.iter().map(move |e| (path, e)));
    for (file, entry) in entries {
        let allow_err = |message: String| {
            Some(Error::Allowlist {
                path: file.to_owned(),
                location: entry.location(),
                message,
            })
        };
        if let Some(first) = seen_ops.insert((file, entry.operation_id.clone()), entry.index) {
            steps.push(allow_err(format!(
                "operation_id `{}` is already selected by entry {first}; remove one of the entries",
                entry.operation_id
            )));
            continue;
        }
        let Some(op) = find_operation(spec, &by_id, &entry.operation_id) else {
            match find_broken(spec, &entry.operation_id) {
                Some(broken) => {
                    let reasons: Vec<String> =
                        broken.errors.iter().map(|e| format!("\n    {e}")).collect();
                    steps.push(allow_err(format!(
                        "the selected operation ({} {}) cannot be read from the spec:{}",
                        broken.method.to_ascii_uppercase(),
                        broken.path,
                        reasons.concat()
                    )));
                }
                None => steps.push(allow_err(unknown_operation_message(
                    spec,
                    &entry.operation_id,
                ))),
            }
            continue;
        };
        if !entry.enabled {
            continue;
        }
        let name = naming::tool_name(
            entry.name.as_deref(),
            op.operation_id.as_deref(),
            &op.method,
            &op.path,
            max_len,
        );
        if let Some(problem) = naming::tool_name_problem(&name, max_len) {
            steps.push(allow_err(problem));
            continue;
        }
        if let Some((first_file, first)) = seen_names.get(&name) {
            let place = if *first_file == file {
                format!("entry {first}")
            } else {
                format!("entry {first} of {}", first_file.display())
            };
            steps.push(allow_err(format!(
                "tool name `{name}` is already used by {place}; give one of them a different `name:`"
            )));
            continue;
        }
        seen_names.insert(name.clone(), (file, entry.index));
        let names = crate_names.tool(name);
        steps.push(None);
        jobs.push(lowering::Job {
            file,
            entry,
            op,
            names,
        });
    }

    // Every selected operation is lowered (the slow part, on two threads), then the outcomes
    // and the entries' errors are taken in entry order.
    let (lowered, full_defs) = lowering::lower_all(spec, document_url.as_deref(), jobs);
    let mut lowered = lowered.into_iter();
    for step in steps {
        match step.map(Err).or_else(|| lowered.next()) {
            Some(Ok((tool, tool_warnings))) => {
                warnings.extend(tool_warnings);
                tools.push(tool);
            }
            Some(Err(e)) => errors.push(e),
            None => {}
        }
    }

    let name = server_name(allowlist, options, &mut errors);
    let mut server = lower::server(spec, allowlist, name, tools, &mut warnings);
    server.full_defs = full_defs;
    if errors.is_empty() {
        Ok((server, warnings))
    } else {
        Err(errors)
    }
}

/// Finds an operation by operationId, or by `METHOD /path` for operations without one.
fn find_operation<'a>(
    spec: &'a Spec,
    by_id: &BTreeMap<&str, &'a Operation>,
    wanted: &str,
) -> Option<&'a Operation> {
    if let Some(op) = by_id.get(wanted) {
        return Some(op);
    }
    let (method, path) = wanted.split_once(' ')?;
    spec.operations
        .iter()
        .find(|op| op.method.eq_ignore_ascii_case(method.trim()) && op.path == path.trim())
}

/// A broken operation selected by operationId or `METHOD /path`.
fn find_broken<'a>(spec: &'a Spec, wanted: &str) -> Option<&'a crate::spec::BrokenOperation> {
    spec.broken.iter().find(|b| {
        b.operation_id.as_deref() == Some(wanted)
            || wanted.split_once(' ').is_some_and(|(m, p)| {
                (b.method == "*" || b.method.eq_ignore_ascii_case(m.trim())) && b.path == p.trim()
            })
    })
}

/// "operation_id `x` not found; closest: `a`, `b`, `c`".
fn unknown_operation_message(spec: &Spec, wanted: &str) -> String {
    let ids: Vec<String> = spec
        .operations
        .iter()
        .map(|op| {
            op.operation_id
                .clone()
                .unwrap_or_else(|| format!("{} {}", op.method.to_ascii_uppercase(), op.path))
        })
        .collect();
    let names: Vec<String> = closest(wanted, ids.iter().map(String::as_str), naming::snake_case)
        .into_iter()
        .map(|id| format!("`{id}`"))
        .collect();
    if names.is_empty() {
        format!("operation_id `{wanted}` not found: the spec has no operations")
    } else {
        format!(
            "operation_id `{wanted}` not found in {}; closest: {} (run `mcpgen list --spec {}` to see all)",
            spec.path.display(),
            names.join(", "),
            spec.path.display()
        )
    }
}

/// The server name: the override, else the allowlist's `server.name`, else the default, else
/// `api`. One that cannot be a crate name is an error.
fn server_name(allowlist: &Allowlist, options: &SelectOptions, errors: &mut Vec<Error>) -> String {
    let name = options
        .name_override
        .clone()
        .or_else(|| allowlist.server.name.clone())
        .or_else(|| options.default_name.clone())
        .unwrap_or_else(|| "api".to_owned());
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
        || !name.starts_with(|c: char| c.is_ascii_lowercase())
    {
        errors.push(Error::Allowlist {
            path: allowlist.path.clone(),
            location: "server.name".into(),
            message: format!(
                "server name `{name}` is not usable as a crate name; use lower-case letters, digits, `_` and `-`, starting with a letter"
            ),
        });
    }
    name
}
