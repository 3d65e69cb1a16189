//! Type names: definition keys typify turns into distinct names, and duplicates in its output.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::naming::pascal_case;

/// Lower-case letters and digits only, for comparing names across naming conventions.
pub(super) fn normalize(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Names defined more than once in the same module of `items` (types, functions, consts),
/// added to `out`.
pub(super) fn duplicates_in(items: &[syn::Item], out: &mut Vec<String>) {
    let mut seen = BTreeSet::new();
    for item in items {
        item_duplicates(item, &mut seen, out);
    }
}

/// Checks the next `item` of a module against the names `seen` before it in that module
/// (and the items of a module it holds against each other), adding names defined twice to
/// `out`.
pub(super) fn item_duplicates(
    item: &syn::Item,
    seen: &mut BTreeSet<String>,
    out: &mut Vec<String>,
) {
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

/// Definition names as typify should see them: typify derives type names from the last `$ref`
/// segment in PascalCase, so names that differ only in case or punctuation (`issue-type`,
/// `issue_type`) would give two types the same name. Later ones get a numeric suffix.
pub(super) fn unique_type_keys(defs: &BTreeMap<String, Value>) -> BTreeMap<String, String> {
    let mut taken = BTreeSet::new();
    let mut renames = BTreeMap::new();
    for name in defs.keys() {
        let mut key = name.clone();
        let mut n = 2;
        while !taken.insert(pascal_case(&key).to_ascii_lowercase()) {
            key = format!("{name}_{n}");
            n += 1;
        }
        renames.insert(name.clone(), key);
    }
    renames
}
