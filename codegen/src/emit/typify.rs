//! Typed argument and output types through typify, with a fallback to `serde_json::Value`
//! wherever typify cannot handle a schema, with a warning naming the schema.
//!
//! Schema shapes that make typify 0.8 panic (references it cannot follow, `not` schemas other
//! than the few it reads, enums without a type whose values mix JSON types, empty `allOf` /
//! `anyOf` / `oneOf`) are found by [`unsupported`] and replaced before typify sees them. A panic
//! from anywhere else in typify is still contained by `catch_unwind` as a last resort; the
//! process-wide panic hook is left alone, so such a panic's message is printed on stderr (in a
//! proc-macro, the compiler hides it) and the schema falls back with a warning as usual.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{AssertUnwindSafe, catch_unwind};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;
use typify::{TypeSpace, TypeSpaceSettings};

use crate::error::Warning;

/// One root type to add: a tool's arguments or output.
pub struct Root {
    /// Tool name (for warnings).
    pub tool: String,
    /// Rust type name wanted, e.g. `SynaplanSendMessageArgs`.
    pub type_name: String,
    /// The schema without `$defs`.
    pub schema: Value,
}

/// The result for one module (`input` or `output`).
pub struct TypeModule {
    /// The module's items, parsed (the check for duplicate names parses them anyway, and the
    /// file they go into is formatted from them without parsing them again).
    pub items: Vec<syn::Item>,
    /// Tool name → type name in the module, for tools whose root type was generated.
    pub typed: BTreeMap<String, String>,
}

/// What one attempt of [`build`] produced, before the check for duplicate names.
struct Attempt {
    tokens: TokenStream,
    typed: BTreeMap<String, String>,
}

/// Builds the types of one module from shared `defs` and per-tool `roots`.
///
/// typify occasionally gives two types (or two default-value functions) the same name; the
/// output is checked for that, and the definitions or tools involved fall back to
/// `serde_json::Value` until the names are unique.
pub fn build(
    module: &str,
    defs: &BTreeMap<String, Value>,
    roots: &[Root],
    warnings: &mut Vec<Warning>,
) -> TypeModule {
    let mut forced_defs = BTreeSet::new();
    let mut forced_roots = BTreeSet::new();
    for _attempt in 0..16 {
        let mut attempt_warnings = Vec::new();
        let result = build_once(
            module,
            defs,
            roots,
            &forced_defs,
            &forced_roots,
            &mut attempt_warnings,
        );
        let (items, dups) = match syn::parse2::<syn::File>(result.tokens) {
            Ok(file) => {
                let mut dups = Vec::new();
                duplicates_in(&file.items, &mut dups);
                (file.items, dups)
            }
            Err(_) => (Vec::new(), vec!["<unparsable>".to_owned()]),
        };
        if dups.is_empty() {
            warnings.extend(attempt_warnings);
            return TypeModule {
                items,
                typed: result.typed,
            };
        }
        let before = (forced_defs.len(), forced_roots.len());
        for dup in &dups {
            let d = normalize(dup);
            if let Some(root) = roots.iter().find(|r| normalize(&r.type_name) == d) {
                forced_roots.insert(root.tool.clone());
                continue;
            }
            // The longest definition whose name the duplicate starts with (types are named
            // after their definition, nested types and defaults after their parent).
            if let Some(def) = defs
                .keys()
                .filter(|k| !forced_defs.contains(*k) && d.starts_with(&normalize(k)))
                .max_by_key(|k| normalize(k).len())
            {
                forced_defs.insert(def.clone());
            } else if let Some(root) = roots
                .iter()
                .filter(|r| {
                    !forced_roots.contains(&r.tool) && d.starts_with(&normalize(&r.type_name))
                })
                .max_by_key(|r| r.type_name.len())
            {
                forced_roots.insert(root.tool.clone());
            }
        }
        if (forced_defs.len(), forced_roots.len()) == before {
            break;
        }
    }
    warnings.push(fallback_warning(
        module,
        "*",
        "typify produced conflicting type names for this module",
    ));
    TypeModule {
        items: Vec::new(),
        typed: BTreeMap::new(),
    }
}

