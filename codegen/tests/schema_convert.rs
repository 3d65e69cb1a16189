//! OpenAPI schema → JSON Schema 2020-12 conversion (`mcpgen_codegen::schema`).

use std::collections::BTreeMap;
use std::path::Path;

use mcpgen_codegen::Warning;
use mcpgen_codegen::schema::{Direction, SchemaConverter, def_name_for_pointer};
use serde_json::{Value, json};

/// Every converted schema and every `$defs` entry must be valid 2020-12, and the whole (schema
/// plus `$defs`) must compile, which proves that every `$ref` resolves.
fn assert_valid(schema: &Value, defs: &BTreeMap<String, Value>) {
    if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
        panic!("not a valid 2020-12 schema ({e}): {schema:#}");
    }
    for (name, def) in defs {
        if let Err(e) = jsonschema::draft202012::meta::validate(def) {
            panic!("$defs/{name} is not a valid 2020-12 schema ({e}): {def:#}");
        }
    }
    let whole = json!({ "$defs": defs, "allOf": [schema] });
    if let Err(e) = jsonschema::draft202012::new(&whole) {
        panic!("does not compile ({e}): {whole:#}");
    }
}

struct Converted {
    schema: Value,
    defs: BTreeMap<String, Value>,
    warnings: Vec<Warning>,
}

fn convert_at(doc: &Value, direction: Direction, schema: &Value, pointer: &str) -> Converted {
    let mut conv = SchemaConverter::new(doc, Path::new("api.yaml"), direction);
    let schema = conv.convert(schema, pointer);
    let (defs, warnings) = conv.finish();
    assert_valid(&schema, &defs);
    Converted {
        schema,
        defs,
        warnings,
    }
}

fn convert(doc: &Value, direction: Direction, schema: Value) -> Converted {
    convert_at(doc, direction, &schema, "/test/schema")
}

fn doc30(schemas: Value) -> Value {
    json!({ "openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {},
            "components": { "schemas": schemas } })
}

fn doc31(schemas: Value) -> Value {
    json!({ "openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {},
            "components": { "schemas": schemas } })
}

fn messages(warnings: &[Warning]) -> String {
    warnings
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

// ----- nullable -----------------------------------------------------------------------------------

#[test]
fn nullable_with_type_becomes_type_array() {
    let doc = doc30(json!({}));
    let c = convert(
        &doc,
        Direction::Input,
        json!({"type": "string", "nullable": true}),
    );
    assert_eq!(c.schema, json!({"type": ["string", "null"]}));
    assert!(c.warnings.is_empty());
}

#[test]
fn nullable_enum_gets_null_in_the_list() {
    let doc = doc30(json!({}));
    let c = convert(
        &doc,
        Direction::Input,
        json!({"type": "string", "enum": ["a", "b"], "nullable": true}),
    );
    assert_eq!(
        c.schema,
        json!({"type": ["string", "null"], "enum": ["a", "b", null]})
    );
    let c = convert(
        &doc,
        Direction::Input,
        json!({"enum": ["a", null], "nullable": true}),
    );
    assert_eq!(c.schema, json!({"enum": ["a", null]}));
}

#[test]
fn nullable_ref_becomes_any_of_null() {
    let doc = doc30(json!({"Pet": {"type": "object", "properties": {"name": {"type": "string"}}}}));
    let c = convert(
        &doc,
        Direction::Input,
        json!({"$ref": "#/components/schemas/Pet", "nullable": true, "description": "ignored in 3.0"}),
    );
    assert_eq!(
        c.schema,
        json!({"anyOf": [{"$ref": "#/$defs/Pet"}, {"type": "null"}]})
    );
    assert!(c.defs.contains_key("Pet"));
}

#[test]
fn nullable_all_of_keeps_annotations_outside() {
    let doc = doc30(json!({"Pet": {"type": "object"}}));
    let c = convert(
        &doc,
        Direction::Input,
        json!({"allOf": [{"$ref": "#/components/schemas/Pet"}], "nullable": true,
               "description": "the pet", "type": "object"}),
    );
    assert_eq!(
        c.schema,
        json!({"description": "the pet",
               "anyOf": [{"allOf": [{"$ref": "#/$defs/Pet"}], "type": "object"}, {"type": "null"}]})
    );
}

#[test]
fn nullable_one_of_and_31_type_arrays() {
    let doc = doc31(json!({}));
    let c = convert(
        &doc,
        Direction::Input,
        json!({"oneOf": [{"type": "string"}, {"type": "integer"}], "nullable": true}),
    );
    assert_eq!(
        c.schema,
        json!({"anyOf": [{"oneOf": [{"type": "string"}, {"type": "integer"}]}, {"type": "null"}]})
    );
    // A 3.1 document wrongly using `nullable` with a type array.
    let c = convert(
        &doc,
        Direction::Input,
        json!({"type": ["integer"], "nullable": true}),
    );
    assert_eq!(c.schema, json!({"type": ["integer", "null"]}));
    let c = convert(
        &doc,
        Direction::Input,
        json!({"type": ["integer", "null"], "nullable": true}),
    );
    assert_eq!(c.schema, json!({"type": ["integer", "null"]}));
    let c = convert(
        &doc,
        Direction::Input,
        json!({"type": "integer", "nullable": false}),
    );
    assert_eq!(c.schema, json!({"type": "integer"}));
}

// ----- 3.1 pass-through ---------------------------------------------------------------------------

#[test]
fn openapi_31_keywords_pass_through() {
    let doc = doc31(json!({"Tag": {"type": "string"}}));
    let schema = json!({
        "type": ["object", "null"],
        "properties": {
            "kind": {"const": "x"},
            "tuple": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}],
                      "items": false},
            "blob": {"type": "string", "contentEncoding": "base64",
                     "contentMediaType": "image/png"},
            "when": {"type": "string", "format": "date-time", "examples": ["2024-01-01T00:00:00Z"]},
            "tag": {"$ref": "#/components/schemas/Tag", "description": "kept in 3.1"},
        },
        "dependentRequired": {"a": ["b"]},
        "if": {"properties": {"kind": {"const": "x"}}},
        "then": {"required": ["tuple"]},
        "else": true,
        "unevaluatedProperties": false,
    });
    let c = convert(&doc, Direction::Input, schema.clone());
    let mut expected = schema;
    expected["properties"]["tag"] = json!({"$ref": "#/$defs/Tag", "description": "kept in 3.1"});
    assert_eq!(c.schema, expected);
    assert_eq!(c.defs["Tag"], json!({"type": "string"}));
    assert!(c.warnings.is_empty(), "{}", messages(&c.warnings));
}

