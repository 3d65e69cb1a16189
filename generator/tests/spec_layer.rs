//! The spec layer: loading JSON/YAML, bundling file `$ref`s, upgrading Swagger 2.0, indexing.

use std::path::{Path, PathBuf};

use mcpgen_codegen::Error;
use mcpgen_codegen::spec::load::parse_document;
use mcpgen_codegen::spec::{ParamLocation, Spec, SpecVersion};
use serde_json::{Value, json};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/spec_layer")
        .join(rel)
}

fn yaml(text: &str) -> Result<Value, Error> {
    parse_document(Path::new("test.yaml"), text)
}

fn load_inline(text: &str) -> Result<Spec, Vec<Error>> {
    Spec::from_str(Path::new("inline.yaml"), text)
}

fn load_ok(text: &str) -> Spec {
    match load_inline(text) {
        Ok(spec) => spec,
        Err(errors) => panic!("expected the spec to load, got {errors:#?}"),
    }
}

/// The errors of the operations that could not be read (the document itself loads).
fn broken_errors(text: &str) -> Vec<Error> {
    load_ok(text)
        .broken
        .into_iter()
        .flat_map(|b| b.errors)
        .collect()
}

fn load_err(text: &str) -> Vec<Error> {
    match load_inline(text) {
        Ok(_) => panic!("expected errors"),
        Err(errors) => errors,
    }
}

