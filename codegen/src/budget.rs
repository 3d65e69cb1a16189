//! Schema budgets: a tool's schemas hold only what they reach, within a size budget.
//!
//! [`fit`] builds a tool's schema from its root (with `#/$defs/...` references) and a source of
//! definitions that converts a definition only when it is asked for. Nodes are given a depth:
//! the root is 0, a property, item or other nested schema is one deeper than its parent,
//! composition members (`allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`) stay at their
//! parent's depth, and a definition sits at the smallest depth from which a kept reference
//! reaches it. A build at cut depth `D` replaces every node at depth `D` or deeper that has
//! nested structure (properties, references, composition, items or values that are themselves
//! structured) by a summary: its `type` (taken through references and unions where it can be)
//! and a description made of the title and first sentence followed by `(nested fields
//! omitted)`. `$defs` hold exactly the definitions the kept references reach.
//!
//! [`fit`] tries `D` = the smallest allowed depth, then one deeper at a time, and keeps the
//! deepest build whose compact JSON fits the budget, or the first build when none does (the
//! root's own properties are never removed, so an input schema keeps `type: object`, every
//! argument and `required`). A build stops as soon as it is over the budget, so the work per
//! tool grows with the budget, not with the closure of the spec's schemas. Recursive schemas
//! terminate: a definition is placed once, and each build is finite.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use serde_json::{Map, Value};

use crate::keywords;
use crate::spec::escape_pointer_segment;

/// Default per-tool budget of an `inputSchema`, in bytes of compact JSON (about a quarter as
/// many tokens): the arguments a model must fill in get the larger share.
pub const DEFAULT_INPUT_SCHEMA_BUDGET: usize = 2048;
/// Default per-tool budget of an `outputSchema`, in bytes of compact JSON.
pub const DEFAULT_OUTPUT_SCHEMA_BUDGET: usize = 1024;
/// Default longest tool description, in characters.
pub const DEFAULT_DESCRIPTION_CHARS: usize = 200;
/// Longest description of a schema node (a property, an argument), in characters.
pub const PROPERTY_DESCRIPTION_CHARS: usize = 120;
/// The deepest cut depth tried.
const MAX_CUT_DEPTH: usize = 64;
/// What a summary says was left out.
const OMITTED: &str = "(nested fields omitted)";

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
}

/// A fitted schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    /// The schema, `$defs` attached.
    pub schema: Value,
    /// JSON pointers (in `schema`) of the nodes summarised because of the budget.
    pub cuts: Vec<String>,
    /// The cut depth of the build kept.
    pub depth: usize,
}

