//! The tools a server serves: built once from the static tables of its tool sets, with each
//! tool's `tools/list` entry prepared and its schemas parsed at start-up.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcpgen_core::tool::ToolDef;
use mcpgen_identity::Principal;
use rmcp::model::{Tool, ToolAnnotations as McpAnnotations};
use serde_json::Value;

use super::meta_tool::{self, DESCRIBE_TOOL, MetaTool};
use super::schema::full_schema;
use super::schema::parse::{check_schema, parse_object};
use super::schema::validate::{LazyValidator, Validators};
use crate::server::config::OutputCheck;
use mcpgen_contract::toolset::ToolSet;

/// Distinct (scopes, plugins) combinations whose visible tools are remembered.
const VISIBILITY_CACHE_CAP: usize = 1024;

/// One served tool.
pub(crate) struct Entry {
    /// The static definition.
    pub def: &'static ToolDef,
    /// Index of the owning tool set.
    pub set: usize,
    /// The prepared `tools/list` entry.
    pub listed: Tool,
    /// The tool's metrics series, resolved on its first call.
    #[cfg(feature = "metrics")]
    pub series: std::sync::OnceLock<mcpgen_metrics::ToolSeries>,
}

/// A problem found while building the catalogue.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CatalogProblem {
    /// Two tools share a name.
    Duplicate {
        tool: String,
        first_set: usize,
        second_set: usize,
    },
    /// A schema does not parse, is not an object, or does not compile.
    Schema {
        tool: String,
        which: &'static str,
        message: String,
    },
}

type VisibilityKey = (Vec<String>, Vec<String>);

/// Every served tool, by name, plus what each principal may see.
pub(crate) struct Catalog {
    entries: Vec<Entry>,
    by_name: HashMap<&'static str, usize>,
    validators: Validators,
    visible: Mutex<HashMap<VisibilityKey, Arc<[usize]>>>,
    /// `describe_tools`, listed in `all` mode: set when a served tool is summarised and
    /// describing is on.
    describe: Option<MetaTool>,
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog")
            .field("tools", &self.entries.len())
            .finish()
    }
}

fn annotations(def: &ToolDef) -> Option<McpAnnotations> {
    let a = def.annotations;
    let any = a.read_only_hint.is_some()
        || a.destructive_hint.is_some()
        || a.idempotent_hint.is_some()
        || a.open_world_hint.is_some();
    any.then(|| {
        McpAnnotations::from_raw(
            None,
            a.read_only_hint,
            a.destructive_hint,
            a.idempotent_hint,
            a.open_world_hint,
        )
    })
}

