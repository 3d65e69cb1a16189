//! Schema budgets: a tool's schemas hold only what they reach, within a size budget.
//!
//! [`fit`] builds a tool's schema from its root (with `#/$defs/...` references) and a source of
//! definitions that converts a definition only when it is asked for. Nodes are given a depth:
//! the root is 0, a property, item or other nested schema is one deeper than its parent,
//! composition members (`allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`) stay at their
//! parent's depth, and a definition sits at the smallest depth from which a kept reference
//! reaches it. `$defs` hold exactly the definitions the kept references reach.
//!
//! When the whole schema does not fit the budget, [`fit`] gives up, in this order, until it
//! fits:
//! 1. examples and defaults;
//! 2. enum lists longer than a few values, which become a description naming the first ones
//!    and how many more there are (`Values: a, b, … (52 more)`);
//! 3. descriptions and titles of nested fields (below the arguments);
//! 4. optional nested fields, deepest first: a build at cut depth `D` replaces every node at
//!    depth `D` or deeper that has nested structure (properties, references, composition,
//!    items or values that are themselves structured) by a summary: its `type` (taken through
//!    references and unions where it can be) and `(nested fields omitted)`, led by its title
//!    and first sentence when it is an argument. `D` goes from the smallest allowed depth one
//!    deeper at a time, and the deepest build that fits is kept.
//!
//! With [`Limits::keep_required`] (input schemas), nodes on a required chain are never
//! summarised: every required argument path stays visible, even when that puts the schema
//! over the budget. An array of objects that is summarised keeps its items' keys and types one
//! level down (so do the items of a kept array), even when the shallowest build is over the
//! budget; the root's own properties are never removed either, so an input schema keeps
//! `type: object`, every argument and `required`. A build stops as soon as it is over the
//! budget, so the work per tool grows with the budget, not with the closure of the spec's
//! schemas. Recursive schemas terminate: a definition is placed once (twice when a required
//! chain reaches it after an optional one), and each build is finite.
//!
//! With `max_depth` (the `compact` output mode) or without a budget, only step 4 applies, at
//! the depths asked for.
//!
//! [`refit`] fits a schema without references (one a client profile inlined) the same way,
//! its nodes at their depths in the inlined schema.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use mcpgen_core::json_pointer;
use serde_json::Value;

mod text;
mod walk;

use walk::{Trims, Walk};

pub use text::{cap, first_sentence, plain_text, tool_description, trim_schema_descriptions};

/// Default per-tool budget of an `inputSchema`, in bytes of compact JSON (about a quarter as
/// many tokens): the arguments a model must fill in get the larger share.
pub const DEFAULT_INPUT_SCHEMA_BUDGET: usize = 2048;
/// Default per-tool budget of an `outputSchema`, in bytes of compact JSON, in the `compact`
/// output mode (where it only decides whether the root's own fields fit).
pub const DEFAULT_OUTPUT_SCHEMA_BUDGET: usize = 1024;
/// Default per-tool budget of an `outputSchema` in the `full` output mode. It is smaller than
/// [`DEFAULT_OUTPUT_SCHEMA_BUDGET`] because examples, defaults and nested descriptions go
/// before nested fields and nested structure takes the room they leave: at this size a full
/// output schema takes about the bytes it took when it kept them.
pub const DEFAULT_FULL_OUTPUT_SCHEMA_BUDGET: usize = 832;
/// Budget of the output schema a tool's TypeScript declaration shows (its result type), in
/// bytes of compact JSON: the documented fields in full where they fit, nested ones summarised
/// past it (a shallower type), whatever the output mode lists.
pub const DECLARED_OUTPUT_BUDGET: usize = 4096;
/// Default longest tool description, in characters.
pub const DEFAULT_DESCRIPTION_CHARS: usize = 200;
/// Longest description of a schema node (a property, an argument), in characters.
pub const PROPERTY_DESCRIPTION_CHARS: usize = 120;
/// The deepest cut depth tried.
const MAX_CUT_DEPTH: usize = 64;
/// What a summary says was left out.
const OMITTED: &str = "(nested fields omitted)";
/// How a stub that stands in for a recursive definition (profile `inline`) ends its
/// description. Like a summary's `(nested fields omitted)`, it marks that something was left
/// out: when nested descriptions are trimmed, a description ending in a mark becomes the mark.
pub const RECURSION_OMITTED: &str = "(recursive; nested levels omitted)";
/// Enum lists longer than this are named by their first values and a count once the budget
/// trims enums.
const ENUM_KEEP: usize = 8;

