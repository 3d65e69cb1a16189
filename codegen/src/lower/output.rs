//! Output schemas: from the primary 2xx JSON response, made tolerant and fitted to the mode and
//! budget.

use std::collections::BTreeMap;

use mcpgen_core::json_pointer;
use mcpgen_core::view::{self, Layout, Requested};
use serde_json::{Value, json};

use crate::allowlist::{OutputSchemaMode, UiChoice};
use crate::budget;
use crate::error::Warning;
use crate::schema::{Direction, SchemaConverter, SharedDefs};
use crate::spec::{Operation, Spec};
use crate::tolerant;

/// A tool's output schemas, fitted to its mode and budget.
pub(super) struct OutputSchemas {
    /// What `tools/list` advertises (`None`: no output schema).
    pub(super) advertised: Option<Value>,
    /// The advertised schema without a budget, when the budget summarised nested fields.
    pub(super) full: Option<Value>,
    /// The documented schema, for `--output-check strict`.
    pub(super) documented: Option<Value>,
    /// What the tool's TypeScript declaration shows, when it differs from `advertised`.
    pub(super) declared: Option<Value>,
    /// Whether a non-object response is wrapped as `{"result": ...}`.
    pub(super) wrapped: bool,
    /// The limits the advertised schema was fitted to, when there is one.
    pub(super) limits: Option<budget::Limits>,
    /// JSON pointers of the advertised schema summarised because of the budget.
    pub(super) cuts: Vec<String>,
    /// The view, from the documented schema in full.
    pub(super) view: Option<Layout>,
    pub(super) warnings: Vec<Warning>,
}

/// What a tool's view is derived for: the tool, its heading, the allowlist's `ui` and the
/// input schema (whose arguments tell how a table pages).
pub(super) struct ViewFor<'a> {
    pub(super) tool: &'a str,
    pub(super) title: &'a str,
    pub(super) ui: UiChoice,
    pub(super) input: &'a Value,
}

