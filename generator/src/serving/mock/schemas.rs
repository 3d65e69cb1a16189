//! The spec's schemas as the mock uses them: converted to JSON Schema 2020-12 by the engine,
//! with their `$defs` at the root, and compiled into validators.

use std::path::Path;

use jsonschema::Validator;
use mcpgen_codegen::schema::{Direction, SchemaConverter};
use mcpgen_codegen::spec::escape_pointer_segment;
use serde_json::{Map, Value, json};

/// A converted schema holding its `$defs`, and its validator when it compiles.
pub(crate) struct Checked {
    /// The schema, `$defs` at its root (what `$ref`s in it point into).
    pub(crate) schema: Value,
    /// `None` when the schema does not compile (the mock then accepts any value).
    pub(crate) validator: Option<Validator>,
}

/// Converts `schema` (found at `pointer` in `root`, the spec read from `file`) for `direction`
/// and compiles it; a schema that does not compile is reported in `warnings`.
pub(crate) fn convert(
    root: &Value,
    file: &Path,
    direction: Direction,
    schema: &Value,
    pointer: &str,
    warnings: &mut Vec<String>,
) -> Checked {
    let mut converter = SchemaConverter::new(root, file, direction);
    let converted = converter.convert(schema, pointer);
    let (defs, _) = converter.finish();
    let mut whole = match converted {
        Value::Object(map) => map,
        other => {
            let mut map = Map::new();
            map.insert("allOf".into(), json!([other]));
            map
        }
    };
    if !defs.is_empty() {
        whole.insert("$defs".into(), json!(defs));
    }
    let schema = Value::Object(whole);
    let validator = match jsonschema::draft202012::new(&schema) {
        Ok(validator) => Some(validator),
        Err(e) => {
            warnings.push(format!(
                "{}: the schema at `{pointer}` does not compile ({e}); values are not checked \
                 against it",
                file.display()
            ));
            None
        }
    };
    Checked { schema, validator }
}

/// The JSON types `schema` allows (`$ref`s into `$defs` of `root` followed, the alternatives of
/// `anyOf`/`oneOf`/`allOf` joined); empty when it does not say.
pub(crate) fn types_of<'a>(schema: &'a Value, root: &'a Value) -> Vec<&'a str> {
    let mut out = Vec::new();
    collect_types(schema, root, &mut out, 0);
    out
}

fn collect_types<'a>(schema: &'a Value, root: &'a Value, out: &mut Vec<&'a str>, depth: usize) {
    if depth > 16 {
        return;
    }
    match schema.get("type") {
        Some(Value::String(t)) => out.push(t),
        Some(Value::Array(ts)) => out.extend(ts.iter().filter_map(Value::as_str)),
        _ => {}
    }
    if let Some(target) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|p| root.pointer(p))
    {
        collect_types(target, root, out, depth + 1);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for member in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            collect_types(member, root, out, depth + 1);
        }
    }
}

/// The schema of `schema`'s items (`$ref`s followed), `{}` when it has none.
pub(crate) fn items_of<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    static ANY: Value = Value::Bool(true);
    let mut current = schema;
    for _ in 0..16 {
        if let Some(items) = current.get("items") {
            return items;
        }
        match current
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|p| root.pointer(p))
        {
            Some(target) => current = target,
            None => break,
        }
    }
    &ANY
}

/// The schema of property `name` in `schema` (`$ref`s into `root` followed, `allOf` members
/// searched), if it names one.
pub(crate) fn property_of<'a>(schema: &'a Value, root: &'a Value, name: &str) -> Option<&'a Value> {
    find_property(schema, root, name, 0)
}

fn find_property<'a>(
    schema: &'a Value,
    root: &'a Value,
    name: &str,
    depth: usize,
) -> Option<&'a Value> {
    if depth > 16 {
        return None;
    }
    if let Some(found) = schema.get("properties").and_then(|p| p.get(name)) {
        return Some(found);
    }
    if let Some(target) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|p| root.pointer(p))
        && let Some(found) = find_property(target, root, name, depth + 1)
    {
        return Some(found);
    }
    schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find_map(|member| find_property(member, root, name, depth + 1))
}

/// The first problem `validator` finds in `value`: the JSON pointer of the offending part (a
/// missing property's own pointer for `required`) and what is wrong.
pub(crate) fn first_problem(validator: &Validator, value: &Value) -> Option<(String, String)> {
    let error = validator.iter_errors(value).next()?;
    let path = error.instance_path().as_str().to_owned();
    if let jsonschema::error::ValidationErrorKind::Required { property } = error.kind() {
        let name = property
            .as_str()
            .map_or_else(|| property.to_string(), str::to_owned);
        return Some((
            format!("{path}/{}", escape_pointer_segment(&name)),
            format!("`{name}` is required and missing"),
        ));
    }
    let mut message = error.to_string();
    if message.chars().count() > 300 {
        message = message.chars().take(300).collect::<String>() + "…";
    }
    Some((path, message))
}