/// Fits `root` (references into `$defs` resolved through `defs`) to `limits`. `defs` returns a
/// definition by name (unescaped), converted; it is asked only for definitions a build reaches.
pub fn fit(root: &Value, defs: &mut dyn FnMut(&str) -> Option<Value>, limits: Limits) -> Fitted {
    let mut cache = DefCache {
        source: defs,
        cache: BTreeMap::new(),
        describe: limits.describe,
    };
    let mut root = root.clone();
    prepare_root(&mut root, limits.describe);
    let max = limits
        .max_depth
        .unwrap_or(MAX_CUT_DEPTH)
        .max(limits.min_depth);
    // Without a limit a build always completes; the fallback keeps the root as it is.
    let Some(mut best) = build(&root, limits.min_depth, &mut cache, None) else {
        return Fitted {
            schema: root,
            cuts: Vec::new(),
            depth: limits.min_depth,
        };
    };
    while !best.cuts.is_empty() && best.depth < max {
        match build(&root, best.depth + 1, &mut cache, limits.budget) {
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
    Fitted {
        schema: best.schema,
        cuts,
        depth: best.depth,
    }
}

/// `root` without a budget: every reachable node kept (recursion through `$defs`), for the
/// full schemas kept beside summarised ones. Descriptions are trimmed as in [`fit`].
pub fn full(root: &Value, defs: &mut dyn FnMut(&str) -> Option<Value>, describe: bool) -> Value {
    fit(
        root,
        defs,
        Limits {
            budget: None,
            min_depth: MAX_CUT_DEPTH,
            max_depth: None,
            describe,
        },
    )
    .schema
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

/// Builds at cut depth `cut`; `None` when `limit` is given and the build goes over it.
fn build(root: &Value, cut: usize, defs: &mut DefCache<'_>, limit: Option<usize>) -> Option<Build> {
    let mut walk = Walk {
        cut,
        describe: defs.describe,
        cuts: Vec::new(),
        refs: Vec::new(),
    };
    let mut ptr = String::new();
    let root = walk.node(root, 0, &mut ptr, defs);
    let mut size = compact_len(&root);
    let over = |size: usize| limit.is_some_and(|l| size > l);
    if over(size) {
        return None;
    }
    // Definitions by smallest depth first; a definition is placed once.
    let mut placed: BTreeMap<String, usize> = BTreeMap::new();
    let mut queue: BTreeSet<(usize, String)> = BTreeSet::new();
    let mut out_defs: BTreeMap<String, Value> = BTreeMap::new();
    let enqueue = |refs: &mut Vec<(String, usize)>,
                   placed: &mut BTreeMap<String, usize>,
                   queue: &mut BTreeSet<(usize, String)>| {
        for (name, depth) in refs.drain(..) {
            match placed.get(&name) {
                Some(&d) if d <= depth => {}
                Some(&d) => {
                    if queue.remove(&(d, name.clone())) {
                        queue.insert((depth, name.clone()));
                        placed.insert(name, depth);
                    }
                }
                None => {
                    queue.insert((depth, name.clone()));
                    placed.insert(name, depth);
                }
            }
        }
    };
    enqueue(&mut walk.refs, &mut placed, &mut queue);
    while let Some((depth, name)) = queue.pop_first() {
        let Some(def) = defs.get(&name) else {
            continue;
        };
        let mut ptr = format!("/$defs/{}", escape_pointer_segment(&name));
        let converted = walk.node(&def, depth, &mut ptr, defs);
        size += compact_len(&converted) + name.len() + 4;
        if over(size) {
            return None;
        }
        out_defs.insert(name, converted);
        enqueue(&mut walk.refs, &mut placed, &mut queue);
    }
    let mut schema = root;
    if !out_defs.is_empty()
        && let Value::Object(map) = &mut schema
    {
        size += 10;
        map.insert(
            "$defs".to_owned(),
            Value::Object(out_defs.into_iter().collect()),
        );
    }
    if over(size) {
        return None;
    }
    Some(Build {
        schema,
        cuts: walk.cuts,
        depth: cut,
    })
}

/// The state of one build's walk.
struct Walk {
    cut: usize,
    describe: bool,
    cuts: Vec<String>,
    /// References kept, with the depth they were found at.
    refs: Vec<(String, usize)>,
}

impl Walk {
    /// Copies `node` (at `depth`, found at JSON pointer `ptr`), summarising what lies at or
    /// past the cut depth.
    fn node(
        &mut self,
        node: &Value,
        depth: usize,
        ptr: &mut String,
        defs: &mut DefCache<'_>,
    ) -> Value {
        let Value::Object(map) = node else {
            return node.clone();
        };
        if depth >= self.cut && is_nested(map) {
            self.cuts.push(ptr.clone());
            return summary(map, defs, self.describe);
        }
        let mut out = Map::new();
        for (key, value) in map {
            let k = key.as_str();
            let len = ptr.len();
            ptr.push('/');
            ptr.push_str(&escape_pointer_segment(k));
            let d = if DEEPER.contains(&k) {
                depth + 1
            } else {
                depth
            };
            let value = match value {
                Value::String(_) if k == "$ref" => {
                    if let Some(name) = def_name(value) {
                        self.refs.push((name, depth));
                    }
                    value.clone()
                }
                _ if keywords::SUBSCHEMA.contains(&k) => self.node(value, d, ptr, defs),
                Value::Array(items) if keywords::SUBSCHEMA_LIST.contains(&k) => Value::Array(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, item)| {
                            let len = ptr.len();
                            ptr.push('/');
                            ptr.push_str(&i.to_string());
                            let v = self.node(item, d, ptr, defs);
                            ptr.truncate(len);
                            v
                        })
                        .collect(),
                ),
                Value::Object(entries)
                    if keywords::SUBSCHEMA_MAP.contains(&k)
                        && k != "$defs"
                        && k != "definitions" =>
                {
                    Value::Object(
                        entries
                            .iter()
                            .map(|(name, sub)| {
                                let len = ptr.len();
                                ptr.push('/');
                                ptr.push_str(&escape_pointer_segment(name));
                                let v = self.node(sub, depth + 1, ptr, defs);
                                ptr.truncate(len);
                                (name.clone(), v)
                            })
                            .collect(),
                    )
                }
                _ => value.clone(),
            };
            ptr.truncate(len);
            out.insert(key.clone(), value);
        }
        Value::Object(out)
    }
}

/// Whether a node has nested structure worth summarising: a reference, properties, or a
/// subschema that itself has subschemas (an array of strings or a nullable string is flat).
fn is_nested(map: &Map<String, Value>) -> bool {
    if map.contains_key("$ref") {
        return true;
    }
    if let Some(Value::Object(props)) = map.get("properties")
        && !props.is_empty()
    {
        return true;
    }
    let structured = |v: &Value| v.as_object().is_some_and(has_subschemas);
    map.iter().any(|(k, v)| {
        let k = k.as_str();
        if keywords::SUBSCHEMA.contains(&k) {
            structured(v)
        } else if keywords::SUBSCHEMA_LIST.contains(&k) {
            v.as_array().is_some_and(|a| a.iter().any(structured))
        } else if k == "patternProperties" || k == "dependentSchemas" {
            v.as_object().is_some_and(|m| m.values().any(structured))
        } else {
            false
        }
    })
}

/// Whether a node has any subschema (or reference) at all.
fn has_subschemas(map: &Map<String, Value>) -> bool {
    map.iter().any(|(k, v)| {
        let k = k.as_str();
        match k {
            "$ref" | "patternProperties" | "dependentSchemas" => true,
            "properties" => v.as_object().is_some_and(|p| !p.is_empty()),
            _ => keywords::SUBSCHEMA.contains(&k) || keywords::SUBSCHEMA_LIST.contains(&k),
        }
    })
}

/// The summary of a node: its type where it can be known, and what it is.
fn summary(map: &Map<String, Value>, defs: &mut DefCache<'_>, describe: bool) -> Value {
    let mut out = Map::new();
    if let Some(types) = node_types(map, defs, 8) {
        let mut types: Vec<Value> = types.into_iter().map(Value::String).collect();
        let t = if types.len() == 1 {
            types.pop().unwrap_or(Value::Null)
        } else {
            Value::Array(types)
        };
        out.insert("type".to_owned(), t);
    }
    if describe {
        let target = map
            .get("$ref")
            .and_then(def_name)
            .and_then(|name| defs.get(&name));
        let text = |key: &str| {
            map.get(key)
                .or_else(|| target.as_ref().and_then(|t| t.get(key)))
                .and_then(Value::as_str)
                .map(|s| first_sentence(&plain_text(s)))
                .filter(|s| !s.is_empty())
        };
        let title = text("title");
        let description = text("description");
        let head = match (title, description) {
            (Some(t), Some(d)) if d.starts_with(&t) => d,
            (Some(t), Some(d)) => format!("{t}: {d}"),
            (Some(t), None) => t,
            (None, Some(d)) => d,
            (None, None) => String::new(),
        };
        let head = cap(&head, PROPERTY_DESCRIPTION_CHARS);
        let text = if head.is_empty() {
            OMITTED.to_owned()
        } else {
            format!("{head} {OMITTED}")
        };
        out.insert("description".to_owned(), Value::String(text));
    }
    Value::Object(out)
}

/// The JSON types a node accepts, in the order written, when they can be told from its `type`,
/// its reference's target or the members of its `allOf` / `anyOf` / `oneOf`; `None` when any
/// value may be allowed.
fn node_types(
    map: &Map<String, Value>,
    defs: &mut DefCache<'_>,
    hops: usize,
) -> Option<Vec<String>> {
    match map.get("type") {
        Some(Value::String(t)) => return Some(vec![t.clone()]),
        Some(Value::Array(ts)) => {
            return Some(
                ts.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
            );
        }
        _ => {}
    }
    if hops == 0 {
        return None;
    }
    if let Some(name) = map.get("$ref").and_then(def_name) {
        let target = defs.get(&name)?;
        return node_types(target.as_object()?, defs, hops - 1);
    }
    if let Some(Value::Array(members)) = map.get("allOf") {
        // Every member constrains the value: the first whose types are known bounds them.
        return members
            .iter()
            .filter_map(Value::as_object)
            .find_map(|m| node_types(m, defs, hops - 1));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(members)) = map.get(key) {
            let mut all: Vec<String> = Vec::new();
            for member in members {
                for t in node_types(member.as_object()?, defs, hops - 1)? {
                    if !all.contains(&t) {
                        all.push(t);
                    }
                }
            }
            return (!all.is_empty()).then_some(all);
        }
    }
    None
}