/// Keywords whose subschemas sit one level deeper than their parent.
const DEEPER: &[&str] = &[
    "items",
    "additionalItems",
    "additionalProperties",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
    "prefixItems",
    "properties",
    "patternProperties",
    "dependentSchemas",
];

/// How a schema is fitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of compact JSON; `None`: no budget (only `max_depth` cuts).
    pub budget: Option<usize>,
    /// The smallest cut depth: 1 keeps the root's properties (input schemas), 0 may summarise
    /// the root itself (output schemas).
    pub min_depth: usize,
    /// The largest cut depth (`None`: as deep as the budget allows). Cuts at this depth are
    /// what the caller asked for, not forced by the budget, and are not reported.
    pub max_depth: Option<usize>,
    /// Whether nodes below the root keep descriptions (summaries then say what they are).
    pub describe: bool,
    /// Whether nodes on a required chain (every property its parent requires, from the root
    /// down) are kept however deep they are (input schemas: a model must fill them in).
    pub keep_required: bool,
}

/// A fitted schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    /// The schema, `$defs` attached.
    pub schema: Value,
    /// JSON pointers (in `schema`) of the nodes summarised because of the budget.
    pub cuts: Vec<String>,
    /// Whether anything was left out for the budget: a node summarised, or an example,
    /// default, long enum list or nested description trimmed.
    pub summarised: bool,
    /// The cut depth of the build kept.
    pub depth: usize,
}

/// Fits `root` (references into `$defs` resolved through `defs`) to `limits`. `defs` returns a
/// definition by name (unescaped), converted; it is asked only for definitions a build reaches.
pub fn fit(root: &Value, defs: &mut dyn FnMut(&str) -> Option<Value>, limits: Limits) -> Fitted {
    let mut root = root.clone();
    prepare_root(&mut root, limits.describe);
    fit_prepared(&root, defs, limits)
}

/// Fits `schema`, which has no references (a profile inlined them), to `limits` in the same
/// order as [`fit`]. Its descriptions are kept as they are: they were trimmed when the schema
/// was first fitted.
pub fn refit(schema: &Value, limits: Limits) -> Fitted {
    fit_prepared(schema, &mut |_| None, limits)
}