/// Lower-case letters and digits only, for comparing names across naming conventions.
fn normalize(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Names defined more than once in the same module of `items` (types, functions, consts),
/// added to `out`.
fn duplicates_in(items: &[syn::Item], out: &mut Vec<String>) {
    let mut seen = BTreeSet::new();
    for item in items {
        let name = match item {
            syn::Item::Struct(i) => Some(i.ident.to_string()),
            syn::Item::Enum(i) => Some(i.ident.to_string()),
            syn::Item::Type(i) => Some(i.ident.to_string()),
            syn::Item::Fn(i) => Some(i.sig.ident.to_string()),
            syn::Item::Const(i) => Some(i.ident.to_string()),
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    duplicates_in(inner, out);
                }
                Some(m.ident.to_string())
            }
            _ => None,
        };
        if let Some(name) = name
            && !seen.insert(name.clone())
        {
            out.push(name);
        }
    }
}

fn build_once(
    module: &str,
    defs: &BTreeMap<String, Value>,
    roots: &[Root],
    forced_defs: &BTreeSet<String>,
    forced_roots: &BTreeSet<String>,
    warnings: &mut Vec<Warning>,
) -> Attempt {
    for name in forced_defs {
        warnings.push(fallback_warning(
            module,
            &format!("$defs/{name}"),
            "typify gave its type a name that is already taken",
        ));
    }
    // Schemas typify cannot even read become `true` (any value).
    let renames = unique_type_keys(defs);
    let mut prepared: BTreeMap<String, schemars::schema::Schema> = BTreeMap::new();
    for (name, schema) in defs {
        let key = renames.get(name).cloned().unwrap_or_else(|| name.clone());
        if forced_defs.contains(name) {
            prepared.insert(key, schemars::schema::Schema::Bool(true));
            continue;
        }
        match to_typify_schema(schema, &renames) {
            Ok(s) => {
                prepared.insert(key, s);
            }
            Err(e) => {
                warnings.push(fallback_warning(module, &format!("$defs/{name}"), &e));
                prepared.insert(key, schemars::schema::Schema::Bool(true));
            }
        }
    }

    // Find the definitions typify fails on and replace them with `true`.
    let bad = find_bad_defs(&prepared);
    crate::progress::step(|| format!("{module} types: {} schemas typify cannot handle", bad.len()));
    for name in &bad {
        warnings.push(fallback_warning(
            module,
            &format!("$defs/{name}"),
            "typify could not generate a type for it",
        ));
        prepared.insert(name.clone(), schemars::schema::Schema::Bool(true));
    }

    // Add roots one by one; a failing root is dropped and the space rebuilt without it.
    let mut good: Vec<(&Root, schemars::schema::Schema)> = Vec::new();
    let mut ids: Vec<typify::TypeId> = Vec::new();
    let mut space = new_space(&prepared).ok();
    for root in roots {
        if forced_roots.contains(&root.tool) {
            warnings.push(fallback_warning(
                module,
                &root.tool,
                "typify gave its type a name that is already taken",
            ));
            continue;
        }
        let schema = match to_typify_schema(&root.schema, &renames) {
            Ok(s) => s,
            Err(e) => {
                warnings.push(fallback_warning(module, &root.tool, &e));
                continue;
            }
        };
        let added = space
            .as_mut()
            .map(|s| add_root(s, &root.type_name, &schema));
        match added {
            Some(Ok(id)) => {
                good.push((root, schema));
                ids.push(id);
            }
            _ => {
                crate::progress::step(|| {
                    format!("{module} types: rebuilding without {}", root.tool)
                });
                warnings.push(fallback_warning(
                    module,
                    &root.tool,
                    "typify could not generate a type for the tool's schema",
                ));
                match rebuild(&prepared, &good) {
                    Some((s, new_ids)) => {
                        space = Some(s);
                        ids = new_ids;
                    }
                    None => space = None,
                }
            }
        }
    }

    let Some(space) = space else {
        return Attempt {
            tokens: TokenStream::new(),
            typed: BTreeMap::new(),
        };
    };
    let mut typed = BTreeMap::new();
    let mut aliases = TokenStream::new();
    for (root, _) in &good {
        typed.insert(root.tool.clone(), root.type_name.clone());
    }
    // Roots whose generated type got another name (a map, or a schema identical to a shared
    // one) get an alias with the wanted name.
    let names: BTreeSet<String> = space.iter_types().map(|t| t.name()).collect();
    for ((root, _), id) in good.iter().zip(&ids) {
        if names.contains(&root.type_name) {
            continue;
        }
        let alias = format_ident!("{}", root.type_name);
        match quietly(|| space.get_type(id).ok().map(|t| t.ident()))
            .ok()
            .flatten()
        {
            Some(ident) => aliases.extend(quote! {
                #[doc = "The tool's type (an alias: its schema is the same as this type's)."]
                pub type #alias = #ident;
            }),
            None => aliases.extend(quote! { pub type #alias = ::serde_json::Value; }),
        }
    }
    crate::progress::step(|| format!("{module} types: writing {} tool types", good.len()));
    let tokens = match quietly(|| space.to_stream()) {
        Ok(t) => t,
        Err(_) => {
            warnings.push(fallback_warning(
                module,
                "*",
                "typify failed while writing types",
            ));
            return Attempt {
                tokens: TokenStream::new(),
                typed: BTreeMap::new(),
            };
        }
    };
    Attempt {
        tokens: quote! { #tokens #aliases },
        typed,
    }
}

fn fallback_warning(module: &str, what: &str, why: &str) -> Warning {
    Warning {
        location: format!("types::{module} {what}"),
        message: format!("{why}; using serde_json::Value instead"),
    }
}

fn settings() -> TypeSpaceSettings {
    let mut s = TypeSpaceSettings::default();
    s.with_struct_builder(false);
    if let Ok(map) = "::std::collections::BTreeMap".parse::<typify::MapType>() {
        s.with_map_type(map);
    }
    s
}

fn new_space(defs: &BTreeMap<String, schemars::schema::Schema>) -> Result<TypeSpace, ()> {
    quietly(|| {
        let mut space = TypeSpace::new(&settings());
        space
            .add_ref_types(defs.clone())
            .map(|_| space)
            .map_err(|_| ())
    })
    .map_err(|_| ())?
}

fn add_root(
    space: &mut TypeSpace,
    name: &str,
    schema: &schemars::schema::Schema,
) -> Result<typify::TypeId, ()> {
    quietly(|| {
        space
            .add_type_with_name(schema, Some(name.to_owned()))
            .map_err(|_| ())
    })
    .map_err(|_| ())?
}

fn rebuild(
    defs: &BTreeMap<String, schemars::schema::Schema>,
    good: &[(&Root, schemars::schema::Schema)],
) -> Option<(TypeSpace, Vec<typify::TypeId>)> {
    let mut space = new_space(defs).ok()?;
    let mut ids = Vec::new();
    for (root, schema) in good {
        ids.push(add_root(&mut space, &root.type_name, schema).ok()?);
    }
    Some((space, ids))
}

/// Definition names as typify should see them: typify derives type names from the last `$ref`
/// segment in PascalCase, so names that differ only in case or punctuation (`issue-type`,
/// `issue_type`) would give two types the same name. Later ones get a numeric suffix.
fn unique_type_keys(defs: &BTreeMap<String, Value>) -> BTreeMap<String, String> {
    let mut taken = BTreeSet::new();
    let mut renames = BTreeMap::new();
    for name in defs.keys() {
        let mut key = name.clone();
        let mut n = 2;
        while !taken.insert(crate::naming::pascal_case(&key).to_ascii_lowercase()) {
            key = format!("{name}_{n}");
            n += 1;
        }
        renames.insert(name.clone(), key);
    }
    renames
}

/// The definitions that make `add_ref_types` fail: found by bisection, replacing suspects with
/// `true` (any value) until the rest is accepted.
fn find_bad_defs(defs: &BTreeMap<String, schemars::schema::Schema>) -> Vec<String> {
    if new_space(defs).is_ok() {
        return Vec::new();
    }
    let names: Vec<String> = defs.keys().cloned().collect();
    let mut bad = Vec::new();
    let mut replaced: BTreeSet<String> = BTreeSet::new();
    bisect(defs, &names, &mut replaced, &mut bad);
    bad
}

fn passes(defs: &BTreeMap<String, schemars::schema::Schema>, replaced: &BTreeSet<String>) -> bool {
    let trial: BTreeMap<String, schemars::schema::Schema> = defs
        .iter()
        .map(|(k, v)| {
            let v = if replaced.contains(k) {
                schemars::schema::Schema::Bool(true)
            } else {
                v.clone()
            };
            (k.clone(), v)
        })
        .collect();
    new_space(&trial).is_ok()
}

/// Finds bad definitions among `suspects`, given that replacing all of `suspects` (plus
/// `replaced`) passes. Found ones are added to `bad` and stay in `replaced`.
fn bisect(
    defs: &BTreeMap<String, schemars::schema::Schema>,
    suspects: &[String],
    replaced: &mut BTreeSet<String>,
    bad: &mut Vec<String>,
) {
    let with = |replaced: &BTreeSet<String>, extra: &[String]| {
        let mut r = replaced.clone();
        r.extend(extra.iter().cloned());
        r
    };
    if passes(defs, replaced) {
        return;
    }
    if suspects.len() <= 1 {
        bad.extend(suspects.iter().cloned());
        replaced.extend(suspects.iter().cloned());
        return;
    }
    let (left, right) = suspects.split_at(suspects.len() / 2);
    // Keep `right` real, replace `left`: if that passes, every culprit is in `left`.
    if passes(defs, &with(replaced, left)) {
        bisect(defs, left, replaced, bad);
        return;
    }
    // Some culprit is in `right`: find those with `left` replaced, then look in `left`.
    let mut tmp = with(replaced, left);
    let before = bad.len();
    bisect(defs, right, &mut tmp, bad);
    replaced.extend(bad[before..].iter().cloned());
    bisect(defs, left, replaced, bad);
}

/// Runs `f`, turning a panic into `Err`. The panic hook is not touched (it is process-wide
/// state other threads use), so the hook in place reports the panic as it would any other.
fn quietly<R>(f: impl FnOnce() -> R) -> Result<R, ()> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|_| ())
}

/// The first place in `schema` (already [`clean`]ed) that typify 0.8 would panic on, as a JSON
/// pointer relative to `schema` and the reason; `defs` are the definition keys a `$ref` may name.
/// Two names that typify would turn into the same Rust field or variant name (it drops
/// punctuation and case, and does not always disambiguate), compared conservatively:
/// case-folded, letters and digits only.
fn colliding_names<'a>(names: impl Iterator<Item = &'a str>) -> Option<(&'a str, &'a str)> {
    let mut seen: BTreeMap<String, &str> = BTreeMap::new();
    for name in names {
        let folded: String = name
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if let Some(first) = seen.insert(folded, name) {
            return Some((first, name));
        }
    }
    None
}

