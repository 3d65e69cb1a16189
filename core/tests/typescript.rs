//! TypeScript declarations of tools from their schemas: snapshots of tricky schemas
//! (recursion, enums, nullable values, shared definitions, quoted names, hostile text), and
//! the declaration a `ToolDef` gives with and without one made at generation.

use mcpgen_core::typescript::{Declarations, ToolSchemas, declaration_for, declarations_for};
use mcpgen_core::{Declaration, FullDefs, ToolDef};
use serde_json::{Map, Value, json};

fn tool<'a>(name: &'a str, description: &'a str, input: &'a Value) -> ToolSchemas<'a> {
    ToolSchemas {
        name,
        title: None,
        description,
        input,
        output: None,
        wrap_output: false,
        shared_input: None,
        shared_output: None,
    }
}

/// The declaration file of `tools`, converted together.
fn file(tools: &[ToolSchemas<'_>]) -> String {
    let mut declarations = Declarations::new();
    let tools = declarations.add(tools);
    declarations.file(&tools)
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

#[test]
fn tickets_read_as_a_typed_api() {
    let input = json!({
        "type": "object",
        "properties": {
            "key": {"type": "string", "description": "Project key", "examples": ["OPS"]},
            "state": {"type": "string", "enum": ["open", "closed", "all"], "default": "open"},
            "labels": {"type": "array", "items": {"type": "string"}, "maxItems": 10},
            "page": {"type": "integer", "format": "int32", "minimum": 1}
        },
        "required": ["key"],
        "additionalProperties": false
    });
    let output = json!({
        "$ref": "#/$defs/TicketPage",
        "$defs": {
            "TicketPage": {
                "type": "object",
                "description": "One page of tickets",
                "properties": {
                    "items": {"type": "array", "items": {"$ref": "#/$defs/Ticket"}},
                    "next": {"type": ["string", "null"], "description": "Cursor of the next page"}
                },
                "required": ["items"]
            },
            "Ticket": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer", "format": "int64"},
                    "title": {"type": "string"},
                    "state": {"$ref": "#/$defs/State"},
                    "created": {"type": "string", "format": "date-time", "deprecated": true}
                },
                "required": ["id", "title"]
            },
            "State": {"type": "string", "enum": ["open", "closed"]}
        }
    });
    let mut list = tool("list_tickets", "List a project's tickets.", &input);
    list.title = Some("List tickets");
    list.output = Some(&output);
    insta::assert_snapshot!(file(&[list]));
}

#[test]
fn wrapped_results_are_bare_and_tools_without_output_return_unknown() {
    let input = json!({"type": "object", "properties": {}});
    let wrapped = json!({
        "type": "object",
        "properties": {"result": {"type": "array", "items": {"$ref": "#/$defs/Tag"}}},
        "required": ["result"],
        "$defs": {"Tag": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}
    });
    let mut tags = tool("list_tags", "All tags", &input);
    tags.output = Some(&wrapped);
    tags.wrap_output = true;
    let count = json!({"type": "object", "properties": {"result": {"type": "integer"}}});
    let mut counted = tool("count_tags", "How many tags", &input);
    counted.output = Some(&count);
    counted.wrap_output = true;
    let ping = tool("ping", "", &input);
    insta::assert_snapshot!(file(&[tags, counted, ping]));
}

#[test]
fn recursive_and_mutually_recursive_schemas_are_named_types() {
    let input = json!({
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}, "expr": {"$ref": "#/$defs/Expr"}},
        "required": ["tree"],
        "$defs": {
            "Node": {
                "type": "object",
                "description": "A tree node",
                "properties": {
                    "value": {"type": "number"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                    "parent": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}
                }
            },
            "Expr": {"oneOf": [
                {"type": "number"},
                {"$ref": "#/$defs/Sum"}
            ]},
            "Sum": {
                "type": "object",
                "properties": {"op": {"const": "sum"}, "terms": {"type": "array", "items": {"$ref": "#/$defs/Expr"}}},
                "required": ["op", "terms"]
            }
        }
    });
    insta::assert_snapshot!(file(&[tool("evaluate", "Evaluate a tree", &input)]));
}

#[test]
fn nullable_forms_unions_maps_and_tuples() {
    let input = json!({
        "type": "object",
        "properties": {
            "a": {"type": ["string", "null"]},
            "b": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "c": {"type": "string", "nullable": true},
            "d": {"enum": ["x", null]},
            "e": {"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "email"}, "to": {"type": "string", "format": "email"}}, "required": ["kind", "to"]},
                {"type": "object", "properties": {"kind": {"const": "sms"}, "phone": {"type": "string"}}, "required": ["kind", "phone"]}
            ]},
            "f": {"type": "object", "additionalProperties": {"type": "integer"}},
            "g": {"type": "object", "properties": {"fixed": {"type": "string"}}, "patternProperties": {"^x-": {"type": "boolean"}}},
            "h": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "items": false},
            "i": {"allOf": [{"type": "object", "properties": {"id": {"type": "integer"}}}, {"type": "object", "properties": {"name": {"type": "string"}}}]},
            "j": true,
            "k": {},
            "l": {"type": "array", "items": {"type": ["integer", "string"]}},
            "m": {"enum": [1, 2.5, -3, true]},
            "n": {"$ref": "https://example.com/schema.json"}
        },
        "required": ["a", "e"]
    });
    insta::assert_snapshot!(file(&[tool("shapes", "Every shape", &input)]));
}