#[test]
fn ref_siblings_are_ignored_in_30() {
    let doc = doc30(json!({"Tag": {"type": "string"}}));
    let c = convert(
        &doc,
        Direction::Input,
        json!({"$ref": "#/components/schemas/Tag", "description": "dropped", "maxLength": 3}),
    );
    assert_eq!(c.schema, json!({"$ref": "#/$defs/Tag"}));
}

#[test]
fn schema_local_defs_are_hoisted() {
    let doc = doc31(json!({
        "Outer": {
            "type": "object",
            "$defs": {"Inner": {"type": "integer", "minimum": 1}},
            "properties": {
                "a": {"$ref": "#/components/schemas/Outer/$defs/Inner"},
                // Relative to the enclosing schema, as a standalone JSON Schema would write it.
                "b": {"$ref": "#/$defs/Inner"},
            }
        }
    }));
    let c = convert(
        &doc,
        Direction::Input,
        json!({"$ref": "#/components/schemas/Outer"}),
    );
    let inner = def_name_for_pointer("#/components/schemas/Outer/$defs/Inner");
    assert!(
        inner.starts_with("ref__components_schemas_Outer_defs_Inner-"),
        "{inner}"
    );
    assert_eq!(c.defs[&inner], json!({"type": "integer", "minimum": 1}));
    let outer = &c.defs["Outer"];
    assert!(outer.get("$defs").is_none());
    let r = json!(format!("#/$defs/{inner}"));
    assert_eq!(outer["properties"]["a"]["$ref"], r);
    assert_eq!(outer["properties"]["b"]["$ref"], r);
    assert_eq!(c.defs.len(), 2, "{:#?}", c.defs);
    assert!(c.warnings.is_empty(), "{}", messages(&c.warnings));
}

// ----- readOnly / writeOnly -----------------------------------------------------------------------

fn user_doc() -> Value {
    doc30(json!({
        "Id": {"type": "string", "readOnly": true},
        "User": {
            "type": "object",
            "required": ["id", "name", "password", "created"],
            "properties": {
                "id": {"$ref": "#/components/schemas/Id"},
                "name": {"type": "string"},
                "password": {"type": "string", "writeOnly": true},
                "created": {"type": "string", "format": "date-time", "readOnly": true},
                "friends": {"type": "array", "items": {
                    "type": "object",
                    "required": ["since", "secret"],
                    "properties": {
                        "since": {"type": "string", "readOnly": true},
                        "secret": {"type": "string", "writeOnly": true}
                    }
                }}
            }
        }
    }))
}