/// [`fit`] on a root whose descriptions are trimmed already.
fn fit_prepared(
    root: &Value,
    defs: &mut dyn FnMut(&str) -> Option<Value>,
    limits: Limits,
) -> Fitted {
    let mut cache = DefCache {
        source: defs,
        cache: BTreeMap::new(),
        describe: limits.describe,
    };
    let by_depth = |trims, keep_required, shapes| Plan {
        cut: limits.min_depth,
        trims,
        keep_required,
        shapes,
    };
    if limits.max_depth.is_some() || limits.budget.is_none() {
        let plan = by_depth(Trims::default(), false, false);
        return fit_by_depth(root, &mut cache, limits, plan, true).unwrap_or_else(|| Fitted {
            schema: root.clone(),
            cuts: Vec::new(),
            summarised: false,
            depth: limits.min_depth,
        });
    }
    let uncut = |trims| Plan {
        cut: MAX_CUT_DEPTH,
        trims,
        keep_required: limits.keep_required,
        shapes: false,
    };
    let done = |b: Build| Fitted {
        schema: b.schema,
        summarised: !b.cuts.is_empty() || b.trimmed,
        cuts: b.cuts,
        depth: b.depth,
    };
    if let Some(b) = build(root, uncut(Trims::default()), &mut cache, limits.budget) {
        return done(b);
    }
    let all = Trims {
        examples: true,
        enums: true,
        nested_descriptions: true,
    };
    // Each stage only removes: when the last does not fit, the lighter ones do not either.
    if let Some(last) = build(root, uncut(all), &mut cache, limits.budget) {
        for trims in [
            Trims {
                examples: true,
                ..Trims::default()
            },
            Trims {
                examples: true,
                enums: true,
                nested_descriptions: false,
            },
        ] {
            if let Some(b) = build(root, uncut(trims), &mut cache, limits.budget) {
                return done(b);
            }
        }
        return done(last);
    }
    // Optional nested fields, deepest first; arrays of objects keep their items' keys and
    // types even when nothing else fits.
    let shaped = by_depth(all, limits.keep_required, true);
    fit_by_depth(root, &mut cache, limits, shaped, true).unwrap_or_else(|| Fitted {
        schema: root.clone(),
        cuts: Vec::new(),
        summarised: false,
        depth: limits.min_depth,
    })
}

/// Tries cut depth `D` = the smallest allowed, then one deeper at a time, and keeps the deepest
/// build that fits the budget. When none does: with `fallback` the first build, without
/// limit; else `None`.
fn fit_by_depth(
    root: &Value,
    cache: &mut DefCache<'_>,
    limits: Limits,
    plan: Plan,
    fallback: bool,
) -> Option<Fitted> {
    let at = |cut| Plan { cut, ..plan };
    let max = limits
        .max_depth
        .unwrap_or(MAX_CUT_DEPTH)
        .max(limits.min_depth);
    let first = match build(root, at(limits.min_depth), cache, limits.budget) {
        Some(b) => b,
        None if fallback => build(root, at(limits.min_depth), cache, None)?,
        None => return None,
    };
    let mut best = first;
    while !best.cuts.is_empty() && best.depth < max {
        match build(root, at(best.depth + 1), cache, limits.budget) {
            Some(next) => best = next,
            None => break,
        }
    }
    // Cuts at the depth the caller asked for are its choice, not the budget's.
    let cuts = if Some(best.depth) == limits.max_depth {
        Vec::new()
    } else {
        best.cuts
    };
    Some(Fitted {
        schema: best.schema,
        summarised: !cuts.is_empty() || best.trimmed,
        cuts,
        depth: best.depth,
    })
}

/// `root` without a budget, every node kept, for the full schemas kept beside summarised
/// ones: the root (its references into `$defs` left as they are) is returned, and every
/// definition it reaches that `known` lacks is converted, walked and added to `known`.
/// Definitions are walked on their own, never cut, so one conversion serves every tool that
/// reaches it. Descriptions are trimmed as in [`fit`].
pub fn full(
    root: &Value,
    defs: &mut dyn FnMut(&str) -> Option<Value>,
    describe: bool,
    known: &mut BTreeMap<String, Value>,
) -> Value {
    let mut cache = DefCache {
        source: defs,
        cache: BTreeMap::new(),
        describe,
    };
    let mut walk = Walk {
        cut: usize::MAX,
        describe,
        trims: Trims::default(),
        keep_required: false,
        shapes: false,
        cuts: Vec::new(),
        trimmed: false,
        refs: Vec::new(),
        limit: None,
        spent: 0,
    };
    let mut root = root.clone();
    prepare_root(&mut root, describe);
    let mut ptr = String::new();
    let root = walk
        .node(&root, 0, false, &[], &mut ptr, &mut cache)
        .into_owned();
    let mut queue: Vec<String> = walk.refs.drain(..).map(|(name, _, _)| name).collect();
    while let Some(name) = queue.pop() {
        if known.contains_key(&name) {
            continue;
        }
        let Some(def) = cache.get(&name) else {
            continue;
        };
        let mut ptr = format!("/$defs/{}", json_pointer::escape(&name));
        let converted = walk
            .node(&def, 0, false, &[], &mut ptr, &mut cache)
            .into_owned();
        known.insert(name, converted);
        queue.extend(walk.refs.drain(..).map(|(name, _, _)| name));
    }
    root
}

