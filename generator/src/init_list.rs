//! `mcpgen init` (an allowlist for the operations the filters keep) and `mcpgen list` (a table
//! of them).

use std::path::Path;

use mcpgen_codegen::allowlist::{Allowlist, ServerBlock};
use mcpgen_codegen::select::{filter_operations, selector, sensitive_reason, sensitive_word};
use mcpgen_codegen::spec::{Operation, Spec};
use mcpgen_codegen::{Settings, lower, naming};

use crate::args::{Filter, InitArgs, ListArgs};
use crate::fetch;
use crate::specs::{folder_name, load_spec};
use crate::table::print_table;

/// Tells about operations that cannot be read (they cannot be selected), and about
/// discriminator mapping entries dropped for a `$ref` that cannot be followed.
fn warn_broken(spec: &Spec) {
    for w in &spec.dropped_mappings {
        eprintln!("warning: {w}");
    }
    for b in &spec.broken {
        let id = b.operation_id.as_deref().unwrap_or("-");
        eprintln!(
            "warning: {} {} (operationId {id}) cannot be read and is left out:",
            b.method.to_ascii_uppercase(),
            b.path
        );
        for e in &b.errors {
            eprintln!("  {e}");
        }
    }
}

/// The operations of `spec` that `filter` keeps, in spec order; an error names the closest
/// values the spec has.
fn select_operations<'a>(spec: &'a Spec, filter: &Filter) -> Result<Vec<&'a Operation>, String> {
    filter_operations(spec, &filter.to_operation_filter()).map_err(|e| format!("error: {e}"))
}

/// Tells which of the selected `ops` look like admin, internal or debug endpoints, and how to
/// leave them out.
fn warn_sensitive(ops: &[&Operation]) {
    let flagged: Vec<(&Operation, String)> = ops
        .iter()
        .filter_map(|op| sensitive_reason(op).map(|why| (*op, why)))
        .collect();
    if flagged.is_empty() {
        return;
    }
    eprintln!(
        "warning: {} selected operation(s) look like admin, internal or debug endpoints; \
         review them before exposing them to a model:",
        flagged.len()
    );
    for (op, why) in &flagged {
        eprintln!(
            "  {} ({} {}): {why}",
            selector(op),
            op.method.to_ascii_uppercase(),
            op.path
        );
    }
    let mut tags: Vec<&str> = Vec::new();
    for (op, _) in &flagged {
        for tag in &op.tags {
            if sensitive_word(tag).is_some() && !tags.contains(&tag.as_str()) {
                tags.push(tag);
            }
        }
    }
    let mut hint: Vec<String> = tags.iter().map(|t| format!("--exclude-tag {t}")).collect();
    for (op, _) in &flagged {
        let covered = op.tags.iter().any(|t| tags.contains(&t.as_str()));
        if let Some(prefix) = sensitive_prefix(&op.path).filter(|_| !covered) {
            let flag = format!("--exclude-path-prefix {prefix}");
            if !hint.contains(&flag) {
                hint.push(flag);
            }
        }
    }
    hint.push("--exclude-operation OP".to_owned());
    eprintln!("  leave them out with {}", hint.join(", "));
}

fn default_tool_name(op: &Operation) -> String {
    naming::default_tool_name(
        op.operation_id.as_deref(),
        &op.method,
        &op.path,
        naming::MAX_TOOL_NAME_LEN,
    )
}

/// Allowlist entries (selector, unique tool name, no description) for `ops`, in order.
fn allowlist_entries(ops: &[&Operation]) -> Vec<(String, String, Option<String>)> {
    let mut taken = std::collections::BTreeSet::new();
    ops.iter()
        .map(|op| {
            let tool = naming::unique_tool_name(
                &default_tool_name(op),
                &mut taken,
                naming::MAX_TOOL_NAME_LEN,
            );
            (selector(op), tool, None)
        })
        .collect()
}

/// `path` up to and including its first segment that says admin, internal or debug.
fn sensitive_prefix(path: &str) -> Option<&str> {
    let mut end = 0;
    for segment in path.split('/').skip(1) {
        end += 1 + segment.len();
        if sensitive_word(segment).is_some() {
            return Some(&path[..end]);
        }
    }
    None
}

pub(crate) fn init(args: InitArgs) -> Result<(), String> {
    let input = fetch::resolve(&args.spec, &args.fetch)?;
    let spec = load_spec(input.path())?;
    warn_broken(&spec);
    let ops = select_operations(&spec, &args.filter)?;
    warn_sensitive(&ops);
    let name = args.name.clone().or_else(|| folder_name(input.path()));
    let entries = allowlist_entries(&ops);
    let server = ServerBlock {
        name,
        version: spec
            .root
            .pointer("/info/version")
            .and_then(|v| v.as_str())
            .map(str::to_owned),
        ..Default::default()
    };
    let text = mcpgen_codegen::allowlist::render(&server, &entries);
    // What we print must load as an allowlist.
    Allowlist::parse(Path::new("<init output>"), &text)
        .map_err(|e| format!("internal error: {e}"))?;
    print!("{text}");
    Ok(())
}

pub(crate) fn list(args: ListArgs) -> Result<(), String> {
    let input = fetch::resolve(&args.spec, &args.fetch)?;
    let spec = load_spec(input.path())?;
    warn_broken(&spec);
    let ops = select_operations(&spec, &args.filter)?;
    let rows: Vec<[String; 5]> = ops
        .iter()
        .map(|op| {
            [
                op.operation_id.clone().unwrap_or_else(|| "-".into()),
                op.method.to_ascii_uppercase(),
                op.path.clone(),
                default_tool_name(op),
                lower::method_access(&op.method).as_str().to_owned(),
            ]
        })
        .collect();
    let header = ["OPERATION_ID", "METHOD", "PATH", "TOOL_NAME", "ACCESS"];
    if !args.cost {
        print_table(header, &rows);
        return Ok(());
    }
    let costs = tool_costs(&spec, &ops)?;
    let rows: Vec<[String; 6]> = rows
        .into_iter()
        .zip(costs)
        .map(|([id, method, path, tool, access], tokens)| {
            [id, method, path, tool, access, tokens.to_string()]
        })
        .collect();
    let [a, b, c, d, e] = header;
    print_table([a, b, c, d, e, "TOKENS"], &rows);
    Ok(())
}

/// The approximate tokens each of `ops` would add to `tools/list` if selected, in order:
/// every one is generated in memory, as `init` would select them, and its entry measured.
fn tool_costs(spec: &Spec, ops: &[&Operation]) -> Result<Vec<usize>, String> {
    let entries = allowlist_entries(ops);
    let server = ServerBlock {
        name: Some(folder_name(&spec.path).unwrap_or_else(|| "api".to_owned())),
        ..Default::default()
    };
    let text = mcpgen_codegen::allowlist::render(&server, &entries);
    let allowlist = Allowlist::parse(Path::new("<every listed operation>"), &text)
        .map_err(|e| format!("internal error: {e}"))?;
    let settings = Settings::new();
    let generation = mcpgen_codegen::generate_from(spec, &allowlist, &settings).map_err(|e| {
        format!("error: cannot generate the listed operations to measure them:\n{e}")
    })?;
    let sizes: std::collections::BTreeMap<&str, usize> = generation
        .emitted
        .tool_sizes
        .iter()
        .map(|(name, size)| (name.as_str(), size.approx_tokens))
        .collect();
    entries
        .iter()
        .map(|(selector, tool, _)| {
            sizes.get(tool.as_str()).copied().ok_or_else(|| {
                format!("internal error: `{selector}` produced no tool `{tool}` to measure")
            })
        })
        .collect()
}