#[test]
fn shared_definitions_are_declared_once_and_argument_forms_get_a_suffix() {
    let shared_input = object(json!({
        "Ticket": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}
    }));
    let shared_output = object(json!({
        "Ticket": {"type": "object", "properties": {"id": {"type": ["integer", "null"]}, "title": {"type": ["string", "null"]}}},
        "User": {"type": "object", "properties": {"login": {"type": "string"}}}
    }));
    let create_input = json!({"type": "object", "properties": {"ticket": {"$ref": "#/$defs/Ticket"}}, "required": ["ticket"]});
    let ticket_output = json!({"$ref": "#/$defs/Ticket"});
    let get_input =
        json!({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]});
    let user_output = json!({"type": "object", "properties": {"owner": {"$ref": "#/$defs/User"}, "ticket": {"$ref": "#/$defs/Ticket"}}});
    let with_shared = |mut t: ToolSchemas<'static>| {
        t.shared_input = Some(Box::leak(Box::new(shared_input.clone())));
        t.shared_output = Some(Box::leak(Box::new(shared_output.clone())));
        t
    };
    let leak = |v: &Value| -> &'static Value { Box::leak(Box::new(v.clone())) };
    let mut create = with_shared(tool(
        "create_ticket",
        "Create a ticket",
        leak(&create_input),
    ));
    create.output = Some(leak(&ticket_output));
    let mut get = with_shared(tool("get_ticket", "Get a ticket", leak(&get_input)));
    get.output = Some(leak(&ticket_output));
    let mut owner = with_shared(tool("ticket_owner", "A ticket's owner", leak(&get_input)));
    owner.output = Some(leak(&user_output));
    let mut declarations = Declarations::new();
    let tools = declarations.add(&[create, get, owner]);
    assert_eq!(tools[0].types, ["TicketInput", "Ticket"]);
    assert_eq!(tools[1].types, ["Ticket"]);
    assert_eq!(tools[2].types, ["User", "Ticket"]);
    insta::assert_snapshot!(declarations.file(&tools));
    insta::assert_snapshot!(
        "standalone_create_ticket",
        declarations.standalone(&tools[0])
    );
}

#[test]
fn names_that_are_not_identifiers_are_quoted() {
    let input = json!({
        "type": "object",
        "properties": {
            "content-type": {"type": "string"},
            "1st": {"type": "string"},
            "with space": {"type": "string"},
            "quote\"d": {"type": "string"},
            "": {"type": "string"},
            "$ok_name": {"type": "string"},
            "ünicode": {"type": "string"}
        },
        "$defs": {}
    });
    let output = json!({"$ref": "#/$defs/my-type.v2", "$defs": {"my-type.v2": {"type": "string"}, "Promise": {"type": "string"}}});
    let mut odd = tool("github.repos-get", "Get a repository", &input);
    odd.output = Some(&output);
    insta::assert_snapshot!(file(&[odd]));
}