/// The schema `root` (from [`full`]) with the definitions of `defs` it reaches attached as
/// `$defs`: a schema that stands on its own.
pub fn with_defs(root: &Value, defs: &BTreeMap<String, Value>) -> Value {
    let mut reached: BTreeMap<String, Value> = BTreeMap::new();
    let mut queue = Vec::new();
    mcpgen_core::def_refs(root, &mut queue);
    while let Some(name) = queue.pop() {
        if reached.contains_key(&name) {
            continue;
        }
        if let Some(def) = defs.get(&name) {
            mcpgen_core::def_refs(def, &mut queue);
            reached.insert(name, def.clone());
        }
    }
    let mut out = root.clone();
    if let Value::Object(map) = &mut out
        && !reached.is_empty()
    {
        map.insert(
            "$defs".to_owned(),
            Value::Object(reached.into_iter().collect()),
        );
    }
    out
}

/// The inverse of [`with_defs`]: `schema` without its `$defs`, each of which is added to `known`
/// unless `known` has it (definitions of one name are the same conversion in every tool).
pub fn without_defs(schema: &Value, known: &mut BTreeMap<String, Value>) -> Value {
    let mut root = schema.clone();
    if let Value::Object(map) = &mut root
        && let Some(Value::Object(defs)) = map.shift_remove("$defs")
    {
        for (name, def) in defs {
            known.entry(name).or_insert(def);
        }
    }
    root
}

/// Trims the root's descriptions; without `describe`, only the root's own description stays.
fn prepare_root(root: &mut Value, describe: bool) {
    let own = match root {
        Value::Object(map) if !describe => map.shift_remove("description"),
        _ => None,
    };
    trim_schema_descriptions(root, !describe);
    if let (Some(Value::String(d)), Value::Object(map)) = (own, root) {
        let d = cap(&first_sentence(&plain_text(&d)), PROPERTY_DESCRIPTION_CHARS);
        map.insert("description".to_owned(), Value::String(d));
    }
}

/// One build at one cut depth.
struct Build {
    schema: Value,
    cuts: Vec<String>,
    trimmed: bool,
    depth: usize,
}

/// Definitions fetched for one [`fit`], each prepared once. They are shared (`Rc`), so that a
/// walk or a summary can hold one while asking for others without copying it.
struct DefCache<'s> {
    source: &'s mut dyn FnMut(&str) -> Option<Value>,
    cache: BTreeMap<String, Option<Rc<Value>>>,
    describe: bool,
}

impl DefCache<'_> {
    fn get(&mut self, name: &str) -> Option<Rc<Value>> {
        if let Some(def) = self.cache.get(name) {
            return def.clone();
        }
        let def = (self.source)(name).map(|mut def| {
            trim_schema_descriptions(&mut def, !self.describe);
            Rc::new(def)
        });
        self.cache.insert(name.to_owned(), def.clone());
        def
    }
}

/// How one build goes: its cut depth and what it trims first.
#[derive(Debug, Clone, Copy)]
struct Plan {
    cut: usize,
    trims: Trims,
    keep_required: bool,
    shapes: bool,
}

