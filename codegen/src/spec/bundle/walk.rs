//! Walking: finds every `$ref` that is a reference (not data) and hands it to a callback.

use serde_json::Value;

use super::kind::Kind;
use crate::keywords;

/// Called with the reference text, the kind of object it stands for, and the segments of the
/// reference text itself (`.../$ref`, or a discriminator mapping's value).
pub(super) type OnRef<'a> = dyn FnMut(&mut String, Kind, &[String]) + 'a;

/// How the children under a key are to be walked.
pub(super) enum Slot {
    /// The child is an object of this kind.
    One(Kind),
    /// The child is a map or list of objects of this kind.
    Many(Kind),
    /// The child is data (or not ours): not walked.
    Skip,
}

pub(super) fn walk(value: &mut Value, kind: Kind, path: &mut Vec<String>, on_ref: &mut OnRef<'_>) {
    if kind == Kind::Schema {
        walk_schema(value, path, on_ref);
    } else {
        walk_object(value, kind, path, on_ref);
    }
}

pub(super) fn walk_many(
    value: &mut Value,
    kind: Kind,
    path: &mut Vec<String>,
    on_ref: &mut OnRef<'_>,
) {
    match value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                path.push(key.clone());
                walk(child, kind, path, on_ref);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                path.push(i.to_string());
                walk(child, kind, path, on_ref);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Walks a non-schema OpenAPI object (document, path item, operation, parameter, …).
pub(super) fn walk_object(
    value: &mut Value,
    kind: Kind,
    path: &mut Vec<String>,
    on_ref: &mut OnRef<'_>,
) {
    let map = match value {
        Value::Object(map) => map,
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                path.push(i.to_string());
                walk_object(child, Kind::Other, path, on_ref);
                path.pop();
            }
            return;
        }
        _ => return,
    };
    if let Some(Value::String(reference)) = map.get_mut("$ref") {
        path.push("$ref".into());
        on_ref(reference, kind, path);
        path.pop();
    }
    // Example, link and security scheme objects hold only data below them.
    if matches!(kind, Kind::Example | Kind::Link | Kind::SecurityScheme) {
        return;
    }
    for (key, child) in map.iter_mut() {
        let slot = object_slot(kind, key);
        path.push(key.clone());
        match slot {
            Slot::One(k) => walk(child, k, path, on_ref),
            Slot::Many(k) => walk_many(child, k, path, on_ref),
            Slot::Skip => {}
        }
        path.pop();
    }
}

pub(super) fn object_slot(kind: Kind, key: &str) -> Slot {
    if key == "$ref" || key.starts_with("x-") {
        return Slot::Skip;
    }
    match key {
        "example" | "default" | "enum" | "const" => Slot::Skip,
        "schema" => Slot::One(Kind::Schema),
        "requestBody" => Slot::One(Kind::RequestBody),
        _ => match Kind::of_section(key) {
            Some(k) => Slot::Many(k),
            // A callback maps expressions to path items.
            None if kind == Kind::Callback => Slot::One(Kind::PathItem),
            None => Slot::One(Kind::Other),
        },
    }
}

/// Walks a schema (JSON Schema keywords; annotations and values are data).
pub(super) fn walk_schema(value: &mut Value, path: &mut Vec<String>, on_ref: &mut OnRef<'_>) {
    let map = match value {
        Value::Object(map) => map,
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                path.push(i.to_string());
                walk_schema(child, path, on_ref);
                path.pop();
            }
            return;
        }
        _ => return,
    };
    if let Some(Value::String(reference)) = map.get_mut("$ref") {
        path.push("$ref".into());
        on_ref(reference, Kind::Schema, path);
        path.pop();
    }
    for (key, child) in map.iter_mut() {
        path.push(key.clone());
        let k = key.as_str();
        match k {
            _ if keywords::SUBSCHEMA_MAP.contains(&k) => {
                walk_many(child, Kind::Schema, path, on_ref);
            }
            _ if keywords::SUBSCHEMA.contains(&k) || keywords::SUBSCHEMA_LIST.contains(&k) => {
                walk_schema(child, path, on_ref)
            }
            "discriminator" => walk_discriminator(child, path, on_ref),
            _ => {}
        }
        path.pop();
    }
}

/// `discriminator.mapping` values may be references (`#/components/schemas/Dog`,
/// `dog.yaml`) or plain schema names (`Dog`); only the former are followed.
pub(super) fn walk_discriminator(
    value: &mut Value,
    path: &mut Vec<String>,
    on_ref: &mut OnRef<'_>,
) {
    let Some(Value::Object(mapping)) = value.get_mut("mapping") else {
        return;
    };
    path.push("mapping".into());
    for (key, target) in mapping.iter_mut() {
        if let Value::String(reference) = target
            && looks_like_reference(reference)
        {
            path.push(key.clone());
            on_ref(reference, Kind::Schema, path);
            path.pop();
        }
    }
    path.pop();
}

pub(super) fn looks_like_reference(text: &str) -> bool {
    text.contains('#')
        || text.contains('/')
        || [".json", ".yaml", ".yml"]
            .iter()
            .any(|ext| text.ends_with(ext))
}
