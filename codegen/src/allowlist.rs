//! The allowlist, `mcp_tools.yaml`: which operations become tools, and how they are presented.
//!
//! ```yaml
//! server:
//!   name: synaplan
//!   upstream_url: https://web.synaplan.com
//! mcp_tools:
//!   - operation_id: sendMessage
//!     name: synaplan_send_message
//!     description: "Send a message and get AI response"
//!   - operation_id: post_api_rag_search
//!     access: read        # a POST that only reads: callable with mcp:read
//!   - operation_id: deleteChat
//!     confirm: true       # the person confirms each call before the DELETE is sent
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_saphyr::Spanned;

use crate::error::Error;
use crate::ir::Access;
use crate::profile::Profile;

/// A parsed allowlist.
#[derive(Debug, Clone)]
pub struct Allowlist {
    /// The file it was read from.
    pub path: PathBuf,
    /// The `server:` block.
    pub server: ServerBlock,
    /// The entries, in file order.
    pub tools: Vec<Entry>,
}

/// The `server:` block.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ServerBlock {
    /// Server name; the generated crate is `<name>-mcp`. Defaults to the spec folder's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Server version; defaults to the spec's `info.version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Server description; defaults to the spec's `info.description` or `info.title`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Default upstream base URL; defaults to the spec's first `servers` entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_url: Option<String>,
    /// Fail generation when the `tools/list` payload is estimated above this many tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_list_tokens: Option<u64>,
    /// `true`: every tool whose access is `write` and whose `destructive` hint is set (a
    /// DELETE, unless the entry says otherwise) asks the person to confirm each call, unless
    /// its entry sets `confirm: false`. Default `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirm_destructive: Option<bool>,
    /// Longest tool name allowed (default 64; 60 suits Cursor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_name_len: Option<usize>,
    /// Client profile: `default`, `inline`, `draft-07` or `cursor` (see [`crate::profile`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
    /// The output schema each tool advertises (default `compact`); an entry's `output_schema`
    /// overrides it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<OutputSchemaMode>,
    /// Bytes of compact JSON each tool's input and output schema may take (default
    /// [`crate::budget::DEFAULT_INPUT_SCHEMA_BUDGET`] for inputs,
    /// [`crate::budget::DEFAULT_OUTPUT_SCHEMA_BUDGET`] for outputs and
    /// [`crate::budget::DEFAULT_FULL_OUTPUT_SCHEMA_BUDGET`] for `full` ones; `0`: no budget);
    /// past it nested schemas are summarised. An entry's `schema_budget` overrides it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema_budget: Option<usize>,
    /// Longest tool description taken from the spec, in characters (default
    /// [`crate::budget::DEFAULT_DESCRIPTION_CHARS`]; `0`: no limit). An entry's own
    /// `description` is kept verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_description_len: Option<usize>,
    /// Views (MCP Apps): `auto` (default) gives each tool with a JSON output schema a table or
    /// a card; `none` gives none. An entry's `ui` overrides it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ui: Option<UiMode>,
}

/// The server block's `ui:`.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum UiMode {
    /// A view for each tool whose output schema allows one.
    #[default]
    Auto,
    /// No views.
    None,
}

/// An entry's `ui:`: which view the tool gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum UiChoice {
    /// A table or a card, as the output schema suggests.
    #[default]
    Auto,
    /// A table (no view when the output holds no array of objects).
    Table,
    /// A card of the whole output.
    Card,
    /// No view.
    None,
}

impl UiChoice {
    /// `auto`, `table`, `card` or `none`, spelled exactly so.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "auto" => Some(Self::Auto),
            "table" => Some(Self::Table),
            "card" => Some(Self::Card),
            "none" => Some(Self::None),
            _ => None,
        }
    }
}

/// What output schema a tool advertises.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum OutputSchemaMode {
    /// The documented output schema made tolerant of drift, within the schema budget.
    Full,
    /// Top-level properties with their types; nested objects and arrays summarised; no `$defs`.
    #[default]
    Compact,
    /// No output schema: results carry text only.
    None,
}

impl OutputSchemaMode {
    /// Every mode, in the order `full`, `compact`, `none`.
    pub const ALL: [OutputSchemaMode; 3] = [Self::Full, Self::Compact, Self::None];