fn unsupported(schema: &Value, defs: &BTreeSet<&str>) -> Option<(String, String)> {
    let Value::Object(map) = schema else {
        return None;
    };
    if let Some(r) = map.get("$ref") {
        let known = r
            .as_str()
            .and_then(|r| r.strip_prefix("#/$defs/"))
            .is_some_and(|name| defs.contains(name));
        return (!known).then(|| {
            (
                "/$ref".to_owned(),
                format!("typify cannot follow the reference {r}"),
            )
        });
    }
    if let Some(not) = map.get("not")
        && !readable_not(not)
    {
        return Some((
            "/not".to_owned(),
            "typify reads `not` only with `true`/`false`, `{}` or an enum of one JSON type".into(),
        ));
    }
    if !map.contains_key("type")
        && let Some(Value::Array(values)) = map.get("enum")
        && json_types(values.iter().filter(|v| !v.is_null())).len() > 1
    {
        return Some((
            "/enum".to_owned(),
            "typify cannot type an enum without `type` whose values mix JSON types".into(),
        ));
    }
    if let Some(Value::Array(values)) = map.get("enum")
        && let Some((a, b)) = colliding_names(values.iter().filter_map(Value::as_str))
    {
        return Some((
            "/enum".to_owned(),
            format!("enum values `{a}` and `{b}` would become the same Rust variant name"),
        ));
    }
    if let Some(Value::Object(props)) = map.get("properties")
        && let Some((a, b)) = colliding_names(props.keys().map(String::as_str))
    {
        return Some((
            "/properties".to_owned(),
            format!("properties `{a}` and `{b}` would become the same Rust field name"),
        ));
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(items)) = map.get(key)
            && items.is_empty()
        {
            return Some((
                format!("/{key}"),
                format!("typify cannot read an empty `{key}`"),
            ));
        }
    }
    for (key, value) in map {
        let found = match key.as_str() {
            "default" | "const" | "enum" | "$defs" => None,
            "properties" | "definitions" => value.as_object().and_then(|props| {
                props.iter().find_map(|(name, s)| {
                    unsupported(s, defs)
                        .map(|(p, why)| (format!("/{key}/{}{p}", escape_pointer(name)), why))
                })
            }),
            _ => match value {
                Value::Array(items) => items.iter().enumerate().find_map(|(i, s)| {
                    unsupported(s, defs).map(|(p, why)| (format!("/{key}/{i}{p}"), why))
                }),
                other => unsupported(other, defs).map(|(p, why)| (format!("/{key}{p}"), why)),
            },
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Whether typify 0.8 reads `{"not": schema}` without panicking.
fn readable_not(schema: &Value) -> bool {
    match schema {
        Value::Bool(_) => true,
        Value::Object(map) => {
            let schema_keys = map
                .keys()
                .filter(|k| !matches!(k.as_str(), "description" | "default" | "title"))
                .count();
            match (map.get("type"), map.get("enum")) {
                (None, None) => schema_keys == 0,
                (Some(Value::String(_)), Some(Value::Array(_))) => true,
                (None, Some(Value::Array(values))) => {
                    schema_keys == 1
                        && values
                            .iter()
                            .all(|v| v.is_boolean() || v.is_number() || v.is_string())
                        && json_types(values.iter()).len() == 1
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// The JSON types of `values` (`number` for integers too).
fn json_types<'a>(values: impl Iterator<Item = &'a Value>) -> BTreeSet<&'static str> {
    values
        .map(|v| match v {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        })
        .collect()
}

/// A JSON pointer segment: `~` and `/` escaped.
fn escape_pointer(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// The schema as typify should see it: formats that would pull in chrono/uuid and patterns that
/// would pull in regress are dropped (the JSON schema in `tools.json` keeps them; validation is
/// the runtime's job), and 2020-12-only keywords typify does not read are removed.
fn to_typify_schema(
    schema: &Value,
    renames: &BTreeMap<String, String>,
) -> Result<schemars::schema::Schema, String> {
    let cleaned = clean(schema, renames);
    let defs: BTreeSet<&str> = renames.values().map(String::as_str).collect();
    if let Some((pointer, why)) = unsupported(&cleaned, &defs) {
        return Err(format!("at `{pointer}`: {why}"));
    }
    serde_json::from_value(cleaned).map_err(|e| format!("schema not readable by typify: {e}"))
}

fn clean(v: &Value, renames: &BTreeMap<String, String>) -> Value {
    match v {
        Value::Object(map) => {
            // typify reads `$ref` with siblings poorly; the reference alone carries the type.
            if let Some(r) = map.get("$ref") {
                let r = match r.as_str().and_then(|r| r.strip_prefix("#/$defs/")) {
                    Some(name) => {
                        let key = renames.get(name).map_or(name, String::as_str);
                        Value::String(format!("#/$defs/{key}"))
                    }
                    None => r.clone(),
                };
                let mut only = serde_json::Map::new();
                only.insert("$ref".to_owned(), r);
                return Value::Object(only);
            }
            let mut out = serde_json::Map::new();
            for (k, val) in map {
                match k.as_str() {
                    "$defs"
                    | "title"
                    | "pattern"
                    | "patternProperties"
                    | "examples"
                    | "example"
                    | "contentEncoding"
                    | "contentMediaType"
                    | "prefixItems"
                    | "$comment"
                    | "deprecated"
                    | "readOnly"
                    | "writeOnly"
                    | "unevaluatedProperties"
                    | "dependentRequired"
                    | "dependentSchemas" => {}
                    "format" => {
                        if let Some(f) = val.as_str()
                            && KEPT_FORMATS.contains(&f)
                        {
                            out.insert(k.clone(), val.clone());
                        }
                    }
                    "properties" | "definitions" => {
                        let props = val
                            .as_object()
                            .map(|m| {
                                m.iter()
                                    .map(|(pk, pv)| (pk.clone(), clean(pv, renames)))
                                    .collect()
                            })
                            .unwrap_or_default();
                        out.insert(k.clone(), Value::Object(props));
                    }
                    "default" | "const" | "enum" => {
                        out.insert(k.clone(), val.clone());
                    }
                    _ => {
                        out.insert(k.clone(), clean(val, renames));
                    }
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|i| clean(i, renames)).collect()),
        other => other.clone(),
    }
}

const KEPT_FORMATS: &[&str] = &[
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float", "double",
];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Schemas typify 0.8 panics on fall back with a warning naming the pointer, before typify
    /// sees them; the rest of the module is still typed.
    #[test]
    fn shapes_typify_panics_on_fall_back_with_their_pointer() {
        let defs: BTreeMap<String, Value> = [
            (
                "Good",
                json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            ),
            (
                "Not",
                json!({"type": "object", "properties": {"x": {"not": {"type": "string"}}}}),
            ),
            ("Mixed", json!({"enum": [1, "one", null]})),
            ("External", json!({"$ref": "other.json#/Thing"})),
            ("EmptyAllOf", json!({"allOf": []})),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let roots = [Root {
            tool: "t".into(),
            type_name: "TArgs".into(),
            schema: json!({"type": "object", "properties": {"g": {"$ref": "#/$defs/Good"}}}),
        }];
        let mut warnings = Vec::new();
        let module = build("input", &defs, &roots, &mut warnings);
        assert_eq!(module.typed.get("t").map(String::as_str), Some("TArgs"));
        let shown: Vec<String> = warnings.iter().map(ToString::to_string).collect();
        for expected in [
            "types::input $defs/Not: at `/properties/x/not`",
            "types::input $defs/Mixed: at `/enum`",
            "types::input $defs/External: at `/$ref`",
            "types::input $defs/EmptyAllOf: at `/allOf`",
        ] {
            assert!(
                shown.iter().any(|w| w.starts_with(expected)),
                "{expected}: {shown:#?}"
            );
        }
        assert_eq!(shown.len(), 4, "{shown:#?}");
    }
}
