//! What changed between two tool surfaces: two `tools.json` files, or two generations of a
//! spec plus allowlist. `mcpgen diff` and `mcpgen generate --check` report it for review, and
//! `--fail-on` turns it into an exit code for CI.
//!
//! Each [`Change`] has a [`ChangeKind`]:
//!
//! - [`Added`](ChangeKind::Added) and [`Removed`](ChangeKind::Removed) tools (a removal
//!   breaks callers);
//! - [`Breaking`](ChangeKind::Breaking) input changes, which make calls that worked fail: a
//!   new required argument, an argument removed or newly required, a type narrowed, an enum
//!   value removed, a bound tightened;
//! - [`Compatible`](ChangeKind::Compatible) input changes: new optional arguments, widened
//!   types, new enum values, and changed titles or descriptions;
//! - [`Output`](ChangeKind::Output) schema changes, which typed clients notice;
//! - [`Security`](ChangeKind::Security) changes: a tool going from read to write, becoming
//!   destructive, losing its confirmation, or changing (or losing) its required scope;
//! - [`Policy`](ChangeKind::Policy) changes of access, annotations, scope or confirmation
//!   that are not security changes (write to read, a confirmation added, ...).
//!
//! From a `tools.json` file, a tool's access is its `readOnlyHint` (the hint is derived from
//! the access unless the allowlist overrides it); scope and confirmation are not in the file,
//! so only generations compare them.

mod render;
mod schema;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::ir;

/// One tool as the diff sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct SurfaceTool {
    /// The tool's name.
    pub name: String,
    /// Title, if any.
    pub title: Option<String>,
    /// Description.
    pub description: String,
    /// `inputSchema`.
    pub input_schema: Value,
    /// `outputSchema`, if any.
    pub output_schema: Option<Value>,
    /// The annotation hints present (`readOnlyHint`, ...).
    pub annotations: BTreeMap<String, bool>,
    /// `read` or `write`.
    pub access: &'static str,
    /// Required scope, when known (generations only).
    pub scope: Option<Option<String>>,
    /// Whether each call is confirmed, when known (generations only).
    pub confirm: Option<bool>,
    /// Plugin, when known (generations only).
    pub plugin: Option<Option<String>>,
}

/// A tool surface: its tools by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Surface {
    /// The tools, by name.
    pub tools: BTreeMap<String, SurfaceTool>,
}

/// Why a `tools.json` could not be read as a surface.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{where_}: {message}")]
pub struct SurfaceError {
    /// The file and JSON pointer.
    pub where_: String,
    /// What is wrong.
    pub message: String,
}

