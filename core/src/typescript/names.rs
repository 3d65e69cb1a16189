//! Named types: which definitions a schema reaches, the TypeScript name each gets, and the
//! declarations, each held once.
//!
//! A definition is named after its `$defs` key. Two definitions may share a key and differ
//! (an API's `Ticket` as an argument has no read-only fields; as a result it tolerates
//! drift): the one named first keeps the name, the other gets its side's suffix (`TicketInput`,
//! then `TicketInput2`, ...). Definitions are the same type only when their schemas are the
//! same text and their references name the same types, so a renamed definition renames the
//! ones that refer to it, until the names settle.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

use serde_json::{Map, Value};

use super::render::Render;
use super::text::type_name;
use crate::tool::def_refs;

/// Where a schema's `#/$defs/NAME` references resolve: its own `$defs`, then the definitions
/// its crate's tools share.
#[derive(Clone, Copy)]
pub(crate) struct Scope<'a> {
    /// The schema's own `$defs`.
    pub(crate) own: Option<&'a Map<String, Value>>,
    /// The shared definitions.
    pub(crate) shared: Option<&'a Map<String, Value>>,
    /// What a definition's name gets when another type holds it: `Input` or `Output`.
    pub(crate) suffix: &'static str,
}

impl<'a> Scope<'a> {
    fn get(&self, name: &str) -> Option<&'a Value> {
        self.own
            .and_then(|own| own.get(name))
            .or_else(|| self.shared.and_then(|shared| shared.get(name)))
    }

    /// The names of the definitions `root` reaches, in the order first reached.
    pub(crate) fn reached(&self, root: &Value, memo: &mut Memo) -> Vec<String> {
        let mut order = Vec::new();
        let mut seen = HashSet::new();
        let mut queue = Vec::new();
        def_refs(root, &mut queue);
        queue.reverse();
        while let Some(name) = queue.pop() {
            if !seen.insert(name.clone()) {
                continue;
            }
            if let Some(def) = self.get(&name) {
                queue.extend(memo.facts(def).refs.iter().rev().cloned());
                order.push(name);
            }
        }
        order
    }
}

/// What naming reads of a definition: its text and the names it references.
#[derive(Debug)]
pub(crate) struct Facts {
    text: Rc<str>,
    refs: Vec<String>,
}

/// The [`Facts`] of each definition, found once per conversion: a crate's shared definitions
/// are reached by many tools. Keyed by the definition's address, so a memo must not outlive
/// the schemas it was used on (one [`super::Declarations::add`]).
#[derive(Debug, Default)]
pub(crate) struct Memo {
    facts: HashMap<usize, Rc<Facts>>,
}

impl Memo {
    fn facts(&mut self, def: &Value) -> Rc<Facts> {
        let address = std::ptr::from_ref(def) as usize;
        self.facts
            .entry(address)
            .or_insert_with(|| {
                let mut refs = Vec::new();
                def_refs(def, &mut refs);
                Rc::new(Facts {
                    text: def.to_string().into(),
                    refs,
                })
            })
            .clone()
    }
}

/// What makes two definitions the same type: their schema's text and the type names their
/// references resolve to.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Key {
    text: Rc<str>,
    refs: Vec<String>,
}

/// One named type.
#[derive(Debug)]
struct Entry {
    key: Key,
    declaration: String,
}

/// Every named type declared so far, by TypeScript name, in the order declared.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    entries: HashMap<String, Entry>,
    order: Vec<String>,
}

impl Registry {
    /// The declaration of the type `name`.
    pub(crate) fn declaration(&self, name: &str) -> Option<&str> {
        self.entries.get(name).map(|e| e.declaration.as_str())
    }

    /// Every type's name and declaration, in the order declared.
    pub(crate) fn all(&self) -> impl Iterator<Item = (&str, &str)> {
        self.order
            .iter()
            .filter_map(|name| Some((name.as_str(), self.declaration(name)?)))
    }