#[test]
fn read_only_properties_leave_inputs() {
    let doc = user_doc();
    let c = convert(
        &doc,
        Direction::Input,
        json!({"$ref": "#/components/schemas/User"}),
    );
    let user = &c.defs["User"];
    let props = user["properties"].as_object().unwrap();
    assert_eq!(
        props.keys().collect::<Vec<_>>(),
        ["name", "password", "friends"]
    );
    assert_eq!(user["required"], json!(["name", "password"]));
    assert_eq!(props["password"]["writeOnly"], json!(true));
    let friend = &props["friends"]["items"];
    assert_eq!(friend["required"], json!(["secret"]));
    assert!(friend["properties"].get("since").is_none());
}

#[test]
fn write_only_properties_leave_outputs() {
    let doc = user_doc();
    let c = convert(
        &doc,
        Direction::Output,
        json!({"$ref": "#/components/schemas/User"}),
    );
    let user = &c.defs["User"];
    let props = user["properties"].as_object().unwrap();
    assert_eq!(
        props.keys().collect::<Vec<_>>(),
        ["id", "name", "created", "friends"]
    );
    assert_eq!(user["required"], json!(["id", "name", "created"]));
    assert_eq!(props["created"]["readOnly"], json!(true));
    let friend = &props["friends"]["items"];
    assert_eq!(friend["required"], json!(["since"]));
    assert!(friend["properties"].get("secret").is_none());
}

#[test]
fn all_of_siblings_do_not_require_hidden_properties() {
    let doc = doc30(json!({
        "Base": {"type": "object", "properties": {
            "id": {"type": "integer", "readOnly": true},
            "name": {"type": "string"}
        }}
    }));
    let c = convert(
        &doc,
        Direction::Input,
        json!({"allOf": [{"$ref": "#/components/schemas/Base"}, {"required": ["id", "name"]}]}),
    );
    assert_eq!(
        c.schema,
        json!({"allOf": [{"$ref": "#/$defs/Base"}, {"required": ["name"]}]})
    );
    assert!(c.defs["Base"]["properties"].get("id").is_none());
}

// ----- references ---------------------------------------------------------------------------------

#[test]
fn recursive_schema_terminates() {
    let doc = doc30(json!({
        "Node": {"type": "object", "properties": {
            "value": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}
        }}
    }));
    let c = convert(
        &doc,
        Direction::Output,
        json!({"$ref": "#/components/schemas/Node"}),
    );
    assert_eq!(c.schema, json!({"$ref": "#/$defs/Node"}));
    assert_eq!(
        c.defs["Node"]["properties"]["children"]["items"],
        json!({"$ref": "#/$defs/Node"})
    );
    assert_eq!(c.defs.len(), 1);
    let validator =
        jsonschema::draft202012::new(&json!({"$defs": c.defs, "$ref": "#/$defs/Node"})).unwrap();
    assert!(
        validator.is_valid(&json!({"value": "a", "children": [{"value": "b", "children": []}]}))
    );
    assert!(!validator.is_valid(&json!({"children": [{"value": 1}]})));
}