    /// `full`, `compact` or `none`, as the allowlist spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Full => "full",
            Self::Compact => "compact",
            Self::None => "none",
        }
    }

    /// The mode spelled `text`, exactly.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == text)
    }
}

/// Annotation overrides of one entry.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AnnotationOverrides {
    /// readOnlyHint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// destructiveHint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    /// idempotentHint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    /// openWorldHint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
}

/// One allowlist entry: selects one operation.
#[derive(Debug, Clone)]
pub struct Entry {
    /// 1-based position in `mcp_tools`.
    pub index: usize,
    /// The operationId selected.
    pub operation_id: String,
    /// Line and column of `operation_id` in the file.
    pub line: u64,
    /// Column of `operation_id`.
    pub column: u64,
    /// Tool name override.
    pub name: Option<String>,
    /// Title override.
    pub title: Option<String>,
    /// Description override.
    pub description: Option<String>,
    /// `access: read | write`: overrides the access derived from the HTTP method (e.g. a POST
    /// that only searches is `read`). Authorization uses it; annotation hints follow it.
    pub access: Option<Access>,
    /// Annotation overrides (hints only; they never change access).
    pub annotations: AnnotationOverrides,
    /// `confirm: true | false`: whether the server asks the person to confirm each call
    /// before calling the upstream (elicitation, or an input-required result). `None`: the
    /// server block's `confirm_destructive` decides.
    pub confirm: Option<bool>,
    /// The server block's `confirm_destructive`, in effect when `confirm` is not set.
    pub confirm_destructive: bool,
    /// Extra scope required to see and call the tool.
    pub scope: Option<String>,
    /// `false` keeps the entry in the file but generates no tool.
    pub enabled: bool,
    /// Plugin the tool belongs to.
    pub plugin: Option<String>,
    /// Request body media type to send, when the operation offers several (default: JSON
    /// first), with its line and column.
    pub content_type: Option<Located>,
    /// The output schema mode in effect: the entry's `output_schema`, else the server block's
    /// (`None`: neither sets it; the default is `compact`).
    pub output_schema: Option<OutputSchemaMode>,
    /// The schema budget in effect: the entry's `schema_budget`, else the server block's.
    pub schema_budget: Option<usize>,
    /// The server block's `max_description_len`.
    pub max_description_len: Option<usize>,
    /// `rate_limit: 10/min`: calls each principal may make of this tool (`N/s`, `N/min` or
    /// `N/h`), a window's worth at once.
    pub rate_limit: Option<RateLimit>,
    /// The view in effect: the entry's `ui`, else the server block's (`none` or `auto`).
    pub ui: UiChoice,
    /// `task: true | false`: whether the tool runs as an MCP task, its `202` answers polled.
    /// `None`: only when the operation documents `202` with a `Location` header.
    pub task: Option<bool>,
}

/// A per-tool rate limit from the allowlist.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimit {
    /// Sustained calls per second.
    pub per_second: f64,
    /// Calls allowed at once (the count written, e.g. 10 for `10/min`).
    pub burst: f64,
}

impl RateLimit {
    /// `N/s`, `N/min` or `N/h` with a positive whole `N`.
    pub fn parse(text: &str) -> Option<Self> {
        let (count, unit) = text.trim().split_once('/')?;
        let count: u32 = count.trim().parse().ok().filter(|n| *n > 0)?;
        let window = match unit.trim() {
            "s" => 1.0,
            "min" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        Some(Self {
            per_second: f64::from(count) / window,
            burst: f64::from(count),
        })
    }
}

/// A value from the allowlist with where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The value.
    pub value: String,
    /// 1-based line.
    pub line: u64,
    /// 1-based column.
    pub column: u64,
}

impl Entry {
    /// `entry N (operation_id X) at line L, column C` for messages.
    pub fn location(&self) -> String {
        format!(
            "entry {} (operation_id `{}`) at line {}, column {}",
            self.index, self.operation_id, self.line, self.column
        )
    }