/// Every `$ref` (outside example values) in `value`.
fn refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                match (key.as_str(), child) {
                    ("$ref", Value::String(r)) => out.push(r.clone()),
                    ("example" | "examples", _) => {}
                    _ => refs(child, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| refs(item, out)),
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// load
// ---------------------------------------------------------------------------------------------

#[test]
fn yaml_integer_and_boolean_keys_become_strings() {
    let doc = yaml("responses:\n  200:\n    description: ok\n  true: yes\n  0x1F: x\n").unwrap();
    assert_eq!(
        doc,
        json!({"responses": {"200": {"description": "ok"}, "true": "yes", "0x1F": "x"}})
    );
}

#[test]
fn yaml_1_2_booleans() {
    let doc =
        yaml("on: yes\noff: no\ny: n\nreal: true\nother: False\ncount: 1_000\nzip: 0123\nn: 12\n")
            .unwrap();
    assert_eq!(
        doc,
        json!({"on": "yes", "off": "no", "y": "n", "real": true, "other": false,
               "count": "1_000", "zip": "0123", "n": 12})
    );
}

#[test]
fn yaml_syntax_error_has_line_and_column() {
    let err = yaml("openapi: 3.0.0\ninfo:\n  title: x\n version: 1\n").unwrap_err();
    let Error::Syntax { line, column, .. } = &err else {
        panic!("expected a syntax error, got {err:?}");
    };
    assert_eq!((*line, *column), (4, 2), "{err}");
    assert!(err.to_string().starts_with("test.yaml:4:2: "), "{err}");
}

#[test]
fn json_syntax_error_has_line_and_column() {
    let err = parse_document(
        Path::new("x.json"),
        "{\n  \"openapi\": \"3.0.0\",\n  \"info\": }\n",
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Syntax {
                line: 3,
                column: 11,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn duplicate_keys_are_errors_in_yaml_and_json() {
    let err = yaml("a: 1\nb: 2\na: 3\n").unwrap_err();
    assert!(matches!(err, Error::Syntax { line: 3, .. }), "{err:?}");
    assert!(err.to_string().contains("duplicate"), "{err}");

    let err = parse_document(Path::new("x.json"), "{\"a\": 1,\n \"a\": 2}").unwrap_err();
    assert!(matches!(err, Error::Syntax { line: 2, .. }), "{err:?}");
    assert!(err.to_string().contains("duplicate"), "{err}");
}

#[test]
fn empty_or_non_mapping_documents_are_spec_errors() {
    for text in [
        "",
        "# only a comment\n",
        "- a\n- b\n",
        "just text",
        "[1, 2]",
    ] {
        let err = yaml(text).unwrap_err();
        assert!(matches!(err, Error::Spec { .. }), "{text:?}: {err:?}");
    }
}

#[test]
fn json_and_yaml_flow_mappings_both_load() {
    assert_eq!(
        parse_document(Path::new("a.json"), "\u{feff} {\"a\": [1, 2.5, null]}").unwrap(),
        json!({"a": [1, 2.5, null]})
    );
    assert_eq!(
        yaml("{a: b, c: [d]}").unwrap(),
        json!({"a": "b", "c": ["d"]})
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep_yaml = format!("a: {}{}", "[".repeat(5000), "]".repeat(5000));
    assert!(matches!(yaml(&deep_yaml), Err(Error::Syntax { .. })));
    let mut block = String::new();
    for depth in 0..300 {
        block.push_str(&"  ".repeat(depth));
        block.push_str("- k:\n");
    }
    assert!(matches!(yaml(&block), Err(Error::Syntax { .. })));
    let deep_json = format!("{}{}", "{\"a\":".repeat(5000), "}".repeat(5000));
    assert!(matches!(
        parse_document(Path::new("a.json"), &deep_json),
        Err(Error::Syntax { .. })
    ));
    // 100 levels is fine.
    let ok = format!("a: {}{}", "[".repeat(100), "]".repeat(100));
    assert!(yaml(&ok).is_ok());
}

// ---------------------------------------------------------------------------------------------
// bundle
// ---------------------------------------------------------------------------------------------

#[test]
fn relative_file_refs_are_bundled_including_cycles() {
    let spec = Spec::load(&fixture("refs/openapi.yaml")).unwrap();
    let root = &spec.root;

    let mut all = Vec::new();
    refs(root, &mut all);
    assert!(all.iter().all(|r| r.starts_with("#/")), "{all:#?}");
    for r in &all {
        assert!(spec.resolve_pointer(r).is_some(), "dangling {r}");
    }

    let schemas = &root["components"]["schemas"];
    // The root's `Pet: {$ref: pet.yaml}` is replaced by the file's content.
    assert_eq!(
        schemas["Pet"]["properties"]["name"],
        json!({"type": "string"})
    );
    assert_eq!(
        schemas["Pet"]["properties"]["owner"],
        json!({"$ref": "#/components/schemas/owner"})
    );
    // pet.yaml ↔ owner.yaml cycle: owner points back at the same copy of pet.
    assert_eq!(
        schemas["owner"]["properties"]["pets"]["items"],
        json!({"$ref": "#/components/schemas/Pet"})
    );
    // A local ref inside owner.yaml refers to owner.yaml's own definitions.
    assert_eq!(
        schemas["owner"]["properties"]["home"],
        json!({"$ref": "#/components/schemas/Address"})
    );
    assert_eq!(
        schemas["owner"]["properties"]["example"],
        json!({"$ref": "#/components/schemas/Address"})
    );
    assert_eq!(schemas["Address"]["properties"]["city"]["type"], "string");
    // Example values are data, left alone.
    assert_eq!(
        schemas["owner"]["example"],
        json!({"$ref": "this is data, not a reference"})
    );
    // `Error` was taken by the root's own schema.
    assert_eq!(schemas["Error"], json!({"type": "string"}));
    assert_eq!(
        schemas["Error_2"]["properties"]["message"]["type"],
        "string"
    );
    assert_eq!(
        root["components"]["responses"]["Problem"]["content"]["application/json"]["schema"],
        json!({"$ref": "#/components/schemas/Error_2"})
    );
    assert_eq!(root["components"]["parameters"]["Limit"]["name"], "limit");
    assert_eq!(
        root["paths"]["/owners/{id}"],
        json!({"$ref": "#/x-mcpgen-bundled/pathItems/owner"})
    );

    let ids: Vec<_> = spec
        .operations
        .iter()
        .map(|o| o.operation_id.clone())
        .collect();
    assert_eq!(
        ids,
        [Some("listPets".to_owned()), Some("getOwner".to_owned())]
    );
    let list = &spec.operations[0];
    assert_eq!(list.parameters[0].name, "limit");
    assert_eq!(
        list.parameters[0].schema_pointer,
        "/components/parameters/Limit/schema"
    );
    assert_eq!(
        list.responses["default"].description.as_deref(),
        Some("problem")
    );
    let owner = &spec.operations[1];
    assert_eq!(owner.path, "/owners/{id}");
    assert_eq!(owner.pointer, "/x-mcpgen-bundled/pathItems/owner/get");
    assert_eq!(
        owner.responses["200"].content["application/json"].schema,
        Some(json!({"$ref": "#/components/schemas/owner"}))
    );
}

#[test]
fn bad_refs_are_all_reported() {
    let path = fixture("bad_refs/openapi.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let doc = mcpgen_codegen::spec::load::parse_document(&path, &text).unwrap();
    let errors = mcpgen_codegen::spec::bundle::bundle(&path, doc).unwrap_err();
    let refs: Vec<(String, String, String, PathBuf)> = errors
        .iter()
        .map(|e| match e {
            Error::Ref {
                path,
                pointer,
                reference,
                reason,
            } => (
                pointer.clone(),
                reference.clone(),
                reason.clone(),
                path.clone(),
            ),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    // A dangling local ref (`/d`) is not a load error: it only matters if that operation is
    // selected, where the schema converter reports it.
    assert_eq!(refs.len(), 4, "{refs:#?}");
    let schema_ref =
        |p: &str| format!("/paths/~1{p}/get/responses/200/content/application~1json/schema/$ref");

    let remote = &refs[0];
    assert_eq!(remote.0, schema_ref("a"));
    assert!(
        remote.2.contains("remote references are not fetched"),
        "{}",
        remote.2
    );
    assert!(remote.2.contains("relative path"), "{}", remote.2);

    let missing = &refs[1];
    assert_eq!(missing.0, schema_ref("b"));
    assert!(missing.2.contains("missing.yaml"), "{}", missing.2);

    let no_pointer = &refs[2];
    assert_eq!(no_pointer.1, "other.yaml#/NotThere");
    assert!(
        no_pointer.2.contains("other.yaml") && no_pointer.2.contains("/NotThere"),
        "{}",
        no_pointer.2
    );

    // A ref from another file back into the root is checked too, and reported in its file.
    let back = &refs[3];
    assert_eq!(back.3, fixture("bad_refs/back.yaml"));
    assert_eq!(back.0, "/properties/broken/$ref");
    assert!(back.2.contains("/components/schemas/Nope"), "{}", back.2);
}

#[test]
fn external_refs_in_swagger_go_to_definitions() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pet.json"), r#"{"type": "object"}"#).unwrap();
    let root = dir.path().join("swagger.yaml");
    std::fs::write(
        &root,
        "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths:\n  /p:\n    get:\n      responses:\n        200:\n          description: ok\n          schema: {$ref: 'pet.json'}\n",
    )
    .unwrap();
    let spec = Spec::load(&root).unwrap();
    assert_eq!(spec.version, SpecVersion::Swagger2);
    assert_eq!(
        spec.root["components"]["schemas"]["pet"],
        json!({"type": "object"})
    );
    assert_eq!(
        spec.root["paths"]["/p"]["get"]["responses"]["200"]["content"]["application/json"]["schema"],
        json!({"$ref": "#/components/schemas/pet"})
    );
}

// ---------------------------------------------------------------------------------------------
// upgrade
// ---------------------------------------------------------------------------------------------

#[test]
fn swagger_2_is_upgraded_to_the_3_0_shape() {
    let spec = Spec::load(&fixture("swagger.yaml")).unwrap();
    let root = &spec.root;
    assert_eq!(spec.version, SpecVersion::Swagger2);
    assert_eq!(root["openapi"], "3.0.3");
    assert!(root.get("swagger").is_none() && root.get("definitions").is_none());
    assert_eq!(
        root["servers"],
        json!([{"url": "http://api.example.com/v1"}])
    );

    // definitions → components/schemas, refs rewritten, x-nullable → nullable.
    let pet = &root["components"]["schemas"]["Pet"];
    assert_eq!(
        pet["properties"]["tag"],
        json!({"type": "string", "nullable": true})
    );
    assert_eq!(
        pet["properties"]["owner"],
        json!({"$ref": "#/components/schemas/Owner"})
    );
    assert_eq!(root["components"]["schemas"]["Owner"]["nullable"], true);
    let mut all = Vec::new();
    refs(root, &mut all);
    assert!(
        all.iter().all(|r| r.starts_with("#/components/")),
        "{all:#?}"
    );
    for r in &all {
        assert!(spec.resolve_pointer(r).is_some(), "dangling {r}");
    }

    // Shared parameters: plain → components/parameters, body → components/requestBodies.
    assert_eq!(
        root["components"]["parameters"]["Limit"],
        json!({"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 100}})
    );
    assert_eq!(
        root["components"]["requestBodies"]["PetBody"]["content"]["application/json"]["schema"],
        json!({"$ref": "#/components/schemas/Pet"})
    );
    assert_eq!(
        root["components"]["requestBodies"]["PetBody"]["required"],
        true
    );

    // Security schemes.
    let schemes = &root["components"]["securitySchemes"];
    assert_eq!(
        schemes["basicAuth"],
        json!({"type": "http", "scheme": "basic"})
    );
    assert_eq!(
        schemes["apiKey"],
        json!({"type": "apiKey", "name": "X-API-Key", "in": "header"})
    );
    assert_eq!(
        schemes["oauth"],
        json!({"type": "oauth2", "flows": {"authorizationCode": {
            "authorizationUrl": "https://example.com/auth",
            "tokenUrl": "https://example.com/token",
            "scopes": {"read": "Read things"}
        }}})
    );

    let paths = &root["paths"];
    // collectionFormat → style/explode.
    let list = &paths["/pets"]["get"]["parameters"];
    assert_eq!(list[0], json!({"$ref": "#/components/parameters/Limit"}));
    assert_eq!(list[1]["style"], "form");
    assert_eq!(list[1]["explode"], true);
    assert_eq!(
        list[1]["schema"],
        json!({"type": "array", "items": {"type": "string"}})
    );
    assert_eq!(
        (list[2]["style"].as_str(), list[2]["explode"].as_bool()),
        (Some("form"), Some(false))
    );
    assert_eq!(
        (list[3]["style"].as_str(), list[3]["explode"].as_bool()),
        (Some("form"), Some(false))
    );
    assert!(
        spec.warnings.iter().any(|w| w.message.contains("tsv")),
        "{:?}",
        spec.warnings
    );
    // Response schema → content per produces.
    assert_eq!(
        paths["/pets"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["items"],
        json!({"$ref": "#/components/schemas/Pet"})
    );

    // Body via a shared parameter → requestBody ref.
    assert_eq!(
        paths["/pets"]["post"]["requestBody"],
        json!({"$ref": "#/components/requestBodies/PetBody"})
    );
    // Inline body with operation-level consumes.
    let put = &paths["/pets/{petId}"]["put"];
    let content = put["requestBody"]["content"].as_object().unwrap();
    assert_eq!(
        content.keys().collect::<Vec<_>>(),
        ["application/json", "application/xml"]
    );
    assert!(put.get("consumes").is_none());
    assert_eq!(
        put["responses"]["404"],
        json!({"$ref": "#/components/responses/NotFound"})
    );
    assert_eq!(
        root["components"]["responses"]["NotFound"]["content"]["application/json"]["schema"],
        json!({"$ref": "#/components/schemas/Error"})
    );
    // Path-level parameter: schema moved, path parameters required.
    assert_eq!(
        paths["/pets/{petId}"]["parameters"][0],
        json!({"name": "petId", "in": "path", "schema": {"type": "string"}, "required": true})
    );

    // formData with a file → multipart object schema; file response → binary.
    let upload = &paths["/pets/{petId}/photo"]["post"];
    assert_eq!(
        upload["requestBody"],
        json!({"content": {"multipart/form-data": {"schema": {
            "type": "object",
            "properties": {
                "file": {"type": "string", "format": "binary"},
                "caption": {"type": "string", "description": "A caption"}
            },
            "required": ["file"]
        }}}, "required": true})
    );
    assert_eq!(
        upload["responses"]["200"]["content"],
        json!({"image/png": {"schema": {"type": "string", "format": "binary"}}})
    );
    // formData without a file → urlencoded; csv arrays get an encoding.
    let login = &paths["/login"]["post"];
    let form = &login["requestBody"]["content"]["application/x-www-form-urlencoded"];
    assert_eq!(form["schema"]["required"], json!(["user"]));
    assert_eq!(
        form["encoding"]["scopes"],
        json!({"style": "form", "explode": false})
    );
    assert_eq!(login["x-internal"], true);

    // The index sees the upgraded operations.
    let ids: Vec<_> = spec
        .operations
        .iter()
        .filter_map(|o| o.operation_id.as_deref())
        .collect();
    assert_eq!(
        ids,
        ["listPets", "createPet", "updatePet", "uploadPhoto", "login"]
    );
    let update = &spec.operations[2];
    assert_eq!(update.parameters.len(), 1);
    assert_eq!(update.parameters[0].location, ParamLocation::Path);
    assert!(update.parameters[0].required);
    assert_eq!(update.security, [vec!["apiKey".to_owned()]]);
    let create = &spec.operations[1];
    let body = create.request_body.as_ref().unwrap();
    assert_eq!(body.pointer, "/components/requestBodies/PetBody");
    assert!(body.required);
}

#[test]
fn versions_are_detected() {
    let doc = |v: &str| format!("{v}\ninfo: {{title: t, version: '1'}}\npaths: {{}}\n");
    assert_eq!(
        load_ok(&doc("openapi: 3.0.3")).version,
        SpecVersion::OpenApi30
    );
    assert_eq!(
        load_ok(&doc("openapi: 3.1.0")).version,
        SpecVersion::OpenApi31
    );
    let v32 = load_ok(&doc("openapi: 3.2.0"));
    assert_eq!(v32.version, SpecVersion::OpenApi31);
    assert!(v32.warnings.iter().any(|w| w.message.contains("3.2")));
    assert_eq!(
        load_ok(&doc("swagger: '2.0'")).version,
        SpecVersion::Swagger2
    );

    let errors = load_err(&doc("openapi: 4.0.0"));
    assert!(
        matches!(&errors[..], [Error::Spec { pointer, message, .. }]
            if pointer == "/openapi" && message.contains("4.0.0") && message.contains("3.1")),
        "{errors:?}"
    );
    let errors = load_err(&doc("swagger: '1.2'"));
    assert!(
        matches!(&errors[..], [Error::Spec { pointer, message, .. }]
            if pointer == "/swagger" && message.contains("1.2")),
        "{errors:?}"
    );
    let errors = load_err("info: {title: t}\npaths: {}\n");
    assert!(
        matches!(&errors[..], [Error::Spec { message, .. }]
            if message.contains("not an OpenAPI or Swagger document")),
        "{errors:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// index
// ---------------------------------------------------------------------------------------------

const MERGING: &str = r##"
openapi: 3.0.3
info: {title: t, version: "1"}
security:
  - apiKey: []
  - {}
components:
  parameters:
    Id: {$ref: '#/components/parameters/RealId'}
    RealId: {name: id, in: path, schema: {type: integer}}
    Limit:
      name: limit
      in: query
      content:
        application/json:
          schema: {type: integer}
  responses:
    Ok:
      description: fine
      content:
        application/json:
          schema: {type: object}
  requestBodies:
    Item:
      required: true
      content:
        application/json:
          schema: {type: object}
paths:
  /items/{id}:
    parameters:
      - $ref: '#/components/parameters/Id'
      - {name: verbose, in: query, schema: {type: boolean}}
    get:
      operationId: getItem
      tags: [items]
      parameters:
        - {name: verbose, in: query, required: true, description: op-level, schema: {type: string}}
        - $ref: '#/components/parameters/Limit'
      responses:
        '200': {$ref: '#/components/responses/Ok'}
    put:
      operationId: putItem
      security: []
      requestBody: {$ref: '#/components/requestBodies/Item'}
      responses:
        '204': {description: done}
  /things/{thingId}:
    get:
      operationId: getThing
      responses: {}
"##;

#[test]
fn parameters_are_merged_and_refs_resolved() {
    let spec = load_ok(MERGING);
    let get = &spec.operations[0];
    assert_eq!(get.pointer, "/paths/~1items~1{id}/get");
    let names: Vec<_> = get.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["id", "verbose", "limit"]);
    let id = &get.parameters[0];
    assert!(id.required, "path parameters are always required");
    assert_eq!(id.schema, json!({"type": "integer"}));
    assert_eq!(id.schema_pointer, "/components/parameters/RealId/schema");
    let verbose = &get.parameters[1];
    assert_eq!(verbose.description.as_deref(), Some("op-level"));
    assert_eq!(verbose.schema, json!({"type": "string"}));
    assert!(verbose.required);
    let limit = &get.parameters[2];
    assert_eq!(limit.schema, json!({"type": "integer"}));
    assert_eq!(
        limit.schema_pointer,
        "/components/parameters/Limit/content/application~1json/schema"
    );
    assert_eq!(get.responses["200"].description.as_deref(), Some("fine"));
    assert_eq!(
        get.responses["200"].content["application/json"].schema_pointer,
        "/components/responses/Ok/content/application~1json/schema"
    );
    assert_eq!(get.security, [vec!["apiKey".to_owned()], vec![]]);
    assert_eq!(get.tags, ["items"]);

    let put = &spec.operations[1];
    assert!(put.security.is_empty());
    let body = put.request_body.as_ref().unwrap();
    assert!(body.required);
    assert_eq!(body.pointer, "/components/requestBodies/Item");
    // Path-level parameters apply to every operation.
    assert_eq!(put.parameters.len(), 2);

    // `{thingId}` has no declared parameter: a warning, nothing added.
    let thing = &spec.operations[2];
    assert!(thing.parameters.is_empty());
    assert!(
        spec.warnings.iter().any(|w| w.message.contains("thingId")),
        "{:?}",
        spec.warnings
    );
}

#[test]
fn duplicate_operation_ids_are_errors() {
    let errors = broken_errors(
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get: {operationId: same, responses: {}}\n  /b:\n    post: {operationId: same, responses: {}}\n",
    );
    assert!(
        errors.len() == 2 && errors.iter().all(|e| matches!(e, Error::Spec { message, .. }
            if message.contains("same") && message.contains("/paths/~1a/get") && message.contains("/paths/~1b/post"))),
        "{errors:?}"
    );
}

#[test]
fn parameter_ref_cycles_are_errors() {
    let errors = broken_errors(
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\ncomponents:\n  parameters:\n    A: {$ref: '#/components/parameters/B'}\n    B: {$ref: '#/components/parameters/A'}\npaths:\n  /a:\n    get:\n      parameters: [{$ref: '#/components/parameters/A'}]\n      responses: {}\n",
    );
    assert!(
        matches!(&errors[..], [Error::Ref { reason, .. }] if reason.contains("cycle")),
        "{errors:?}"
    );
}

#[test]
fn malformed_operations_are_errors_not_panics() {
    let errors = broken_errors(
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get: 5\n    post:\n      parameters: [{name: x, in: body}, 7, {in: query}]\n      requestBody: []\n      responses: {'200': 'ok'}\n  /b: []\n",
    );
    let pointers: Vec<&str> = errors
        .iter()
        .map(|e| match e {
            Error::Spec { pointer, .. } => pointer.as_str(),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(
        pointers,
        [
            "/paths/~1a/get",
            "/paths/~1a/post/parameters/0",
            "/paths/~1a/post/parameters/1",
            "/paths/~1a/post/parameters/2",
            "/paths/~1a/post/requestBody",
            "/paths/~1a/post/responses/200",
            "/paths/~1b",
        ]
    );
}

#[test]
fn every_project_spec_loads_with_local_refs_only() {
    let specs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs");
    let mut loaded = 0;
    for entry in std::fs::read_dir(&specs).unwrap() {
        let dir = entry.unwrap().path();
        for name in ["openapi.yaml", "openapi.json"] {
            let file = dir.join(name);
            if !file.exists() {
                continue;
            }
            let spec = match Spec::load(&file) {
                Ok(spec) => spec,
                Err(errors) => panic!("{}: {errors:#?}", file.display()),
            };
            if std::env::var_os("SPEC_LAYER_DUMP").is_some() {
                println!("==== {}", file.display());
                println!("{}", serde_json::to_string_pretty(&spec.root).unwrap());
                for w in &spec.warnings {
                    println!("warning: {w}");
                }
                for op in &spec.operations {
                    println!(
                        "{:?} {} {} {:?}",
                        op.operation_id, op.method, op.path, op.pointer
                    );
                }
            }
            let mut all = Vec::new();
            refs(&spec.root, &mut all);
            for r in &all {
                assert!(
                    spec.resolve_pointer(r).is_some(),
                    "{}: dangling {r}",
                    file.display()
                );
            }
            assert!(!spec.operations.is_empty(), "{}", file.display());
            loaded += 1;
        }
    }
    assert!(
        loaded >= 4,
        "only {loaded} specs found in {}",
        specs.display()
    );
}

/// Every node of `value`, by pointer.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let child_at =
                    format!("{at}/{}", mcpgen_codegen::spec::escape_pointer_segment(key));
                pointers(child, child_at, out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                pointers(child, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

#[test]
fn mangled_documents_give_errors_not_panics() {
    use mcpgen_codegen::spec::{bundle::bundle, index::operations, upgrade::to_openapi3};
    let swagger = fixture("swagger.yaml");
    let swagger_doc =
        parse_document(&swagger, &std::fs::read_to_string(&swagger).unwrap()).unwrap();
    let merging = Path::new("merging.yaml");
    let merging_doc = parse_document(merging, MERGING).unwrap();
    let replacements = [
        json!(null),
        json!(7),
        json!([]),
        json!({}),
        json!({"$ref": "#/nowhere"}),
        json!({"$ref": "#"}),
        json!({"$ref": 5}),
    ];
    for (path, doc) in [(swagger.as_path(), &swagger_doc), (merging, &merging_doc)] {
        let mut all = Vec::new();
        pointers(doc, String::new(), &mut all);
        for at in all.iter().filter(|p| !p.is_empty()) {
            for replacement in &replacements {
                let mut mangled = doc.clone();
                if let Some(node) = mangled.pointer_mut(at) {
                    *node = replacement.clone();
                }
                let Ok(bundled) = bundle(path, mangled) else {
                    continue;
                };
                let Ok((_, upgraded, _)) = to_openapi3(path, bundled) else {
                    continue;
                };
                let _ = operations(path, &upgraded);
            }
        }
    }
}

#[test]
fn a_ref_that_cannot_be_followed_leaves_out_only_its_operation() {
    let path = fixture("dangling_in_one_operation/openapi.yaml");
    let spec = Spec::load(&path).expect("the document loads");
    let ids: Vec<&str> = spec
        .operations
        .iter()
        .filter_map(|op| op.operation_id.as_deref())
        .collect();
    assert_eq!(ids, ["listPets", "listOwners"]);
    let [broken] = &spec.broken[..] else {
        panic!("{:#?}", spec.broken);
    };
    assert_eq!(broken.operation_id.as_deref(), Some("createPet"));
    let message = broken.errors[0].to_string();
    assert!(
        message.contains("dog.yaml")
            && message.contains(
                "/paths/~1pets/post/requestBody/content/application~1json/schema/oneOf/1/$ref"
            ),
        "{message}"
    );

    // `init` warns, naming the operation and the pointer, and selects the others.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["init", "--spec"])
        .arg(&path)
        .output()
        .expect("mcpgen runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let warned = String::from_utf8_lossy(&out.stderr);
    assert!(
        warned.contains("POST /pets (operationId createPet) cannot be read")
            && warned.contains("dog.yaml"),
        "{warned}"
    );
    let allowlist = String::from_utf8_lossy(&out.stdout);
    assert!(allowlist.contains("listPets") && allowlist.contains("listOwners"));
    assert!(!allowlist.contains("createPet"), "{allowlist}");
}