/// Builds with `plan`; `None` when `limit` is given and the build goes over it.
fn build(root: &Value, plan: Plan, defs: &mut DefCache<'_>, limit: Option<usize>) -> Option<Build> {
    let mut walk = Walk {
        cut: plan.cut,
        describe: defs.describe,
        trims: plan.trims,
        keep_required: plan.keep_required,
        shapes: plan.shapes,
        cuts: Vec::new(),
        trimmed: false,
        refs: Vec::new(),
        limit,
        spent: 0,
    };
    let mut ptr = String::new();
    let root = walk.node(root, 0, true, &[], &mut ptr, defs);
    if walk.over() {
        return None;
    }
    let mut size = compact_len(&root);
    let over = |size: usize| limit.is_some_and(|l| size > l);
    if over(size) {
        return None;
    }
    // Definitions by smallest depth first. A definition is placed once, unless a reference on
    // a required chain reaches one placed off it: it is placed again, keeping that chain.
    let mut placed: BTreeMap<String, (usize, bool)> = BTreeMap::new();
    let mut queue: BTreeSet<(usize, String)> = BTreeSet::new();
    let mut out_defs: BTreeMap<String, (Placed, usize)> = BTreeMap::new();
    let mut spent: BTreeMap<String, usize> = BTreeMap::new();
    let enqueue = |refs: &mut Vec<(String, usize, bool)>,
                   placed: &mut BTreeMap<String, (usize, bool)>,
                   queue: &mut BTreeSet<(usize, String)>| {
        for (name, depth, required) in refs.drain(..) {
            match placed.get(&name).copied() {
                Some((d, r)) if d <= depth && (r || !required) => {}
                Some((d, r)) => {
                    let queued = queue.remove(&(d, name.clone()));
                    if queued || (required && !r) {
                        let depth = if queued { d.min(depth) } else { d };
                        queue.insert((depth, name.clone()));
                        placed.insert(name, (depth, r || required));
                    }
                }
                None => {
                    queue.insert((depth, name.clone()));
                    placed.insert(name, (depth, required));
                }
            }
        }
    };
    enqueue(&mut walk.refs, &mut placed, &mut queue);
    while let Some((depth, name)) = queue.pop_first() {
        let Some(def) = defs.get(&name) else {
            continue;
        };
        let required = placed.get(&name).is_some_and(|(_, r)| *r);
        let mut ptr = format!("/$defs/{}", json_pointer::escape(&name));
        // A definition placed again replaces its first conversion, in the count too.
        if let Some(earlier) = spent.remove(&name) {
            walk.spent -= earlier;
        }
        let before = walk.spent;
        let converted = walk.node(&def, depth, required, &[], &mut ptr, defs);
        if walk.over() {
            return None;
        }
        spent.insert(name.clone(), walk.spent - before);
        let bytes = compact_len(&converted) + name.len() + 4;
        let converted = match converted {
            Cow::Borrowed(_) => Placed::Same(Rc::clone(&def)),
            Cow::Owned(value) => Placed::New(value),
        };
        if let Some((_, before)) = out_defs.get(&name) {
            size -= before;
        }
        size += bytes;
        if over(size) {
            return None;
        }
        out_defs.insert(name, (converted, bytes));
        enqueue(&mut walk.refs, &mut placed, &mut queue);
    }
    let mut schema = root.into_owned();
    if !out_defs.is_empty()
        && let Value::Object(map) = &mut schema
    {
        size += 10;
        map.insert(
            "$defs".to_owned(),
            Value::Object(
                out_defs
                    .into_iter()
                    .map(|(k, (v, _))| (k, v.into_value()))
                    .collect(),
            ),
        );
    }
    if over(size) {
        return None;
    }
    Some(Build {
        schema,
        cuts: walk.cuts,
        trimmed: walk.trimmed,
        depth: plan.cut,
    })
}

/// A definition a build placed: the definition as it is (no trim or cut changed it), or what
/// the walk made of it.
enum Placed {
    Same(Rc<Value>),
    New(Value),
}

impl Placed {
    fn into_value(self) -> Value {
        match self {
            Placed::Same(def) => Rc::unwrap_or_clone(def),
            Placed::New(value) => value,
        }
    }
}

/// The length of `value` as compact JSON, counted as it is written, not kept.
fn compact_len(value: &Value) -> usize {
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => 0,
    }
}

/// A writer that only counts the bytes written to it.
struct Count(usize);

impl std::io::Write for Count {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
