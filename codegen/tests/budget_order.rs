//! What a schema budget gives up first: across a sweep of budgets over one checkout-like input
//! schema, examples and defaults go before long enum lists, those before descriptions of nested
//! fields, and those before any field is summarised; required chains stay whole at every
//! budget, and an array of objects keeps its items' keys and types.

use mcpgen_codegen::budget::{Limits, fit};
use mcpgen_codegen::coverage::{Coverage, argument_paths};
use serde_json::{Map, Value, json};

/// The input schema of a checkout: `line_items` (array of objects with nested shapes),
/// `payment_method_types` (a 30-value enum), a required chain five levels deep, and
/// optional nested objects with examples, defaults and descriptions.
fn checkout() -> (Value, Map<String, Value>) {
    let methods: Vec<String> = (0..30).map(|i| format!("method_{i:02}")).collect();
    let mut chain = json!({"type": "string", "description": "The innermost required value."});
    for level in (1..=5).rev() {
        chain = json!({
            "type": "object",
            "description": format!("Required level {level}."),
            "required": [format!("l{level}")],
            "properties": {
                format!("l{level}"): chain,
                format!("opt{level}"): {"type": "object", "description": "Optional.",
                    "properties": {"x": {"type": "object", "properties": {"y": {"type": "string"}}}}}
            }
        });
    }
    let root = json!({
        "type": "object",
        "required": ["mode", "customer"],
        "properties": {
            "mode": {"type": "string", "enum": ["payment", "setup", "subscription"],
                     "description": "The mode of the session."},
            "customer": chain,
            "line_items": {
                "type": "array",
                "description": "A list of items the customer is purchasing.",
                "items": {"$ref": "#/$defs/LineItem"}
            },
            "payment_method_types": {
                "type": "array",
                "description": "Payment method types this session accepts.",
                "items": {"type": "string", "enum": methods}
            },
            "metadata": {
                "type": "object",
                "description": "Set of key-value pairs.",
                "examples": [{"order": "6735"}],
                "properties": {
                    "note": {"type": "string", "default": "none", "examples": ["gift"],
                             "description": "A note shown on the receipt, in the customer's language."},
                    "channel": {"type": "object", "description": "Where the order came from.",
                        "properties": {"name": {"type": "string", "description": "Channel name."},
                                       "region": {"type": "object", "properties": {
                                           "code": {"type": "string", "description": "Region code."}}}}}
                }
            }
        }
    });
    let mut defs = Map::new();
    defs.insert(
        "LineItem".into(),
        json!({
            "type": "object",
            "required": ["price"],
            "properties": {
                "price": {"type": "string", "description": "The ID of the Price object."},
                "quantity": {"type": "integer", "default": 1, "description": "The quantity of the line item being purchased."},
                "price_data": {"type": "object", "description": "Data used to generate a new Price object inline.",
                    "properties": {
                        "currency": {"type": "string", "description": "Three-letter ISO currency code, in lowercase."},
                        "product_data": {"type": "object", "properties": {
                            "name": {"type": "string", "description": "The product's name."},
                            "tax_code": {"type": "string", "description": "A tax code ID."}}}
                    }},
                "adjustable_quantity": {"type": "object", "properties": {
                    "enabled": {"type": "boolean"}, "maximum": {"type": "integer"}}}
            }
        }),
    );
    (root, defs)
}

fn fit_at(budget: usize) -> mcpgen_codegen::budget::Fitted {
    let (root, defs) = checkout();
    fit(
        &root,
        &mut |name| defs.get(name).cloned(),
        Limits {
            budget: Some(budget),
            min_depth: 1,
            max_depth: None,
            describe: true,
            keep_required: true,
        },
    )
}

fn full() -> Value {
    let (root, defs) = checkout();
    let mut shared = std::collections::BTreeMap::new();
    let root = mcpgen_codegen::budget::full(
        &root,
        &mut |name| defs.get(name).cloned(),
        true,
        &mut shared,
    );
    mcpgen_codegen::budget::with_defs(&root, &shared)
}

/// Every object node of `schema` with its depth (properties and items one deeper; `$defs`
/// entries at the depth of the arrays that use them, which is 2 here).
fn nodes(schema: &Value, depth: usize, out: &mut Vec<(usize, Map<String, Value>)>) {
    let Value::Object(map) = schema else { return };
    out.push((depth, map.clone()));
    if let Some(Value::Object(props)) = map.get("properties") {
        for sub in props.values() {
            nodes(sub, depth + 1, out);
        }
    }
    if let Some(items) = map.get("items") {
        nodes(items, depth + 1, out);
    }
    if let Some(Value::Object(defs)) = map.get("$defs") {
        for def in defs.values() {
            nodes(def, 2, out);
        }
    }
}

struct Seen {
    examples_or_defaults: bool,
    long_enum: bool,
    nested_description: bool,
    summarised: bool,
}