impl Surface {
    /// The surface of a `tools.json` text (`{"tools": [...]}`, or the array alone); `label`
    /// names the file in errors.
    pub fn from_tools_json(text: &str, label: &str) -> Result<Surface, SurfaceError> {
        let err = |pointer: String, message: String| SurfaceError {
            where_: format!(
                "{label} at {}",
                if pointer.is_empty() { "/" } else { &pointer }
            ),
            message,
        };
        let value: Value = serde_json::from_str(text).map_err(|e| SurfaceError {
            where_: format!("{label}:{}:{}", e.line(), e.column()),
            message: format!("not valid JSON: {e}"),
        })?;
        let (list, base) = match &value {
            Value::Array(list) => (list, ""),
            Value::Object(o) => match o.get("tools") {
                Some(Value::Array(list)) => (list, "/tools"),
                _ => {
                    return Err(err(
                        "/tools".into(),
                        "expected a `tools` array (a tools/list result)".into(),
                    ));
                }
            },
            _ => return Err(err(String::new(), "expected an object or an array".into())),
        };
        let mut tools = BTreeMap::new();
        for (i, entry) in list.iter().enumerate() {
            let at = format!("{base}/{i}");
            let Some(obj) = entry.as_object() else {
                return Err(err(at, "a tool must be an object".into()));
            };
            let Some(name) = obj.get("name").and_then(Value::as_str) else {
                return Err(err(format!("{at}/name"), "missing or not a string".into()));
            };
            let annotations = bool_annotations(obj.get("annotations"));
            let access = if annotations.get("readOnlyHint") == Some(&true) {
                "read"
            } else {
                "write"
            };
            let tool = SurfaceTool {
                name: name.to_owned(),
                title: obj.get("title").and_then(Value::as_str).map(str::to_owned),
                description: obj
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                input_schema: obj
                    .get("inputSchema")
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Map::new())),
                output_schema: obj.get("outputSchema").cloned(),
                annotations,
                access,
                scope: None,
                confirm: None,
                plugin: None,
            };
            if tools.insert(name.to_owned(), tool).is_some() {
                return Err(err(
                    format!("{at}/name"),
                    format!("tool `{name}` is listed twice"),
                ));
            }
        }
        Ok(Surface { tools })
    }

    /// The surface of a generation, with access, scope, confirmation and plugin.
    pub fn from_server(server: &ir::Server) -> Surface {
        let tools = server
            .tools
            .iter()
            .map(|t| {
                let entry = crate::emit::files::tool_json(t);
                let annotations = bool_annotations(entry.get("annotations"));
                let tool = SurfaceTool {
                    name: t.name.clone(),
                    title: t.title.clone(),
                    description: t.description.clone(),
                    input_schema: t.input_schema.clone(),
                    output_schema: t.output_schema.clone(),
                    annotations,
                    access: t.access.as_str(),
                    scope: Some(t.required_scope.clone()),
                    confirm: Some(t.confirm),
                    plugin: Some(t.plugin.clone()),
                };
                (t.name.clone(), tool)
            })
            .collect();
        Surface { tools }
    }
}

/// The boolean members of a tool's `annotations` object (hints that are not booleans, such as
/// `title`, are left out); empty when there is none.
fn bool_annotations(annotations: Option<&Value>) -> BTreeMap<String, bool> {
    annotations
        .and_then(Value::as_object)
        .map(|a| {
            a.iter()
                .filter_map(|(k, v)| v.as_bool().map(|b| (k.clone(), b)))
                .collect()
        })
        .unwrap_or_default()
}

/// The kinds of change, from most to least serious for review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChangeKind {
    /// A tool is gone (breaks its callers).
    Removed,
    /// An input change that makes calls that worked fail.
    Breaking,
    /// A change of who may call, or how carefully.
    Security,
    /// A new tool.
    Added,
    /// The output schema changed.
    Output,
    /// Access, annotations, scope or confirmation changed (not a security change).
    Policy,
    /// An input or documentation change that keeps existing calls working.
    Compatible,
}

impl ChangeKind {
    /// The kind's name in JSON output: `removed`, `breaking`, `security`, `added`, `output`,
    /// `policy`, `compatible`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Removed => "removed",
            ChangeKind::Breaking => "breaking",
            ChangeKind::Security => "security",
            ChangeKind::Added => "added",
            ChangeKind::Output => "output",
            ChangeKind::Policy => "policy",
            ChangeKind::Compatible => "compatible",
        }
    }

    /// Whether the change breaks existing callers (a removed tool or a breaking input change).
    pub fn is_breaking(self) -> bool {
        matches!(self, ChangeKind::Removed | ChangeKind::Breaking)
    }
}

/// One change.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Change {
    /// What kind.
    pub kind: ChangeKind,
    /// The tool.
    pub tool: String,
    /// JSON pointer inside the tool's entry (`/inputSchema/properties/id`), empty for the
    /// tool itself.
    pub pointer: String,
    /// What changed, in words.
    pub message: String,
}

/// When `mcpgen diff` fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailOn {
    /// On a removed tool or a breaking input change.
    Breaking,
    /// On a security change.
    Security,
    /// On any change.
    Any,
}