#[test]
fn mutual_recursion_terminates() {
    let doc = doc30(json!({
        "A": {"type": "object", "properties": {"b": {"$ref": "#/components/schemas/B"}}},
        "B": {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/A"}}}
    }));
    let c = convert(
        &doc,
        Direction::Input,
        json!({"$ref": "#/components/schemas/A"}),
    );
    assert_eq!(c.defs["A"]["properties"]["b"], json!({"$ref": "#/$defs/B"}));
    assert_eq!(c.defs["B"]["properties"]["a"], json!({"$ref": "#/$defs/A"}));
    assert_eq!(c.defs.len(), 2);
}

#[test]
fn pure_reference_cycles_are_reported() {
    let doc = doc30(json!({
        "A": {"$ref": "#/components/schemas/B"},
        "B": {"$ref": "#/components/schemas/A"},
        "C": {"$ref": "#/components/schemas/C"}
    }));
    let c = convert(
        &doc,
        Direction::Input,
        json!({"$ref": "#/components/schemas/A"}),
    );
    assert_eq!(c.schema, json!({}));
    assert!(
        messages(&c.warnings).contains("cycle"),
        "{}",
        messages(&c.warnings)
    );
    let c = convert(
        &doc,
        Direction::Input,
        json!({"$ref": "#/components/schemas/C"}),
    );
    assert_eq!(c.schema, json!({}));
    assert_eq!(c.warnings.len(), 1);
}

#[test]
fn dangling_and_non_schema_refs_warn() {
    let doc = json!({
        "openapi": "3.0.3",
        "paths": {},
        "components": {
            "schemas": {"Ok": {"type": "string"}},
            "parameters": {"P": {"name": "p", "in": "query", "schema": {"type": "integer"}}}
        }
    });
    let c = convert_at(
        &doc,
        Direction::Input,
        &json!({"type": "object", "properties": {
            "a": {"$ref": "#/components/schemas/Missing"},
            "b": {"$ref": "#/components/parameters/P"},
            "c": {"$ref": "#/components/parameters/P/schema"},
            "d": {"$ref": "other.yaml#/X"},
            "e": {"$ref": 5}
        }}),
        "/paths/~1x/get/requestBody/content/application~1json/schema",
    );
    let props = &c.schema["properties"];
    assert_eq!(props["a"], json!({}));
    assert_eq!(props["b"], json!({}));
    let c_name = def_name_for_pointer("#/components/parameters/P/schema");
    assert_eq!(props["c"], json!({"$ref": format!("#/$defs/{c_name}")}));
    assert_eq!(c.defs[&c_name], json!({"type": "integer"}));
    assert_eq!(props["d"], json!({}));
    assert_eq!(props["e"], json!({}));
    assert_eq!(c.warnings.len(), 4, "{}", messages(&c.warnings));
    let w = &c.warnings[0];
    assert_eq!(
        w.location,
        "api.yaml at `/paths/~1x/get/requestBody/content/application~1json/schema/properties/a/$ref`"
    );
    assert!(w.message.contains("#/components/schemas/Missing"), "{w}");
    assert!(w.message.contains("does not resolve"), "{w}");
    assert!(
        c.warnings[1].message.contains("not a schema"),
        "{}",
        c.warnings[1]
    );
    assert!(
        c.warnings[2].message.contains("not a local"),
        "{}",
        c.warnings[2]
    );
}

#[test]
fn def_names_are_pure_and_distinct() {
    assert_eq!(def_name_for_pointer("#/components/schemas/Pet"), "Pet");
    assert_eq!(
        def_name_for_pointer("#/components/schemas/a.b-c_d"),
        "a.b-c_d"
    );
    // Percent-encoded and plain spellings of one pointer name one schema.
    assert_eq!(
        def_name_for_pointer("#/components/schemas/Page%C2%ABUser%C2%BB"),
        def_name_for_pointer("#/components/schemas/Page«User»")
    );
    let lossy = def_name_for_pointer("#/components/schemas/Page«User»");
    assert!(lossy.starts_with("Page_User_-"), "{lossy}");
    assert_ne!(
        lossy,
        def_name_for_pointer("#/components/schemas/Page_User_")
    );
    assert_ne!(
        def_name_for_pointer("#/components/schemas/a b"),
        def_name_for_pointer("#/components/schemas/a/b")
    );
    let inline =
        def_name_for_pointer("#/paths/~1a/get/responses/200/content/application~1json/schema");
    assert!(
        inline.starts_with("ref__paths_a_get_responses_200_content_application_json_schema-"),
        "{inline}"
    );
    let prop = def_name_for_pointer("#/components/schemas/X/properties/y");
    assert!(
        prop.starts_with("ref__components_schemas_X_properties_y-"),
        "{prop}"
    );
    // A component whose name looks like a generated one is told apart.
    let tricky = def_name_for_pointer("#/components/schemas/ref__x");
    assert!(tricky.starts_with("ref__x-"), "{tricky}");
    for name in [&lossy, &inline, &prop, &tricky] {
        assert!(
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c)),
            "{name}"
        );
    }
    let long = def_name_for_pointer(&format!("#/components/schemas/{}", "x".repeat(300)));
    assert!(long.len() < 120, "{long}");
}

#[test]
fn def_names_agree_across_converters() {
    let doc = doc30(json!({
        "Pet": {"type": "object", "properties": {"owner": {"$ref": "#/components/schemas/Owner"}}},
        "Owner": {"type": "object", "properties": {"name": {"type": "string"}}}
    }));
    let a = convert(
        &doc,
        Direction::Input,
        json!({"$ref": "#/components/schemas/Pet"}),
    );
    let b = convert(
        &doc,
        Direction::Output,
        json!({"$ref": "#/components/schemas/Owner"}),
    );
    assert_eq!(b.schema, json!({"$ref": "#/$defs/Owner"}));
    assert_eq!(a.defs["Pet"]["properties"]["owner"], b.schema);
}