/// The (unescaped) definition name of a `#/$defs/<name>` reference.
fn def_name(reference: &Value) -> Option<String> {
    let name = reference.as_str()?.strip_prefix("#/$defs/")?;
    Some(name.replace("~1", "/").replace("~0", "~"))
}

fn compact_len(value: &Value) -> usize {
    serde_json::to_vec(value).map(|v| v.len()).unwrap_or(0)
}

// ----- descriptions -----------------------------------------------------------------------------

/// Trims every `description` in a schema to its first sentence of plain text, at most
/// [`PROPERTY_DESCRIPTION_CHARS`] characters; with `drop`, removes the annotations a model
/// does not need to read the shape (`description`, `title`, `examples`) instead. Walks
/// subschemas only, so a property named `description` stays.
pub fn trim_schema_descriptions(schema: &mut Value, drop: bool) {
    let Value::Object(map) = schema else {
        return;
    };
    if drop {
        for key in ["description", "title", "examples"] {
            map.shift_remove(key);
        }
    } else if let Some(Value::String(d)) = map.get_mut("description") {
        *d = cap(&first_sentence(&plain_text(d)), PROPERTY_DESCRIPTION_CHARS);
    }
    for (key, value) in map.iter_mut() {
        let k = key.as_str();
        if keywords::SUBSCHEMA.contains(&k) {
            trim_schema_descriptions(value, drop);
        } else if keywords::SUBSCHEMA_LIST.contains(&k)
            && let Value::Array(items) = value
        {
            items
                .iter_mut()
                .for_each(|i| trim_schema_descriptions(i, drop));
        } else if keywords::SUBSCHEMA_MAP.contains(&k)
            && let Value::Object(entries) = value
        {
            entries
                .values_mut()
                .for_each(|v| trim_schema_descriptions(v, drop));
        }
    }
}