    /// Names the definitions `reached` of `scope` (declaring the new ones) and returns the
    /// type name of each, by definition name.
    pub(crate) fn name(
        &mut self,
        scope: Scope<'_>,
        reached: &[String],
        memo: &mut Memo,
    ) -> BTreeMap<String, String> {
        let defs: Vec<(&String, &Value, Rc<Facts>)> = reached
            .iter()
            .filter_map(|name| {
                let def = scope.get(name)?;
                Some((name, def, memo.facts(def)))
            })
            .collect();
        let mut attempt: Vec<usize> = vec![0; defs.len()];
        let candidate = |name: &str, attempt: usize| match attempt {
            0 => type_name(name),
            1 => format!("{}{}", type_name(name), scope.suffix),
            n => format!("{}{}{n}", type_name(name), scope.suffix),
        };
        let mut names: BTreeMap<String, String> = defs
            .iter()
            .map(|(name, ..)| ((*name).clone(), candidate(name, 0)))
            .collect();
        let mapped = |names: &BTreeMap<String, String>, facts: &Facts| -> Vec<String> {
            let name_of = |r: &String| names.get(r).cloned().unwrap_or_default();
            facts.refs.iter().map(name_of).collect()
        };
        // Each round moves a definition whose name is taken by a different type to its next
        // candidate; a candidate no one holds always fits, so the rounds end.
        loop {
            let mut changed = false;
            let mut claimed: HashMap<String, usize> = HashMap::new();
            for (i, (name, _, facts)) in defs.iter().enumerate() {
                loop {
                    let ty = candidate(name, attempt[i]);
                    names.insert((*name).clone(), ty.clone());
                    let free = claimed.get(&ty).is_none_or(|&holder| holder == i);
                    let same = self.entries.get(&ty).is_none_or(|e| {
                        (Rc::ptr_eq(&e.key.text, &facts.text) || e.key.text == facts.text)
                            && e.key.refs == mapped(&names, facts)
                    });
                    if free && same {
                        claimed.insert(ty, i);
                        break;
                    }
                    attempt[i] += 1;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let render = Render { refs: &names };
        for (name, def, facts) in &defs {
            let ty = &names[*name];
            if self.entries.contains_key(ty) {
                continue;
            }
            let key = Key {
                text: facts.text.clone(),
                refs: mapped(&names, facts),
            };
            let declaration = render.named(ty, def);
            self.entries.insert(ty.clone(), Entry { key, declaration });
            self.order.push(ty.clone());
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn defs(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn a_definition_reached_twice_is_declared_once() {
        let own = defs(
            json!({"Ticket": {"type": "object", "properties": {"owner": {"$ref": "#/$defs/User"}}},
            "User": {"type": "string"}, "Unused": {"type": "number"}}),
        );
        let scope = Scope {
            own: Some(&own),
            shared: None,
            suffix: "Output",
        };
        let memo = &mut Memo::default();
        let reached = scope.reached(&json!({"items": {"$ref": "#/$defs/Ticket"}}), memo);
        assert_eq!(reached, ["Ticket", "User"]);
        let mut registry = Registry::default();
        registry.name(scope, &reached, memo);
        registry.name(scope, &reached, memo);
        assert_eq!(registry.all().count(), 2);
    }

    #[test]
    fn a_different_definition_of_the_same_name_gets_the_suffix_and_so_do_its_users() {
        let output = defs(
            json!({"Page": {"type": "object", "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/Ticket"}}}},
            "Ticket": {"type": "object", "properties": {"id": {"type": "integer"}}}}),
        );
        let input = defs(
            json!({"Page": {"type": "object", "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/Ticket"}}}},
            "Ticket": {"type": "object", "properties": {"title": {"type": "string"}}}}),
        );
        let memo = &mut Memo::default();
        let mut registry = Registry::default();
        let out_scope = Scope {
            own: Some(&output),
            shared: None,
            suffix: "Output",
        };
        let in_scope = Scope {
            own: Some(&input),
            shared: None,
            suffix: "Input",
        };
        let root = json!({"$ref": "#/$defs/Page"});
        let out_names = registry.name(out_scope, &out_scope.reached(&root, memo), memo);
        let in_names = registry.name(in_scope, &in_scope.reached(&root, memo), memo);
        assert_eq!(out_names["Page"], "Page");
        assert_eq!(in_names["Ticket"], "TicketInput");
        assert_eq!(in_names["Page"], "PageInput");
        let page_input = registry.declaration("PageInput").unwrap_or_default();
        assert!(page_input.contains("TicketInput[]"), "{page_input}");
    }

    #[test]
    fn recursive_definitions_name_themselves() {
        let own = defs(
            json!({"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}),
        );
        let scope = Scope {
            own: Some(&own),
            shared: None,
            suffix: "Output",
        };
        let memo = &mut Memo::default();
        let mut registry = Registry::default();
        registry.name(
            scope,
            &scope.reached(&json!({"$ref": "#/$defs/Node"}), memo),
            memo,
        );
        let other = defs(
            json!({"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}),
        );
        let scope = Scope {
            own: Some(&other),
            shared: None,
            suffix: "Output",
        };
        let names = registry.name(
            scope,
            &scope.reached(&json!({"$ref": "#/$defs/Node"}), memo),
            memo,
        );
        assert_eq!(names["Node"], "NodeOutput");
        assert_eq!(
            registry.declaration("NodeOutput"),
            Some("interface NodeOutput {\n  next?: NodeOutput;\n}")
        );
    }
}