#[test]
fn refs_into_inline_schemas_get_prefixed_names() {
    let doc = json!({
        "openapi": "3.0.0",
        "paths": {"/a": {"get": {"responses": {"200": {"content": {"application/json": {
            "schema": {"type": "object", "properties": {"n": {"type": "integer"}}}
        }}}}}}},
        "components": {"schemas": {
            "X": {"type": "object", "properties": {"y": {"type": "boolean"}}}
        }}
    });
    let c = convert(
        &doc,
        Direction::Output,
        json!({"type": "object", "properties": {
            "r": {"$ref": "#/paths/~1a/get/responses/200/content/application~1json/schema"},
            "y": {"$ref": "#/components/schemas/X/properties/y"}
        }}),
    );
    let r = def_name_for_pointer("#/paths/~1a/get/responses/200/content/application~1json/schema");
    let y = def_name_for_pointer("#/components/schemas/X/properties/y");
    assert_eq!(
        c.schema["properties"]["r"],
        json!({"$ref": format!("#/$defs/{r}")})
    );
    assert_eq!(c.defs[&y], json!({"type": "boolean"}));
    assert!(c.warnings.is_empty(), "{}", messages(&c.warnings));
}

#[test]
fn discriminated_one_of_keeps_one_of_and_mapped_schemas() {
    let doc = doc30(json!({
        "Pet": {
            "oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}],
            "discriminator": {"propertyName": "petType", "mapping": {
                "cat": "#/components/schemas/Cat",
                "dog": "Dog",
                "lizard": "#/components/schemas/Lizard"
            }}
        },
        "Cat": {"type": "object", "properties": {"petType": {"type": "string"}, "meows": {"type": "boolean"}}},
        "Dog": {"type": "object", "properties": {"petType": {"type": "string"}, "barks": {"type": "boolean"}}},
        "Lizard": {"type": "object", "properties": {"petType": {"type": "string"}}}
    }));
    let c = convert(
        &doc,
        Direction::Output,
        json!({"$ref": "#/components/schemas/Pet"}),
    );
    assert_eq!(
        c.defs["Pet"],
        json!({"oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]})
    );
    for name in ["Cat", "Dog", "Lizard"] {
        assert!(c.defs.contains_key(name), "{name} missing");
    }
    assert!(c.warnings.is_empty(), "{}", messages(&c.warnings));
}

/// Where every alternative names the discriminator property's values, a value none names is
/// refused, the error standing at the property.
#[test]
fn a_discriminator_whose_alternatives_name_their_values_refuses_others() {
    let doc = doc30(json!({
        "Pet": {
            "oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}],
            "discriminator": {"propertyName": "petType"}
        },
        "Cat": {"type": "object", "required": ["petType"],
                "properties": {"petType": {"const": "cat"}, "meows": {"type": "boolean"}}},
        "Dog": {"allOf": [
            {"$ref": "#/components/schemas/Base"},
            {"type": "object", "properties": {"barks": {"type": "boolean"}}}
        ]},
        "Base": {"type": "object", "properties": {"petType": {"$ref": "#/components/schemas/DogKind"}}},
        "DogKind": {"type": "string", "enum": ["dog", "puppy"]},
        "Loose": {
            "oneOf": [{"$ref": "#/components/schemas/Cat"}, {"type": "object"}],
            "discriminator": {"propertyName": "petType"}
        }
    }));
    let c = convert(
        &doc,
        Direction::Input,
        json!({"type": "object", "properties": {
            "pet": {"$ref": "#/components/schemas/Pet"},
            "loose": {"$ref": "#/components/schemas/Loose"}
        }}),
    );
    assert_eq!(
        c.defs["Pet"]["dependentSchemas"],
        json!({"petType": {"properties": {"petType": {"enum": ["cat", "dog", "puppy"]}}}})
    );
    // An alternative that names no values accepts any: nothing is added.
    assert!(
        c.defs["Loose"].get("dependentSchemas").is_none(),
        "{}",
        c.defs["Loose"]
    );

    let mut schema = c.schema.clone();
    schema["$defs"] = json!(c.defs);
    let validator = jsonschema::validator_for(&schema).expect("compiles");
    assert!(validator.is_valid(&json!({"pet": {"petType": "puppy"}})));
    let errors: Vec<String> = validator
        .iter_errors(&json!({"pet": {"petType": "parrot"}}))
        .map(|e| format!("{}: {e}", e.instance_path().as_str()))
        .collect();
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("/pet/petType:") && e.contains("parrot")),
        "{errors:?}"
    );
}

// ----- keyword rewrites ---------------------------------------------------------------------------

#[test]
fn exclusive_bounds_become_numbers() {
    let doc = doc30(json!({}));
    let c = convert(
        &doc,
        Direction::Input,
        json!({"type": "number", "minimum": 0, "exclusiveMinimum": true,
               "exclusiveMaximum": true, "maximum": 10.5}),
    );
    assert_eq!(
        c.schema,
        json!({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 10.5})
    );
    let c = convert(
        &doc,
        Direction::Input,
        json!({"type": "integer", "minimum": 1, "exclusiveMinimum": false, "maximum": 9,
               "exclusiveMaximum": false}),
    );
    assert_eq!(
        c.schema,
        json!({"type": "integer", "minimum": 1, "maximum": 9})
    );
    // 3.1 numeric form is kept.
    let c = convert(
        &doc31(json!({})),
        Direction::Input,
        json!({"exclusiveMinimum": 3}),
    );
    assert_eq!(c.schema, json!({"exclusiveMinimum": 3}));
}

