//! The discriminator's values: where a schema with a `discriminator` chooses among `oneOf` or
//! `anyOf` alternatives that each name the property's values (`const` or `enum`), the converted
//! schema gains a constraint that refuses a value no alternative names.
//!
//! The `discriminator` keyword itself is OpenAPI's and is dropped. The constraint is written as
//! `dependentSchemas: {<property>: {properties: {<property>: {enum: [...]}}}}`: it applies only
//! when the property is present (each alternative says whether it is required), generated
//! types ignore it, and a validator's error for it stands at the property's own path, so the
//! message names the property.

use serde_json::{Map, Value, json};

use super::SchemaConverter;

/// How many `$ref`s, `allOf` members and nested alternatives are followed to find one
/// alternative's values; past it the alternative counts as naming no values.
const PROBE_LIMIT: usize = 64;

impl SchemaConverter<'_> {
    /// Adds the discriminator constraint of `schema` (an OpenAPI schema object) to `out` (its
    /// conversion), when `schema` has a discriminator and every `oneOf`/`anyOf` alternative
    /// names the property's values.
    pub(super) fn constrain_discriminator(
        &self,
        schema: &Map<String, Value>,
        out: &mut Map<String, Value>,
    ) {
        let Some(property) = schema
            .get("discriminator")
            .and_then(|d| d.get("propertyName"))
            .and_then(Value::as_str)
        else {
            return;
        };
        let Some(alternatives) = ["oneOf", "anyOf"]
            .iter()
            .find_map(|k| schema.get(*k).and_then(Value::as_array))
        else {
            return;
        };
        let mut budget = PROBE_LIMIT;
        let mut names: Vec<Value> = Vec::new();
        for alternative in alternatives {
            let Some(values) = self.values_of(alternative, property, &mut budget) else {
                return;
            };
            for value in values {
                if !names.contains(&value) {
                    names.push(value);
                }
            }
        }
        if names.is_empty() {
            return;
        }
        let constraint = json!({"properties": {property: {"enum": names}}});
        let dependent = out
            .entry("dependentSchemas")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(dependent) = dependent {
            let combined = match dependent.remove(property) {
                Some(existing) => json!({"allOf": [existing, constraint]}),
                None => constraint,
            };
            dependent.insert(property.to_owned(), combined);
        }
    }

    /// The values of `property` that `schema` accepts, when it names them (`const` or `enum`
    /// on the property, in the schema itself, behind its `$ref`, in an `allOf` member, or in
    /// every one of its own alternatives); `None` when it accepts any value.
    fn values_of(&self, schema: &Value, property: &str, budget: &mut usize) -> Option<Vec<Value>> {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        let schema = schema.as_object()?;
        // Each part that names values narrows the set: they all apply.
        let mut found: Option<Vec<Value>> = None;
        if let Some(values) = schema
            .get("properties")
            .and_then(|p| p.get(property))
            .and_then(|p| self.named_values(p, budget))
        {
            narrow(&mut found, values);
        }
        if let Some(target) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| self.resolve_quiet(r))
            && let Some(values) = self.values_of(target, property, budget)
        {
            narrow(&mut found, values);
        }
        for member in schema
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(values) = self.values_of(member, property, budget) {
                narrow(&mut found, values);
            }
        }
        if found.is_none() {
            for key in ["oneOf", "anyOf"] {
                let Some(nested) = schema.get(key).and_then(Value::as_array) else {
                    continue;
                };
                let mut union = Vec::new();
                for alternative in nested {
                    for value in self.values_of(alternative, property, budget)? {
                        if !union.contains(&value) {
                            union.push(value);
                        }
                    }
                }
                narrow(&mut found, union);
            }
        }
        found
    }

    /// The values a property schema names: its `const`, or its `enum`, behind `$ref`s.
    fn named_values(&self, schema: &Value, budget: &mut usize) -> Option<Vec<Value>> {
        let mut schema = schema;
        while let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            if *budget == 0 {
                return None;
            }
            *budget -= 1;
            schema = self.resolve_quiet(reference)?;
        }
        if let Some(value) = schema.get("const") {
            return Some(vec![value.clone()]);
        }
        schema.get("enum").and_then(Value::as_array).cloned()
    }
}

/// `found` narrowed to `values`: the values both name (`values` when nothing was found yet).
fn narrow(found: &mut Option<Vec<Value>>, values: Vec<Value>) {
    *found = Some(match found.take() {
        Some(known) => known.into_iter().filter(|v| values.contains(v)).collect(),
        None => values,
    });
}