impl Catalog {
    /// Builds the catalogue from `sets`, collecting every problem. Each tool's schemas are
    /// checked against their meta-schema; its validators are compiled on its first call.
    /// Unless `output_check` is off, each tool gets an output validator too: from the
    /// documented output schema under `strict`, else from the advertised one.
    /// Builds the catalog of `sets`. With `describe`, a summarised tool's description says
    /// how to get its full schemas, and `describe_tools` is offered.
    pub(crate) fn build(
        sets: &[Arc<dyn ToolSet>],
        output_check: OutputCheck,
        describe: bool,
    ) -> Result<Self, Vec<CatalogProblem>> {
        let mut problems = Vec::new();
        let mut entries = Vec::new();
        let mut by_name: HashMap<&'static str, usize> = HashMap::new();
        let mut validators = Validators::default();
        for (set_index, set) in sets.iter().enumerate() {
            for def in set.tools() {
                if let Some(&existing) = by_name.get(def.name) {
                    let first_set = entries.get(existing).map_or(set_index, |e: &Entry| e.set);
                    problems.push(CatalogProblem::Duplicate {
                        tool: def.name.to_owned(),
                        first_set,
                        second_set: set_index,
                    });
                    continue;
                }
                let schema_problem =
                    |which: &'static str, message: String| CatalogProblem::Schema {
                        tool: def.name.to_owned(),
                        which,
                        message,
                    };
                let input = match parse_object(def.input_schema) {
                    Ok(input) => input,
                    Err(message) => {
                        problems.push(schema_problem("input", message));
                        continue;
                    }
                };
                // MCP sends a tool's arguments as an object.
                if let Some(kind) = input.get("type").filter(|kind| *kind != "object") {
                    problems.push(schema_problem(
                        "input",
                        format!(
                            "its type is {kind}, but a tool's arguments are a JSON object \
                             (`type: \"object\"`); a tool taking `Args<T>` needs `T` to be a \
                             struct or a map"
                        ),
                    ));
                    continue;
                }
                // Checked against the meta-schema now; compiled on the tool's first call.
                if let Err(message) = check_schema(&Value::Object(input.clone())) {
                    problems.push(schema_problem(
                        "input",
                        format!("the schema does not compile: {message}"),
                    ));
                    continue;
                }
                if let Err((which, message)) = full_schema::check(def) {
                    problems.push(schema_problem(which, message));
                    continue;
                }
                // Arguments are checked against the full schema when the listed one is a
                // summary.
                let validator = match def.full_input_schema {
                    Some(_) => LazyValidator::full(*def),
                    None => LazyValidator::new(def.input_schema),
                };
                let output = match def.output_schema.map(parse_object).transpose() {
                    Ok(output) => output,
                    Err(message) => {
                        problems.push(schema_problem("output", message));
                        continue;
                    }
                };
                let checked = match output_check {
                    OutputCheck::Off => None,
                    OutputCheck::Tolerant => output.clone().zip(def.output_schema),
                    OutputCheck::Strict => match def.documented_output_schema {
                        Some(text) => match parse_object(text) {
                            Ok(documented) => Some((documented, text)),
                            Err(message) => {
                                problems.push(schema_problem("documented output", message));
                                continue;
                            }
                        },
                        None => output.clone().zip(def.output_schema),
                    },
                };
                if let Some((schema, text)) = checked {
                    if let Err(message) = check_schema(&Value::Object(schema)) {
                        problems.push(schema_problem(
                            "output",
                            format!("the schema does not compile: {message}"),
                        ));
                        continue;
                    }
                    validators.insert_output(def.name, LazyValidator::new(text));
                }
                let mut listed = Tool::default();
                listed.name = Cow::Borrowed(def.name);
                listed.title = def.title.map(str::to_owned);
                listed.description = Some(if describe && def.is_summarised() {
                    Cow::Owned(mcpgen_core::tool::with_summarised_note(def.description))
                } else {
                    Cow::Borrowed(def.description)
                });
                listed.input_schema = Arc::new(input);
                listed.output_schema = output.map(Arc::new);
                listed.annotations = annotations(def);
                validators.insert(def.name, validator);
                by_name.insert(def.name, entries.len());
                entries.push(Entry {
                    def,
                    set: set_index,
                    listed,
                    #[cfg(feature = "metrics")]
                    series: std::sync::OnceLock::new(),
                });
            }
        }
        let offered = describe
            && !by_name.contains_key(DESCRIBE_TOOL)
            && entries.iter().any(|e| e.def.is_summarised());
        if problems.is_empty() {
            Ok(Self {
                entries,
                by_name,
                validators,
                visible: Mutex::new(HashMap::new()),
                describe: offered.then(meta_tool::all_mode_tool),
            })
        } else {
            Err(problems)
        }
    }

    /// `describe_tools` as `all` mode lists it, when offered.
    pub(crate) fn describe_tool(&self) -> Option<&MetaTool> {
        self.describe.as_ref()
    }

    /// The entry named `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&Entry> {
        self.by_name.get(name).and_then(|&i| self.entries.get(i))
    }

    /// The position of the entry named `name` in [`entries`](Self::entries).
    #[cfg(feature = "search")]
    pub(crate) fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// All entries, in tool-set order.
    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The argument validators.
    pub(crate) fn validators(&self) -> &Validators {
        &self.validators
    }

    /// Indices of the entries `principal` may call, computed once per distinct
    /// (scopes, plugins) combination.
    pub(crate) fn visible_indices(&self, principal: &Principal) -> Arc<[usize]> {
        let key = (principal.scopes.clone(), principal.plugins.clone());
        let mut cache = self
            .visible
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(hit) = cache.get(&key) {
            return hit.clone();
        }
        let visible: Arc<[usize]> = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| principal.may_call(e.def))
            .map(|(i, _)| i)
            .collect();
        if cache.len() < VISIBILITY_CACHE_CAP {
            cache.insert(key, visible.clone());
        }
        visible
    }

    /// The entries `principal` may see and call (none without a principal).
    pub(crate) fn visible(&self, principal: Option<&Principal>) -> Vec<&Entry> {
        let Some(principal) = principal else {
            return Vec::new();
        };
        self.visible_indices(principal)
            .iter()
            .filter_map(|&i| self.entries.get(i))
            .collect()
    }
}