#[test]
fn example_becomes_examples() {
    let doc = doc30(json!({}));
    let c = convert(
        &doc,
        Direction::Input,
        json!({"type": "string", "example": "hi"}),
    );
    assert_eq!(c.schema, json!({"type": "string", "examples": ["hi"]}));
    let c = convert(
        &doc,
        Direction::Input,
        json!({"type": "string", "example": "hi", "examples": ["a", "b"]}),
    );
    assert_eq!(c.schema, json!({"type": "string", "examples": ["a", "b"]}));
}

#[test]
fn openapi_only_keywords_are_dropped() {
    let doc = doc30(json!({}));
    let c = convert(
        &doc,
        Direction::Output,
        json!({"type": "object", "xml": {"name": "x"}, "externalDocs": {"url": "https://x"},
               "x-internal": true, "deprecated": true, "title": "T",
               "properties": {"n": {"type": "integer", "format": "int64", "x-go-name": "N"}}}),
    );
    assert_eq!(
        c.schema,
        json!({"type": "object", "deprecated": true, "title": "T",
               "properties": {"n": {"type": "integer", "format": "int64"}}})
    );
}

#[test]
fn swagger_file_type_becomes_binary_string() {
    let doc = doc30(json!({}));
    let c = convert(
        &doc,
        Direction::Input,
        json!({"type": "file", "description": "upload"}),
    );
    assert_eq!(
        c.schema,
        json!({"type": "string", "description": "upload", "format": "binary"})
    );
}

#[test]
fn boolean_and_non_schema_values() {
    let doc = doc30(json!({}));
    assert_eq!(
        convert(&doc, Direction::Input, json!(true)).schema,
        json!(true)
    );
    assert_eq!(
        convert(&doc, Direction::Input, json!(false)).schema,
        json!(false)
    );
    let c = convert(&doc, Direction::Input, json!("string"));
    assert_eq!(c.schema, json!({}));
    assert_eq!(c.warnings.len(), 1);
    assert_eq!(c.warnings[0].location, "api.yaml at `/test/schema`");
    let c = convert(
        &doc,
        Direction::Input,
        json!({"type": "object", "properties": {"a": 5, "b": null}}),
    );
    assert_eq!(
        c.schema,
        json!({"type": "object", "properties": {"a": {}, "b": {}}})
    );
    assert_eq!(c.warnings.len(), 2);
}

#[test]
fn depth_is_guarded() {
    let doc = doc30(json!({}));
    let mut schema = json!({"type": "string"});
    for _ in 0..500 {
        schema = json!({"type": "object", "properties": {"next": schema}});
    }
    let c = convert(&doc, Direction::Input, schema);
    assert_eq!(c.warnings.len(), 1, "{}", messages(&c.warnings));
    assert!(c.warnings[0].message.contains("deeper than 64"));
    let mut depth = 0;
    let mut cur = &c.schema;
    while let Some(next) = cur.get("properties").and_then(|p| p.get("next")) {
        depth += 1;
        cur = next;
    }
    assert_eq!(depth, 64);
    assert_eq!(cur, &json!({}));

    let mut schema = json!({"type": "string"});
    for i in 0..500 {
        schema = if i % 2 == 0 {
            json!({"allOf": [schema]})
        } else {
            json!({"items": schema, "nullable": true})
        };
    }
    let c = convert(&doc, Direction::Output, schema);
    assert_eq!(c.warnings.len(), 1);
}

#[test]
fn long_reference_chains_do_not_recurse() {
    let mut schemas = serde_json::Map::new();
    for i in 0..5000 {
        schemas.insert(
            format!("S{i}"),
            json!({"type": "object", "properties": {"next": {"$ref": format!("#/components/schemas/S{}", i + 1)}}}),
        );
    }
    schemas.insert("S5000".into(), json!({"type": "string"}));
    let doc = doc30(Value::Object(schemas));
    let mut conv = SchemaConverter::new(&doc, Path::new("api.yaml"), Direction::Input);
    let schema = conv.convert(&json!({"$ref": "#/components/schemas/S0"}), "/x");
    let (defs, warnings) = conv.finish();
    assert_eq!(schema, json!({"$ref": "#/$defs/S0"}));
    assert_eq!(defs.len(), 5001);
    assert!(warnings.is_empty());
}

