//! Enums that several tools list the same way become one shared definition, so typify writes
//! each once.
//!
//! Some APIs give every operation a query parameter whose value is a list of names from a
//! fixed set: Microsoft Graph's `$select`, `$orderby` and `$expand` list an entity's
//! properties, and the same list comes back for every operation on that entity (17,600 lists,
//! 2,150 of them different, in Graph beta). typify names an inline enum after the tool's type,
//! so it would write a separate enum with its `Display`, `FromStr` and `TryFrom` impls for
//! each tool. Here the item schema of such a list, when two or more tools have it exactly, is
//! moved into the definitions and every tool refers to it. The definition is named the way
//! typify names the first tool's enum (`<Tool>Args<Property>Item`), so that tool's types read
//! as before. Only what typify reads changes: the schemas advertised and used to validate
//! arguments keep their lists.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{Map, Value};

use super::Root;
use super::names::normalize;
use crate::naming::pascal_case;

/// Moves the string enums that are the items of a top-level array property of more than one
/// root into `defs`, replacing each with a reference to the shared definition.
pub(super) fn share_list_enums(defs: &mut BTreeMap<String, Value>, roots: &mut [Root]) {
    // The exact text of each candidate, and how many times it occurs.
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut found: Vec<(usize, String, String)> = Vec::new();
    for (index, root) in roots.iter().enumerate() {
        let Some(props) = root.schema.get("properties").and_then(Value::as_object) else {
            continue;
        };
        for (prop, schema) in props {
            let Some(items) = list_enum(schema) else {
                continue;
            };
            let text = items.to_string();
            *counts.entry(text.clone()).or_default() += 1;
            found.push((index, prop.clone(), text));
        }
    }
    let mut taken: BTreeSet<String> = defs.keys().map(|k| normalize(k)).collect();
    let mut names: HashMap<String, String> = HashMap::new();
    for (index, prop, text) in found {
        if counts.get(&text).is_none_or(|n| *n < 2) {
            continue;
        }
        let Some(root) = roots.get_mut(index) else {
            continue;
        };
        let Some(items) = root
            .schema
            .get_mut("properties")
            .and_then(|p| p.get_mut(&prop))
            .and_then(|s| s.get_mut("items"))
        else {
            continue;
        };
        let name = match names.get(&text) {
            Some(name) => name.clone(),
            None => {
                let name = free_name(
                    &format!("{}{}Item", root.type_name, pascal_case(&prop)),
                    &mut taken,
                );
                defs.insert(name.clone(), items.take());
                names.insert(text, name.clone());
                name
            }
        };
        let mut reference = Map::new();
        reference.insert("$ref".to_owned(), Value::String(format!("#/$defs/{name}")));
        *items = Value::Object(reference);
    }
}

/// The item schema of `schema` when `schema` is an array of strings from an enum.
fn list_enum(schema: &Value) -> Option<&Value> {
    let items = schema.get("items")?;
    let values = items.get("enum")?.as_array()?;
    let is_string = items.get("type").is_none_or(|t| t == "string");
    (is_string && !values.is_empty() && values.iter().all(Value::is_string)).then_some(items)
}

/// `wanted`, or `wanted` with a number, whichever no definition has yet (compared as typify
/// turns names into type names).
fn free_name(wanted: &str, taken: &mut BTreeSet<String>) -> String {
    let mut name = wanted.to_owned();
    let mut n = 2;
    while !taken.insert(normalize(&name)) {
        name = format!("{wanted}{n}");
        n += 1;
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn root(tool: &str, schema: Value) -> Root {
        Root {
            tool: tool.to_owned(),
            type_name: format!("{}Args", pascal_case(tool)),
            schema,
        }
    }

    #[test]
    fn lists_two_tools_share_become_one_definition() {
        let select = json!({"type": "array", "items": {"type": "string", "enum": ["id", "name"]}});
        let other = json!({"type": "array", "items": {"type": "string", "enum": ["id"]}});
        let mut roots = vec![
            root(
                "list_users",
                json!({"properties": {"$select": select, "$orderby": other}}),
            ),
            root("get_user", json!({"properties": {"$select": select}})),
        ];
        let mut defs = [(
            "ListUsersArgsSelectItem".to_owned(),
            json!({"type": "string"}),
        )]
        .into_iter()
        .collect();
        share_list_enums(&mut defs, &mut roots);
        let reference = json!({"$ref": "#/$defs/ListUsersArgsSelectItem2"});
        assert_eq!(roots[0].schema["properties"]["$select"]["items"], reference);
        assert_eq!(roots[1].schema["properties"]["$select"]["items"], reference);
        assert_eq!(defs["ListUsersArgsSelectItem2"], select["items"]);
        // A list only one tool has stays where it is.
        assert_eq!(roots[0].schema["properties"]["$orderby"], other);
        assert_eq!(defs.len(), 2);
    }

    /// typify writes the shared enum once, under the first tool's name, and both argument
    /// types use it.
    #[test]
    fn the_module_has_one_enum_for_a_shared_list() {
        let select = json!({"type": "array", "items": {"type": "string", "enum": ["id", "name"]}});
        let roots = vec![
            root(
                "list_users",
                json!({"type": "object", "properties": {"$select": select}}),
            ),
            root(
                "get_user",
                json!({"type": "object", "properties": {"$select": select}}),
            ),
        ];
        let mut warnings = Vec::new();
        let module = super::super::build("input", BTreeMap::new(), roots, &mut warnings);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            module.text.matches("pub enum ").count(),
            1,
            "{}",
            module.text
        );
        assert!(module.text.contains("pub enum ListUsersArgsSelectItem {"));
        let uses = module.text.matches("Vec<ListUsersArgsSelectItem>").count();
        assert_eq!(uses, 2, "{}", module.text);
    }
}