    /// Like [`location`](Self::location), pointing at `value`'s position instead (e.g. the
    /// entry's `content_type`).
    pub fn location_of(&self, key: &str, value: &Located) -> String {
        format!(
            "entry {} (operation_id `{}`), `{key}` at line {}, column {}",
            self.index, self.operation_id, value.line, value.column
        )
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    server: ServerBlock,
    mcp_tools: Vec<RawEntry>,
}

/// One entry of `mcp_tools` as written (in the allowlist or a plugin manifest).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawEntry {
    operation_id: Spanned<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    access: Option<Spanned<String>>,
    #[serde(default)]
    annotations: AnnotationOverrides,
    #[serde(default)]
    confirm: Option<bool>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    plugin: Option<String>,
    #[serde(default)]
    content_type: Option<Spanned<String>>,
    #[serde(default)]
    output_schema: Option<Spanned<String>>,
    #[serde(default)]
    schema_budget: Option<usize>,
    #[serde(default)]
    rate_limit: Option<Spanned<String>>,
    #[serde(default)]
    ui: Option<Spanned<String>>,
    #[serde(default)]
    task: Option<Spanned<serde_json::Value>>,
}

impl Allowlist {
    /// Sets the output schema mode of the server block and of every entry, overriding what the
    /// file says (e.g. to measure each mode).
    pub fn set_output_schema(&mut self, mode: OutputSchemaMode) {
        self.server.output_schema = Some(mode);
        for entry in &mut self.tools {
            entry.output_schema = Some(mode);
        }
    }

    /// Reads and parses `path`.
    pub fn load(path: &Path) -> Result<Allowlist, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        Self::parse(path, &text)
    }

    /// Parses allowlist `text`; `path` is used in messages.
    pub fn parse(path: &Path, text: &str) -> Result<Allowlist, Error> {
        let raw: RawFile = serde_saphyr::from_str(text).map_err(|e| {
            let (line, column) = e
                .location()
                .map(|l| (l.line(), l.column()))
                .unwrap_or((0, 0));
            let message = first_line(&e.to_string());
            Error::Allowlist {
                path: path.to_owned(),
                location: format!("line {line}, column {column}"),
                message: format!(
                    "{message} (expected `server:` with name/version/description/upstream_url/\
                     max_list_tokens/max_name_len/profile/output_schema/schema_budget/\
                     max_description_len/confirm_destructive/ui and `mcp_tools:`, a list of \
                     entries with operation_id and optional name/title/description/access/\
                     annotations/confirm/scope/enabled/plugin/content_type/output_schema/\
                     schema_budget/rate_limit/ui/task)"
                ),
            }
        })?;
        let mut tools = Vec::with_capacity(raw.mcp_tools.len());
        for (i, e) in raw.mcp_tools.into_iter().enumerate() {
            tools.push(entry(path, i + 1, e, &raw.server)?);
        }
        Ok(Allowlist {
            path: path.to_owned(),
            server: raw.server,
            tools,
        })
    }
}