impl std::str::FromStr for FailOn {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "breaking" => Ok(FailOn::Breaking),
            "security" => Ok(FailOn::Security),
            "any" => Ok(FailOn::Any),
            other => Err(format!("`{other}` is not one of breaking, security, any")),
        }
    }
}

/// Every change from `old` to `new`, grouped by kind, then by tool.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SurfaceDiff {
    /// The changes, sorted by kind, tool and pointer.
    pub changes: Vec<Change>,
}

impl SurfaceDiff {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// How many changes of `kind`.
    pub fn count(&self, kind: ChangeKind) -> usize {
        self.changes.iter().filter(|c| c.kind == kind).count()
    }

    /// Whether the diff fails a check with `fail_on`.
    pub fn fails(&self, fail_on: FailOn) -> bool {
        match fail_on {
            FailOn::Breaking => self.changes.iter().any(|c| c.kind.is_breaking()),
            FailOn::Security => self.count(ChangeKind::Security) > 0,
            FailOn::Any => !self.is_empty(),
        }
    }

    /// The diff as Markdown for a pull-request comment.
    pub fn to_markdown(&self, old: &str, new: &str) -> String {
        render::markdown(self, old, new)
    }

    /// The diff as JSON: `{"summary": {kind: count}, "changes": [{kind, tool, pointer,
    /// message}]}`.
    pub fn to_json(&self) -> Value {
        render::json(self)
    }
}

/// Compares two surfaces.
pub fn diff(old: &Surface, new: &Surface) -> SurfaceDiff {
    let mut changes = Vec::new();
    for (name, old_tool) in &old.tools {
        match new.tools.get(name) {
            None => changes.push(Change {
                kind: ChangeKind::Removed,
                tool: name.clone(),
                pointer: String::new(),
                message: format!("tool removed (was {})", old_tool.access),
            }),
            Some(new_tool) => compare_tool(old_tool, new_tool, &mut changes),
        }
    }
    for (name, tool) in &new.tools {
        if !old.tools.contains_key(name) {
            changes.push(Change {
                kind: ChangeKind::Added,
                tool: name.clone(),
                pointer: String::new(),
                message: format!("new {} tool", tool.access),
            });
        }
    }
    changes.sort();
    SurfaceDiff { changes }
}