/// The output schemas from the primary 2xx JSON response. The advertised one is the documented
/// one made tolerant ([`tolerant`]), then fitted: `full` within the budget, `compact` to the
/// root's properties (nested schemas summarised, no descriptions below the root), `none`
/// absent. The documented one (for strict checks) is fitted at least as deep as the advertised
/// one, so a result that passes it also passes what is advertised.
pub(super) fn output_schema<'s>(
    spec: &'s Spec,
    op: &Operation,
    mode: OutputSchemaMode,
    budget: Option<usize>,
    shared: &'s SharedDefs<'s>,
    full_defs: &mut BTreeMap<String, Value>,
    view_for: ViewFor<'_>,
) -> OutputSchemas {
    let mut out = OutputSchemas {
        advertised: None,
        full: None,
        documented: None,
        declared: None,
        wrapped: false,
        limits: None,
        cuts: Vec::new(),
        view: None,
        warnings: Vec::new(),
    };
    let primary = ["200", "201", "202", "203", "2XX", "2xx"]
        .iter()
        .find_map(|code| op.responses.get(*code))
        .or_else(|| {
            op.responses
                .iter()
                .find(|(code, _)| code.starts_with('2'))
                .map(|(_, r)| r)
        });
    let Some(response) = primary else {
        return out;
    };
    let Some(media) = response
        .content
        .iter()
        .find(|(mt, _)| {
            let mt = mt.to_ascii_lowercase();
            mt == "application/json" || mt.ends_with("+json") || mt == "*/*"
        })
        .map(|(_, m)| m)
    else {
        return out;
    };
    let Some(schema) = &media.schema else {
        return out;
    };
    let mut conv = SchemaConverter::new(&spec.root, &spec.path, Direction::Output)
        .with_lazy_defs()
        .with_shared_defs(shared);
    let converted = conv.convert(schema, &media.schema_pointer);
    let root = match converted.get("$ref").and_then(Value::as_str) {
        Some(r) if converted.as_object().is_some_and(|m| m.len() == 1) => r
            .strip_prefix("#/$defs/")
            .map(json_pointer::unescape)
            .and_then(|name| conv.def(&name))
            .filter(|target| is_object_schema(target))
            .cloned()
            .unwrap_or(converted),
        _ => converted,
    };
    let root = if is_object_schema(&root) {
        root
    } else {
        out.wrapped = true;
        json!({ "type": "object", "properties": { "result": root }, "required": ["result"] })
    };
    if mode == OutputSchemaMode::None {
        out.warnings = conv.finish().1;
        return out;
    }
    out.view = derive_view(&root, out.wrapped, &view_for, &mut |def| {
        conv.def(def).cloned()
    });
    if out.view.is_none() && view_for.ui == UiChoice::Table {
        out.warnings.push(Warning {
            location: format!("tool `{}`", view_for.tool),
            message: "`ui: table`, but the output holds no array of objects; the tool has no \
                      view (use `card` or `auto`)"
                .into(),
        });
    }
    let limits = budget::Limits {
        budget,
        min_depth: 0,
        max_depth: (mode == OutputSchemaMode::Compact).then_some(1),
        describe: mode == OutputSchemaMode::Full,
        keep_required: false,
    };
    // The tolerant schema, made once for the advertised, full and declared schemas.
    let tolerant_root = tolerant::tolerant_output(&root);
    let advertised = budget::fit(
        &tolerant_root,
        &mut |def| conv.def(def).map(tolerant::tolerant_output),
        limits,
    );
    let documented = budget::fit(
        &root,
        &mut |def| conv.def(def).cloned(),
        budget::Limits {
            budget,
            min_depth: advertised.depth,
            max_depth: None,
            describe: false,
            keep_required: false,
        },
    );
    if advertised.summarised {
        out.full = Some(budget::full(
            &tolerant_root,
            &mut |def| conv.def(def).map(tolerant::tolerant_output),
            true,
            full_defs,
        ));
    }
    // The result type a program sees: the tolerant schema with its fields, fitted to its own
    // budget rather than the listing's mode (a `compact` listing keeps only the root's).
    let declared = budget::fit(
        &tolerant_root,
        &mut |def| conv.def(def).map(tolerant::tolerant_output),
        budget::Limits {
            budget: Some(budget::DECLARED_OUTPUT_BUDGET),
            min_depth: 0,
            max_depth: None,
            describe: true,
            keep_required: false,
        },
    );
    out.declared = (declared.schema != advertised.schema).then_some(declared.schema);
    out.advertised = Some(advertised.schema);
    out.limits = Some(limits);
    out.cuts = advertised.cuts;
    out.documented = Some(documented.schema);
    out.warnings.extend(conv.finish().1);
    out
}

/// The view of an output whose documented schema is `root`, as the allowlist asks.
fn derive_view(
    root: &Value,
    wrapped: bool,
    view_for: &ViewFor<'_>,
    resolve: &mut dyn FnMut(&str) -> Option<Value>,
) -> Option<Layout> {
    let requested = match view_for.ui {
        UiChoice::None => return None,
        UiChoice::Auto => Requested::Auto,
        UiChoice::Table => Requested::Table,
        UiChoice::Card => Requested::Card,
    };
    let layout = view::derive(
        view_for.tool,
        view_for.title,
        root,
        wrapped,
        requested,
        resolve,
    )?;
    Some(layout.with_paging(view_for.input, root, wrapped, resolve))
}

/// One warning per schema node summarised to fit the budget, naming the tool and the pointer.
pub(super) fn report_cuts(
    warnings: &mut Vec<Warning>,
    tool: &str,
    which: &str,
    cuts: &[String],
    budget: Option<usize>,
) {
    let budget = budget.map_or_else(|| "no budget".to_owned(), |b| format!("{b} bytes"));
    warnings.extend(cuts.iter().map(|pointer| Warning {
        location: format!("tool `{tool}`: {which} at `{pointer}`"),
        message: format!(
            "nested fields summarised to fit the schema budget ({budget}; `schema_budget:` in \
             the allowlist changes it)"
        ),
    }));
}

/// Whether a converted schema is a plain object schema (`type: object`, no composition).
pub fn is_object_schema(schema: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return false;
    };
    let typed_object = match map.get("type") {
        Some(Value::String(t)) => t == "object",
        _ => false,
    };
    typed_object
        && !["oneOf", "anyOf", "allOf", "$ref", "not", "if"]
            .iter()
            .any(|k| map.contains_key(*k))
}