#[test]
fn malformed_keywords_are_repaired_or_dropped() {
    let doc = json!({
        "openapi": "3.0.1",
        "paths": {},
        "definitions": {"Legacy": {"type": "integer"}},
        "components": {"schemas": {}}
    });
    let c = convert(
        &doc,
        Direction::Input,
        json!({
            "type": "object",
            "$id": "https://example.com/x",
            "$schema": "http://json-schema.org/draft-04/schema#",
            "required": ["a", "a", 5],
            "properties": {
                "a": {"type": "string", "required": true, "minLength": "2", "maxLength": 5.0,
                      "pattern": 7},
                "b": {"type": "int", "minimum": "1.5", "maximum": "big"},
                "c": {"type": ["string", "weird", "string"], "enum": "x"},
                "d": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}],
                      "additionalItems": false, "minItems": -1, "uniqueItems": "yes"},
                "e": {"dependencies": {"x": ["y", "y"], "z": {"required": ["w"]}}},
                "f": {"examples": {"one": {"value": 1}}, "example": 1, "multipleOf": 0},
                "g": {"$ref": "#/definitions/Legacy"},
                "h": {"allOf": [], "oneOf": "no", "properties": []},
                "i": {"type": "object", "additionalProperties": {"type": "string", "nullable": true}},
                "j": {"discriminator": {"propertyName": "t", "mapping": {"a": "#/nope"}}},
                "k": {"nullable": "yes", "title": 3, "readOnly": "no"}
            }
        }),
    );
    let p = &c.schema["properties"];
    assert!(c.schema.get("$id").is_none() && c.schema.get("$schema").is_none());
    assert_eq!(c.schema["required"], json!(["a"]));
    assert_eq!(
        p["a"],
        json!({"type": "string", "minLength": 2, "maxLength": 5})
    );
    assert_eq!(p["b"], json!({"minimum": 1.5}));
    assert_eq!(p["c"], json!({"type": ["string"]}));
    assert_eq!(
        p["d"],
        json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}],
               "items": false})
    );
    assert_eq!(
        p["e"],
        json!({"dependentRequired": {"x": ["y"]}, "dependentSchemas": {"z": {"required": ["w"]}}})
    );
    assert_eq!(p["f"], json!({"examples": [1]}));
    let legacy = def_name_for_pointer("#/definitions/Legacy");
    assert!(legacy.starts_with("ref__definitions_Legacy-"), "{legacy}");
    assert_eq!(p["g"], json!({"$ref": format!("#/$defs/{legacy}")}));
    assert_eq!(c.defs[&legacy], json!({"type": "integer"}));
    assert_eq!(p["h"], json!({}));
    assert_eq!(
        p["i"],
        json!({"type": "object", "additionalProperties": {"type": ["string", "null"]}})
    );
    assert!(!c.warnings.is_empty());
    let all = messages(&c.warnings);
    for needle in [
        "unknown type `int`",
        "`maximum`",
        "`pattern`",
        "`enum`",
        "`minItems`",
        "#/nope",
    ] {
        assert!(all.contains(needle), "missing {needle} in\n{all}");
    }
}

#[test]
fn wide_range_of_inputs_is_valid_2020_12() {
    let doc = doc30(json!({
        "Pet": {"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string", "example": "Rex"},
            "tag": {"type": "string", "nullable": true},
            "owner": {"$ref": "#/components/schemas/Owner"}
        }},
        "Owner": {"type": "object", "nullable": true, "properties": {
            "pets": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}}
        }},
        "Map": {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/Pet"}}
    }));
    let inputs = [
        json!({}),
        json!({"type": "string", "format": "date-time"}),
        json!({"type": "integer", "format": "int32", "minimum": 0, "exclusiveMinimum": true}),
        json!({"type": "array", "items": {"$ref": "#/components/schemas/Pet"}, "nullable": true}),
        json!({"$ref": "#/components/schemas/Map"}),
        json!({"anyOf": [{"$ref": "#/components/schemas/Pet"}, {"type": "string"}], "nullable": true,
               "default": null}),
        json!({"not": {"type": "null"}}),
        json!({"type": "object", "patternProperties": {"^x-": {"type": "string"}},
               "propertyNames": {"maxLength": 10}, "minProperties": 1}),
        json!({"enum": [1, "a", null], "nullable": true}),
        json!({"type": "string", "enum": ["a"], "nullable": true, "example": "a"}),
        json!({"allOf": [{"$ref": "#/components/schemas/Owner"}], "readOnly": true}),
        json!({"type": "object", "properties": {"when": {"type": "string", "format": "date"}},
               "additionalProperties": false}),
        json!({"oneOf": [{"type": "string"}, {"type": "number"}], "type": "string",
               "nullable": true}),
        json!({"$ref": "#/components/schemas/Nope"}),
    ];
    for direction in [Direction::Input, Direction::Output] {
        for input in &inputs {
            // `convert` asserts validity.
            let _ = convert(&doc, direction, input.clone());
        }
    }
}