#[test]
fn hostile_text_stays_in_comments_and_literals() {
    let input = json!({
        "type": "object",
        "description": "*/ declare const pwned: any; /*",
        "properties": {
            "x\"}; declare const pwned: any; //": {
                "type": "string",
                "description": "ends */ here\n*/ and here\r\n\u{2028}line separator \u{0}nul `backtick` </script>",
                "format": "*/ evil",
                "pattern": "^a*/b$",
                "enum": ["\"; declare const pwned: any; //", "line\nbreak", "*/"],
                "default": "*/"
            },
            "deep": {"$ref": "#/$defs/*~1 x"}
        },
        "$defs": {"*/ x": {"type": "object", "title": "*/", "properties": {"y": {"const": "*/ \"'`${x}`"}}}}
    });
    let text = file(&[tool("evil", "Evil */ /* tool\n * @internal", &input)]);
    assert!(!text.contains("pwned: any;\n"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn pathological_schemas_give_unknown_instead_of_failing() {
    let mut deep = json!({"type": "string"});
    for _ in 0..500 {
        deep = json!({"type": "object", "properties": {"a": deep}});
    }
    let input = json!({"type": "object", "properties": {"deep": deep}});
    let text = file(&[tool("deep", "Deep", &input)]);
    assert!(text.contains("unknown"), "{text}");
    assert!(text.lines().count() < 200, "{} lines", text.lines().count());
    // A self-referencing alias, an empty enum, a non-schema and a wrong `type`.
    let odd = json!({
        "type": "object",
        "properties": {
            "loop": {"$ref": "#/$defs/Loop"},
            "none": {"enum": []},
            "num": 5,
            "bad": {"type": "strnig"},
            "props": {"type": "object", "properties": [1, 2], "required": "x"}
        },
        "$defs": {"Loop": {"$ref": "#/$defs/Loop"}}
    });
    insta::assert_snapshot!(file(&[tool("odd", "Odd", &odd)]));
}

#[test]
fn a_tool_table_entry_gives_its_generated_declaration() {
    const DECLARATION: Declaration = Declaration {
        signature: "/** Get a ticket */\nget_ticket(args: {\n  id: number;\n}): Promise<Ticket>;",
        types: &["interface Ticket {\n  id?: number;\n}"],
    };
    let def = ToolDef::new("get_ticket", "Get a ticket", "{}").declaration(&DECLARATION);
    assert_eq!(
        declaration_for(&def),
        "interface Ticket {\n  id?: number;\n}\n\n/** Get a ticket */\nget_ticket(args: {\n  id: number;\n}): Promise<Ticket>;"
    );
}

#[test]
fn a_tool_without_one_is_converted_from_its_schemas() {
    // What schemars 1.x makes of an `#[mcp_tool]` function's arguments and result.
    let def = ToolDef::new(
        "create_room",
        "Create a chat room",
        r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"name":{"type":"string","description":"Room name"},"visibility":{"$ref":"#/$defs/Visibility"},"topic":{"type":["string","null"],"default":null}},"required":["name","visibility"],"$defs":{"Visibility":{"type":"string","enum":["public","private"]}}}"##,
    )
    .output_schema(
        r##"{"type":"object","properties":{"result":{"type":"array","items":{"$ref":"#/$defs/Room"}}},"required":["result"],"$defs":{"Room":{"type":"object","properties":{"id":{"type":"integer","format":"uint64","minimum":0},"name":{"type":"string"}},"required":["id","name"]}}}"##,
    )
    .wrap_output();
    insta::assert_snapshot!(declaration_for(&def));
}

#[test]
fn full_schemas_and_shared_definitions_of_a_table_entry_are_used() {
    static DEFS: FullDefs = FullDefs {
        input: r#"{"Filter":{"type":"object","properties":{"q":{"type":"string"}}}}"#,
        output: r#"{"Hit":{"type":"object","properties":{"score":{"type":"number"}}}}"#,
    };
    let def = ToolDef::new("search", "Search", r#"{"type":"object","properties":{"filter":{"type":"object","description":"nested fields omitted"}}}"#)
        .full_input_schema(r##"{"type":"object","properties":{"filter":{"$ref":"#/$defs/Filter"}}}"##)
        .output_schema(r#"{"type":"object"}"#)
        .full_output_schema(r##"{"type":"object","properties":{"hits":{"type":"array","items":{"$ref":"#/$defs/Hit"}}}}"##)
        .full_defs(&DEFS);
    let text = declaration_for(&def);
    assert!(text.contains("interface Filter {"), "{text}");
    assert!(text.contains("filter?: Filter;"), "{text}");
    assert!(text.contains("hits?: Hit[];"), "{text}");
}

#[test]
fn schemas_that_are_not_json_give_a_signature_all_the_same() {
    let def = ToolDef::new("broken", "Broken", "{not json").output_schema("[");
    assert_eq!(
        declaration_for(&def),
        "/** Broken */\nbroken(args: unknown): Promise<unknown>;"
    );
}

#[test]
fn several_tools_together_declare_each_shared_type_once() {
    const TICKET: &str = "interface Ticket {\n  id?: number;\n}";
    const GET: Declaration = Declaration {
        signature: "get_ticket(args: {}): Promise<Ticket>;",
        types: &[TICKET],
    };
    const LIST: Declaration = Declaration {
        signature: "list_tickets(args: {}): Promise<Ticket[]>;",
        types: &[TICKET],
    };
    let get = ToolDef::new("get_ticket", "", "{}").declaration(&GET);
    let list = ToolDef::new("list_tickets", "", "{}").declaration(&LIST);
    let ping = ToolDef::new("ping", "Ping", r#"{"type":"object"}"#);
    assert_eq!(
        declarations_for(&[&get, &list, &ping]),
        "interface Ticket {\n  id?: number;\n}\n\nget_ticket(args: {}): Promise<Ticket>;\n\n\
         list_tickets(args: {}): Promise<Ticket[]>;\n\n/** Ping */\nping(args: {\n  [key: string]: unknown;\n}): Promise<unknown>;"
    );
}