/// Turns one raw entry (the `index`th, 1-based, of `path`) into an [`Entry`], with the server
/// block's defaults in effect; shared by the allowlist and plugin manifests.
pub(crate) fn entry(
    path: &Path,
    index: usize,
    e: RawEntry,
    server: &ServerBlock,
) -> Result<Entry, Error> {
    let mut entry = Entry {
        index,
        operation_id: e.operation_id.value,
        line: e.operation_id.referenced.line(),
        column: e.operation_id.referenced.column(),
        name: e.name,
        title: e.title,
        description: e.description,
        access: None,
        annotations: e.annotations,
        confirm: e.confirm,
        confirm_destructive: server.confirm_destructive.unwrap_or(false),
        scope: e.scope,
        enabled: e.enabled.unwrap_or(true),
        plugin: e.plugin,
        content_type: e.content_type.map(located),
        output_schema: server.output_schema,
        schema_budget: e.schema_budget.or(server.schema_budget),
        max_description_len: server.max_description_len,
        rate_limit: None,
        ui: match server.ui.unwrap_or_default() {
            UiMode::Auto => UiChoice::Auto,
            UiMode::None => UiChoice::None,
        },
        task: None,
    };
    if let Some(task) = e.task {
        entry.task = Some(parse_task(path, &entry, task)?);
    }
    if let Some(ui) = e.ui.map(located) {
        entry.ui = UiChoice::parse(&ui.value).ok_or_else(|| Error::Allowlist {
            path: path.to_owned(),
            location: entry.location_of("ui", &ui),
            message: format!(
                "ui `{}` is not valid; use `auto` (a table or a card, from the output \
                 schema), `table`, `card` or `none`",
                ui.value
            ),
        })?;
    }
    if let Some(limit) = e.rate_limit.map(located) {
        entry.rate_limit =
            Some(
                RateLimit::parse(&limit.value).ok_or_else(|| Error::Allowlist {
                    path: path.to_owned(),
                    location: entry.location_of("rate_limit", &limit),
                    message: format!(
                        "rate_limit `{}` is not valid; write a whole number of calls per second, \
                 minute or hour: `10/s`, `10/min` or `100/h`",
                        limit.value
                    ),
                })?,
            );
    }
    if let Some(mode) = e.output_schema.map(located) {
        entry.output_schema =
            Some(
                OutputSchemaMode::parse(&mode.value).ok_or_else(|| Error::Allowlist {
                    path: path.to_owned(),
                    location: entry.location_of("output_schema", &mode),
                    message: format!(
                        "output_schema `{}` is not valid; use `full` (the documented \
                         schema, tolerant), `compact` (top-level fields) or `none`",
                        mode.value
                    ),
                })?,
            );
    }
    if let Some(access) = e.access.map(located) {
        entry.access = Some(parse_access(&access.value).ok_or_else(|| Error::Allowlist {
            path: path.to_owned(),
            location: entry.location_of("access", &access),
            message: format!(
                "access `{}` is not valid; use `read` (callable with mcp:read) or \
                     `write` (needs mcp:write)",
                access.value
            ),
        })?);
    }
    Ok(entry)
}

/// The entry's `task:`, which must be `true` or `false`.
fn parse_task(path: &Path, entry: &Entry, task: Spanned<serde_json::Value>) -> Result<bool, Error> {
    match task.value {
        serde_json::Value::Bool(task) => Ok(task),
        other => {
            let written = match other {
                serde_json::Value::String(text) => text,
                other => other.to_string(),
            };
            let at = Located {
                line: task.referenced.line(),
                column: task.referenced.column(),
                value: written,
            };
            Err(Error::Allowlist {
                path: path.to_owned(),
                location: entry.location_of("task", &at),
                message: format!(
                    "task `{}` is not valid; use `true` (the tool runs as an MCP task and a \
                     `202` with a `Location` is polled) or `false` (never, even when the \
                     operation documents a `202` with a `Location`)",
                    at.value
                ),
            })
        }
    }
}

fn located(value: Spanned<String>) -> Located {
    Located {
        line: value.referenced.line(),
        column: value.referenced.column(),
        value: value.value,
    }
}

/// `read` or `write`, spelled exactly so.
fn parse_access(text: &str) -> Option<Access> {
    match text {
        "read" => Some(Access::Read),
        "write" => Some(Access::Write),
        _ => None,
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().trim().to_owned()
}

/// Renders an allowlist as YAML text that [`Allowlist::parse`] accepts.
pub fn render(server: &ServerBlock, entries: &[(String, String, Option<String>)]) -> String {
    let mut out =
        String::from("# Reviewed allowlist: each entry exposes one operation as an MCP tool.\n");
    out.push_str("server:\n");
    let field = |out: &mut String, key: &str, value: &Option<String>| {
        if let Some(v) = value {
            out.push_str(&format!("  {key}: {}\n", yaml_string(v)));
        }
    };
    field(&mut out, "name", &server.name);
    field(&mut out, "version", &server.version);
    field(&mut out, "description", &server.description);
    field(&mut out, "upstream_url", &server.upstream_url);
    if entries.is_empty() {
        out.push_str("mcp_tools: []\n");
        return out;
    }
    out.push_str("mcp_tools:\n");
    for (operation_id, name, description) in entries {
        out.push_str(&format!(
            "  - operation_id: {}\n",
            yaml_string(operation_id)
        ));
        out.push_str(&format!("    name: {}\n", yaml_string(name)));
        if let Some(d) = description {
            out.push_str(&format!("    description: {}\n", yaml_string(d)));
        }
    }
    out
}

/// A YAML double-quoted scalar (JSON string syntax is valid YAML).
fn yaml_string(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}
