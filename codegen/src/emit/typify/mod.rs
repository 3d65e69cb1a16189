//! Typed argument and output types through typify, with a fallback to `serde_json::Value`
//! wherever typify cannot handle a schema, with a warning naming the schema.
//!
//! Schema shapes that make typify 0.8 panic (references it cannot follow, `not` schemas other
//! than the few it reads, enums without a type whose values mix JSON types, empty `allOf` /
//! `anyOf` / `oneOf`) are found by `unsupported` and replaced before typify sees them. A panic
//! from anywhere else in typify is still contained by `catch_unwind` as a last resort; the
//! process-wide panic hook is left alone, so such a panic's message is printed on stderr (in a
//! proc-macro, the compiler hides it) and the schema falls back with a warning as usual.
//!
//! One file per job: `clean` turns a schema into what typify reads, `unsupported` finds the
//! shapes it panics on, `space` wraps typify's `TypeSpace`, `bisect` finds the definitions it
//! refuses, `names` handles type names, `shared` makes the enums of lists several tools share
//! one definition; this file builds a module and falls back.

mod bisect;
mod clean;
mod docs;
mod items;
mod names;
mod shared;
mod space;
mod unsupported;

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;
use typify::TypeSpace;

use crate::error::Warning;
use bisect::find_bad_defs;
use clean::to_typify_schema;
use names::{normalize, unique_type_keys};
use space::{add_root, new_space, quietly};

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
    /// The module's items, formatted as the body of a module at the top of a file (indented
    /// one level); empty when there are none.
    pub text: String,
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
/// `serde_json::Value` until the names are unique. Item enums of lists that several roots
/// share are moved into the definitions first (`shared`).
pub fn build(
    module: &str,
    mut defs: BTreeMap<String, Value>,
    mut roots: Vec<Root>,
    warnings: &mut Vec<Warning>,
) -> TypeModule {
    shared::share_list_enums(&mut defs, &mut roots);
    let (defs, roots) = (&defs, &roots[..]);
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
        let dups = match items::format_module(result.tokens, roots, module) {
            Ok(text) => {
                warnings.extend(attempt_warnings);
                return TypeModule {
                    text,
                    typed: result.typed,
                };
            }
            Err(dups) => dups,
        };
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
        text: String::new(),
        typed: BTreeMap::new(),
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
    // Extended in place: quoting both would copy the whole module's tokens once more.
    let mut tokens = tokens;
    tokens.extend(aliases);
    Attempt { tokens, typed }
}

fn fallback_warning(module: &str, what: &str, why: &str) -> Warning {
    Warning {
        location: format!("types::{module} {what}"),
        message: format!("{why}; using serde_json::Value instead"),
    }
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
        let module = build("input", defs, roots.into(), &mut warnings);
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