fn compare_tool(old: &SurfaceTool, new: &SurfaceTool, out: &mut Vec<Change>) {
    let tool = &new.name;
    let mut push = |kind, pointer: &str, message: String| {
        out.push(Change {
            kind,
            tool: tool.clone(),
            pointer: pointer.to_owned(),
            message,
        })
    };
    if old.title != new.title {
        push(ChangeKind::Compatible, "/title", "title changed".into());
    }
    if old.description != new.description {
        push(
            ChangeKind::Compatible,
            "/description",
            "description changed".into(),
        );
    }
    for change in schema::compare_input(&old.input_schema, &new.input_schema) {
        push(change.0, &format!("/inputSchema{}", change.1), change.2);
    }
    match (&old.output_schema, &new.output_schema) {
        (None, None) => {}
        (Some(_), None) => push(
            ChangeKind::Output,
            "/outputSchema",
            "output schema removed".into(),
        ),
        (None, Some(_)) => push(
            ChangeKind::Output,
            "/outputSchema",
            "output schema added".into(),
        ),
        (Some(a), Some(b)) => {
            for (pointer, message) in schema::compare_output(a, b) {
                push(
                    ChangeKind::Output,
                    &format!("/outputSchema{pointer}"),
                    message,
                );
            }
        }
    }
    match (old.access, new.access) {
        ("read", "write") => push(
            ChangeKind::Security,
            "",
            "access read → write: the tool may now change data, and `mcp:read` no longer grants it"
                .into(),
        ),
        (a, b) if a != b => push(ChangeKind::Policy, "", format!("access {a} → {b}")),
        _ => {}
    }
    let hints: std::collections::BTreeSet<&String> = old
        .annotations
        .keys()
        .chain(new.annotations.keys())
        .collect();
    for hint in hints {
        let (a, b) = (old.annotations.get(hint), new.annotations.get(hint));
        if a == b {
            continue;
        }
        let show = |v: Option<&bool>| v.map_or("unset".to_owned(), bool::to_string);
        let message = format!("annotation {hint} {} → {}", show(a), show(b));
        let kind = if hint == "destructiveHint" && b == Some(&true) {
            ChangeKind::Security
        } else {
            ChangeKind::Policy
        };
        push(kind, &format!("/annotations/{hint}"), message);
    }
    if let (Some(a), Some(b)) = (&old.scope, &new.scope)
        && a != b
    {
        let show =
            |s: &Option<String>| s.as_deref().map_or("none".to_owned(), |s| format!("`{s}`"));
        push(
            ChangeKind::Security,
            "",
            format!("required scope {} → {}", show(a), show(b)),
        );
    }
    if let (Some(a), Some(b)) = (old.confirm, new.confirm)
        && a != b
    {
        if a {
            push(
                ChangeKind::Security,
                "",
                "confirmation removed: calls no longer ask the person first".into(),
            );
        } else {
            push(
                ChangeKind::Policy,
                "",
                "confirmation added: each call asks the person first".into(),
            );
        }
    }
    if let (Some(a), Some(b)) = (&old.plugin, &new.plugin)
        && a != b
    {
        let show =
            |s: &Option<String>| s.as_deref().map_or("none".to_owned(), |s| format!("`{s}`"));
        push(
            ChangeKind::Security,
            "",
            format!(
                "plugin {} → {} (who can see the tool changes)",
                show(a),
                show(b)
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn surface(tools: Value) -> Surface {
        Surface::from_tools_json(&json!({ "tools": tools }).to_string(), "t.json")
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn read_to_write_is_a_security_change_and_fails_on_security() {
        let old = surface(json!([
            {"name": "a", "description": "", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}},
            {"name": "gone", "description": "", "inputSchema": {"type": "object"}}
        ]));
        let new = surface(json!([
            {"name": "a", "description": "", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": false, "destructiveHint": true}},
            {"name": "fresh", "description": "", "inputSchema": {"type": "object"}}
        ]));
        let d = diff(&old, &new);
        let got: Vec<(ChangeKind, &str, &str)> = d
            .changes
            .iter()
            .map(|c| (c.kind, c.tool.as_str(), c.message.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (ChangeKind::Removed, "gone", "tool removed (was write)"),
                (
                    ChangeKind::Security,
                    "a",
                    "access read → write: the tool may now change data, and `mcp:read` no longer grants it"
                ),
                (
                    ChangeKind::Security,
                    "a",
                    "annotation destructiveHint unset → true"
                ),
                (ChangeKind::Added, "fresh", "new write tool"),
                (
                    ChangeKind::Policy,
                    "a",
                    "annotation readOnlyHint true → false"
                ),
            ]
        );
        assert!(d.fails(FailOn::Breaking) && d.fails(FailOn::Security) && d.fails(FailOn::Any));
        assert!(d.to_markdown("old", "new").contains("### Security changes"));
        assert_eq!(d.to_json()["summary"]["security"], 2);
    }

    #[test]
    fn unchanged_surfaces_pass_every_check() {
        let tools = json!([{"name": "a", "description": "x", "inputSchema": {"type": "object"}}]);
        let d = diff(&surface(tools.clone()), &surface(tools));
        assert!(d.is_empty());
        assert!(!d.fails(FailOn::Any));
        assert!(d.to_markdown("a", "b").ends_with("No changes.\n"));
    }

    #[test]
    fn bad_files_name_the_place() {
        let err = Surface::from_tools_json("{\"tools\": [{\"title\": 1}]}", "t.json").unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.json at /tools/0/name: missing or not a string"
        );
        let err = Surface::from_tools_json("{", "t.json").unwrap_err();
        assert!(
            err.to_string().starts_with("t.json:1:1: not valid JSON"),
            "{err}"
        );
    }
}