// ----- object_properties --------------------------------------------------------------------------

#[test]
fn object_properties_flattens_plain_objects() {
    let doc = doc30(json!({
        "Base": {"type": "object", "required": ["id", "kind"], "properties": {
            "id": {"type": "integer", "readOnly": true},
            "kind": {"type": "string"}
        }},
        "New": {"allOf": [
            {"$ref": "#/components/schemas/Base"},
            {"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string", "nullable": true},
                "owner": {"$ref": "#/components/schemas/Owner"},
                "kind": {"maxLength": 3}
            }}
        ]},
        "Owner": {"type": "object", "properties": {"n": {"type": "string"}}}
    }));
    let mut conv = SchemaConverter::new(&doc, Path::new("api.yaml"), Direction::Input);
    let (props, required) = conv
        .object_properties(&json!({"$ref": "#/components/schemas/New"}), "/body")
        .expect("plain object");
    assert_eq!(props.keys().collect::<Vec<_>>(), ["kind", "name", "owner"]);
    assert_eq!(required, ["kind", "name"]);
    assert_eq!(props["name"], json!({"type": ["string", "null"]}));
    assert_eq!(props["owner"], json!({"$ref": "#/$defs/Owner"}));
    assert_eq!(
        props["kind"],
        json!({"allOf": [{"type": "string"}, {"maxLength": 3}]})
    );
    let (defs, warnings) = conv.finish();
    assert_eq!(defs.keys().collect::<Vec<_>>(), ["Owner"]);
    assert!(warnings.is_empty());
    for p in props.values() {
        assert_valid(p, &defs);
    }

    let mut conv = SchemaConverter::new(&doc, Path::new("api.yaml"), Direction::Output);
    let (props, required) = conv
        .object_properties(&json!({"$ref": "#/components/schemas/Base"}), "/body")
        .expect("plain object");
    assert_eq!(props.keys().collect::<Vec<_>>(), ["id", "kind"]);
    assert_eq!(required, ["id", "kind"]);
}

#[test]
fn object_properties_rejects_what_is_not_a_plain_object() {
    let doc = doc30(json!({
        "Cat": {"type": "object", "properties": {"a": {"type": "string"}}},
        "Self": {"allOf": [{"$ref": "#/components/schemas/Self"}]}
    }));
    let not_plain = [
        json!({"oneOf": [{"$ref": "#/components/schemas/Cat"}]}),
        json!({"type": "object", "additionalProperties": {"type": "string"}}),
        json!({"type": "object"}),
        json!({"type": "array", "items": {"$ref": "#/components/schemas/Cat"}}),
        json!({"type": "string"}),
        json!({"$ref": "#/components/schemas/Cat", "nullable": true}),
        json!({"$ref": "#/components/schemas/Missing"}),
        json!({"$ref": "#/components/schemas/Self"}),
        json!({"allOf": [{"$ref": "#/components/schemas/Cat"}, {"type": "string"}]}),
        json!(true),
        json!("x"),
    ];
    let mut conv = SchemaConverter::new(&doc, Path::new("api.yaml"), Direction::Input);
    for schema in &not_plain {
        assert!(
            conv.object_properties(schema, "/body").is_none(),
            "{schema}"
        );
    }
    let (defs, warnings) = conv.finish();
    assert!(defs.is_empty(), "{defs:?}");
    assert!(warnings.is_empty());
}

#[test]
fn ref_siblings_apply_in_31() {
    let doc = doc31(json!({"Tag": {"type": "string"}}));
    let c = convert(
        &doc,
        Direction::Input,
        json!({"$ref": "#/components/schemas/Tag", "nullable": true, "description": "d",
               "x-extra": 1}),
    );
    assert_eq!(
        c.schema,
        json!({"description": "d", "anyOf": [{"$ref": "#/$defs/Tag"}, {"type": "null"}]})
    );
}

#[test]
fn max_depth_is_configurable() {
    let doc = doc30(json!({}));
    let mut conv =
        SchemaConverter::new(&doc, Path::new("api.yaml"), Direction::Input).with_max_depth(2);
    let out = conv.convert(
        &json!({"type": "array", "items": {"type": "array", "items": {"type": "string"}}}),
        "#/x",
    );
    assert_eq!(
        out,
        json!({"type": "array", "items": {"type": "array", "items": {}}})
    );
    assert_eq!(conv.warnings().len(), 1);
    assert_eq!(conv.warnings()[0].location, "api.yaml at `/x/items/items`");
    assert_eq!(conv.direction(), Direction::Input);
    assert!(conv.defs().is_empty());
}