fn seen(schema: &Value) -> Seen {
    let mut all = Vec::new();
    nodes(schema, 0, &mut all);
    let omitted = |m: &Map<String, Value>| {
        m.get("description")
            .and_then(Value::as_str)
            .is_some_and(|d| d.contains("(nested fields omitted)"))
    };
    Seen {
        examples_or_defaults: all
            .iter()
            .any(|(_, m)| m.contains_key("examples") || m.contains_key("default")),
        long_enum: all.iter().any(|(_, m)| {
            m.get("enum")
                .and_then(Value::as_array)
                .is_some_and(|e| e.len() > 8)
        }),
        nested_description: all.iter().any(|(d, m)| {
            *d >= 2
                && !omitted(m)
                && m.get("description")
                    .and_then(Value::as_str)
                    .is_some_and(|t| !t.starts_with("Values: "))
        }),
        summarised: all.iter().any(|(_, m)| omitted(m)),
    }
}

fn size(v: &Value) -> usize {
    serde_json::to_vec(v).expect("json").len()
}

#[test]
fn a_budget_gives_up_examples_then_enums_then_nested_descriptions_then_fields() {
    let full = full();
    let full_size = size(&full);
    let mut stages = std::collections::BTreeSet::new();
    for budget in (200..=full_size + 50).step_by(25) {
        let fitted = fit_at(budget);
        let s = seen(&fitted.schema);
        let text = fitted.schema.to_string();
        // Each stage holds only once everything the earlier stages give up is gone.
        if !s.long_enum || !s.nested_description || s.summarised {
            assert!(!s.examples_or_defaults, "{budget}: {text}");
        }
        if !s.nested_description || s.summarised {
            assert!(!s.long_enum, "{budget}: {text}");
        }
        if s.summarised {
            assert!(!s.nested_description, "{budget}: {text}");
        }
        // What fits stays within the budget; only required chains may overflow it.
        if size(&fitted.schema) > budget {
            assert!(
                s.summarised,
                "{budget}: over the budget unsummarised: {text}"
            );
        }
        // A trimmed enum says how many values it left out.
        if text.contains("method_00") && !s.long_enum {
            assert!(text.contains("(22 more)"), "{budget}: {text}");
        }
        assert_eq!(fitted.summarised, fitted.schema != full, "{budget}: {text}");
        stages.insert((
            s.examples_or_defaults,
            s.long_enum,
            s.nested_description,
            s.summarised,
        ));
    }
    // The sweep passes through every stage: untouched, examples gone, enums gone, nested
    // descriptions gone, fields summarised.
    for stage in [
        (true, true, true, false),
        (false, true, true, false),
        (false, false, true, false),
        (false, false, false, false),
        (false, false, false, true),
    ] {
        assert!(stages.contains(&stage), "{stage:?} not reached: {stages:?}");
    }
}

#[test]
fn required_chains_and_the_shape_of_arrays_of_objects_survive_every_budget() {
    let full = full();
    let required: Vec<String> = argument_paths(&full, 8)
        .into_iter()
        .filter_map(|(path, required)| required.then_some(path))
        .collect();
    assert!(
        required.contains(&"customer.l1.l2.l3.l4.l5".to_owned()),
        "{required:?}"
    );
    for budget in (100..=size(&full)).step_by(50) {
        let fitted = fit_at(budget);
        let shown = argument_paths(&fitted.schema, 8);
        for path in &required {
            assert!(
                shown.contains_key(path),
                "{budget}: {path} hidden: {}",
                fitted.schema
            );
        }
        let c = Coverage::of(&fitted.schema, &full, 4);
        assert_eq!(c.required_visible, c.required, "{budget}");
        // The items of `line_items` keep their keys and types, nested ones summarised.
        for path in [
            "line_items[].price",
            "line_items[].quantity",
            "line_items[].price_data",
        ] {
            assert!(
                shown.contains_key(path),
                "{budget}: {path} hidden: {}",
                fitted.schema
            );
        }
        let items = &fitted.schema;
        let text = items.to_string();
        assert!(text.contains(r#""quantity":{"#), "{budget}: {text}");
    }
    // With the smallest budget, the optional nested fields under the chain are summarised.
    let smallest = fit_at(100);
    assert!(!argument_paths(&smallest.schema, 8).contains_key("customer.opt1.x"));
    assert!(argument_paths(&full, 8).contains_key("customer.opt1.x"));
}

#[test]
fn a_schema_that_fits_is_left_as_it_is() {
    let full = full();
    let fitted = fit_at(size(&full));
    assert_eq!(fitted.schema, full);
    assert!(!fitted.summarised && fitted.cuts.is_empty());
    let c = Coverage::of(&fitted.schema, &full, 4);
    assert_eq!((c.visible, c.required_visible), (c.paths, c.required));
}