/// A tool description within `max` characters: the first paragraph of `text`, Markdown and
/// HTML markup removed, white space collapsed, cut at a word boundary with `…`.
pub fn tool_description(text: &str, max: usize) -> String {
    cap(&plain_text(first_paragraph(text)), max)
}

/// The first paragraph: text up to the first blank line.
fn first_paragraph(text: &str) -> &str {
    let text = text.trim();
    let mut end = text.len();
    for (i, _) in text.match_indices('\n') {
        let rest = &text[i + 1..];
        let line_end = rest.find('\n').unwrap_or(rest.len());
        if rest[..line_end].trim().is_empty() {
            end = i;
            break;
        }
    }
    &text[..end]
}

/// The first sentence: up to the first `.`, `!` or `?` followed by white space.
pub fn first_sentence(text: &str) -> String {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (n, (i, c)) in chars.iter().enumerate() {
        if matches!(c, '.' | '!' | '?')
            && chars
                .get(n + 1)
                .is_some_and(|(_, next)| next.is_whitespace())
        {
            return text[..i + c.len_utf8()].to_owned();
        }
    }
    text.to_owned()
}

/// Text with Markdown and HTML markup removed and white space collapsed: tags dropped, links
/// and images reduced to their text, emphasis and code marks, headings' `#`, quote `>` and
/// admonition markers (`[!NOTE]`) removed.
pub fn plain_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '<' => {
                // An HTML tag or comment: skip to its end (a lone `<` stays).
                if let Some(end) = chars[i + 1..].iter().position(|&c| c == '>') {
                    let inner: String = chars[i + 1..i + 1 + end].iter().collect();
                    let tag_like = inner
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_ascii_alphabetic() || c == '/' || c == '!');
                    if tag_like {
                        out.push(' ');
                        i += end + 2;
                        continue;
                    }
                }
                out.push(c);
            }
            '!' if chars.get(i + 1) == Some(&'[') => {}
            '[' => {
                // `[text](url)` → text; `[!NOTE]` → nothing.
                if let Some(close) = chars[i + 1..].iter().position(|&c| c == ']') {
                    let label: String = chars[i + 1..i + 1 + close].iter().collect();
                    let after = i + 1 + close + 1;
                    if label.starts_with('!') {
                        i = after;
                        continue;
                    }
                    if chars.get(after) == Some(&'(')
                        && let Some(end) = chars[after..].iter().position(|&c| c == ')')
                    {
                        out.push_str(&label);
                        i = after + end + 1;
                        continue;
                    }
                }
                out.push(c);
            }
            '*' | '`' => {}
            '_' if chars.get(i + 1) == Some(&'_') => {
                i += 2;
                continue;
            }
            '#' | '>' if out.trim_end().is_empty() || out.ends_with('\n') => {}
            _ => out.push(c),
        }
        i += 1;
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` within `max` characters, cut at a word boundary and ended with `…` when cut.
pub fn cap(text: &str, max: usize) -> String {
    if max == 0 || text.chars().count() <= max {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max.saturating_sub(1)).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > cut.len() / 2 => &cut[..i],
        _ => cut.as_str(),
    };
    format!("{}…", cut.trim_end_matches([' ', ',', ';', ':']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_drops_markup() {
        assert_eq!(
            plain_text("See **[the docs](https://x.y/z)** and `code` <br/>\n> [!NOTE] ok"),
            "See the docs and code ok"
        );
        assert_eq!(plain_text("a < b"), "a < b");
    }

    #[test]
    fn first_sentence_and_cap() {
        assert_eq!(first_sentence("One. Two."), "One.");
        assert_eq!(first_sentence("v1.2 is out. Yes"), "v1.2 is out.");
        assert_eq!(cap("alpha beta gamma", 12), "alpha beta…");
        assert_eq!(cap("short", 12), "short");
    }

    #[test]
    fn tool_description_takes_the_first_paragraph() {
        assert_eq!(
            tool_description("Lists **all** repos.\n\nMore text.", 200),
            "Lists all repos."
        );
        assert_eq!(tool_description("one two three four", 10), "one two…");
    }
}
