use serde_json::{Value, json};

use super::*;

fn no_defs(_: &str) -> Option<Value> {
    None
}

fn layout_of(schema: &Value, wrapped: bool) -> Option<Layout> {
    derive("t", "T", schema, wrapped, Requested::Auto, &mut no_defs)
}

fn keys(fields: &[Field]) -> Vec<&str> {
    fields.iter().map(|f| f.key.as_str()).collect()
}

fn ticket() -> Value {
    json!({
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "status": {"type": "string", "enum": ["open", "closed"], "title": "State"},
            "created_at": {"type": "string", "format": "date-time", "description": "When it was opened."},
            "url": {"type": ["string", "null"], "format": "uri"},
            "labels": {"type": "array", "items": {"type": "string"}},
            "author": {"$ref": "#/$defs/User"},
            "comments": {"type": "array", "items": {"$ref": "#/$defs/Comment"}}
        }
    })
}

fn defs(name: &str) -> Option<Value> {
    match name {
        "User" => Some(json!({"type": "object", "properties": {"login": {"type": "string"}}})),
        "Comment" => Some(json!({"type": "object", "properties": {
            "body": {"type": "string"},
            "author": {"$ref": "#/$defs/User"}
        }})),
        "Ticket" => Some(ticket()),
        _ => None,
    }
}

#[test]
fn a_list_under_items_is_a_table_with_the_other_fields_above() {
    let schema = json!({
        "type": "object",
        "properties": {
            "total": {"type": "integer"},
            "items": {"type": "array", "items": {"$ref": "#/$defs/Ticket"}}
        }
    });
    let layout =
        derive("list", "List", &schema, false, Requested::Auto, &mut defs).expect("a view");
    assert_eq!(layout.kind, ViewKind::Table);
    assert_eq!(layout.path, ["items"]);
    assert_eq!(
        keys(&layout.fields),
        [
            "id",
            "status",
            "created_at",
            "url",
            "labels",
            "author",
            "comments"
        ]
    );
    assert_eq!(keys(&layout.extra), ["total"]);
    let kinds: Vec<Kind> = layout.fields.iter().map(|f| f.kind).collect();
    assert_eq!(
        kinds,
        [
            Kind::Id,
            Kind::Enum,
            Kind::DateTime,
            Kind::Uri,
            Kind::List,
            Kind::Object,
            Kind::Table
        ]
    );
    // Titles from `title`, else a short description, else the name made readable.
    assert_eq!(layout.fields[1].label, "State");
    assert_eq!(layout.fields[2].label, "When it was opened");
    assert_eq!(layout.fields[3].label, "Url");
    assert_eq!(keys(&layout.fields[6].fields), ["body", "author"]);
}

#[test]
fn a_wrapped_top_level_array_is_a_table_at_result() {
    let schema = json!({
        "type": "object",
        "properties": {"result": {"type": "array", "items": {"$ref": "#/$defs/Ticket"}}},
        "required": ["result"]
    });
    let layout = derive("t", "T", &schema, true, Requested::Auto, &mut defs).expect("a view");
    assert_eq!(layout.kind, ViewKind::Table);
    assert_eq!(layout.path, ["result"]);
    assert!(layout.extra.is_empty());
}

#[test]
fn an_object_is_a_card_with_its_nested_array_as_a_sub_table() {
    let layout = derive("t", "T", &ticket(), false, Requested::Auto, &mut defs).expect("a view");
    assert_eq!(layout.kind, ViewKind::Card);
    assert!(layout.path.is_empty());
    let comments = layout.fields.iter().find(|f| f.key == "comments");
    assert_eq!(comments.map(|f| f.kind), Some(Kind::Table));
}

#[test]
fn the_allowlist_can_ask_for_a_card_or_a_table() {
    let list = json!({"type": "object", "properties": {
        "data": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}}
    }});
    let card = derive("t", "T", &list, false, Requested::Card, &mut no_defs).expect("a card");
    assert_eq!(card.kind, ViewKind::Card);
    assert_eq!(card.fields[0].kind, Kind::Table);
    let plain = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    assert_eq!(
        derive("t", "T", &plain, false, Requested::Table, &mut no_defs),
        None
    );
}

#[test]
fn two_unnamed_lists_make_a_card_unless_a_table_is_asked_for() {
    let rows = json!({"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}});
    let schema = json!({"type": "object", "properties": {"left": rows, "right": rows}});
    assert_eq!(
        layout_of(&schema, false).map(|l| l.kind),
        Some(ViewKind::Card)
    );
    let table = derive("t", "T", &schema, false, Requested::Table, &mut no_defs).expect("a table");
    assert_eq!(table.path, ["left"]);
}

#[test]
fn a_list_beside_nested_objects_is_a_card() {
    let rows = json!({"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}});
    let config = json!({"type": "object", "properties": {
        "models": rows,
        "limits": {"type": "object", "properties": {"max": {"type": "integer"}}}
    }});
    assert_eq!(
        layout_of(&config, false).map(|l| l.kind),
        Some(ViewKind::Card)
    );
    let named =
        json!({"type": "object", "properties": {"name": {"type": "string"}, "members": rows}});
    assert_eq!(
        layout_of(&named, false).map(|l| l.kind),
        Some(ViewKind::Card)
    );
    let cursor =
        json!({"type": "object", "properties": {"events": rows, "cursor": {"type": "string"}}});
    assert_eq!(
        layout_of(&cursor, false).map(|l| l.kind),
        Some(ViewKind::Table)
    );
    let listing = json!({"type": "object", "properties": {
        "chats": rows,
        "total": {"type": "integer"},
        "meta": {"type": "object", "properties": {"next": {"type": "string"}}}
    }});
    let layout = layout_of(&listing, false).expect("a table");
    assert_eq!(layout.path, ["chats"]);
    assert_eq!(keys(&layout.extra), ["total", "meta"]);
}

#[test]
fn an_all_of_is_one_object_of_its_members_properties() {
    let schema = json!({"allOf": [
        {"$ref": "#/$defs/Ticket"},
        {"type": "object", "properties": {"due_on": {"type": "string", "format": "date"}}}
    ]});
    let layout = derive("t", "T", &schema, false, Requested::Auto, &mut defs).expect("a card");
    assert_eq!(layout.kind, ViewKind::Card);
    assert_eq!(layout.fields.len(), 8);
    assert_eq!(layout.fields[7].kind, Kind::Date);
}

#[test]
fn an_all_of_that_includes_itself_ends() {
    let mut resolve = |name: &str| {
        (name == "Loop").then(|| json!({"allOf": [{"$ref": "#/$defs/Loop"}, {"type": "object", "properties": {"a": {"type": "string"}}}]}))
    };
    let layout = derive(
        "t",
        "T",
        &json!({"$ref": "#/$defs/Loop"}),
        false,
        Requested::Auto,
        &mut resolve,
    );
    assert!(layout.is_some_and(|l| l.fields.iter().any(|f| f.key == "a")));
}

#[test]
fn nothing_to_show_is_no_view() {
    assert_eq!(layout_of(&json!({"type": "object"}), false), None);
    assert_eq!(layout_of(&json!({"$ref": "#/$defs/Missing"}), false), None);
    // A plain wrapped value is one line.
    let text = json!({"type": "object", "properties": {"result": {"type": "string"}}});
    let layout = layout_of(&text, true).expect("a card");
    assert_eq!(keys(&layout.fields), ["result"]);
    assert!(layout.path.is_empty());
}

#[test]
fn recursive_schemas_end_in_json() {
    let mut resolve = |name: &str| {
        (name == "Node").then(|| {
            json!({"type": "object", "properties": {
                "name": {"type": "string"},
                "child": {"$ref": "#/$defs/Node"}
            }})
        })
    };
    let layout = derive(
        "t",
        "T",
        &json!({"$ref": "#/$defs/Node"}),
        false,
        Requested::Auto,
        &mut resolve,
    )
    .expect("a card");
    let mut field = &layout.fields[1];
    let mut depth = 0;
    while field.kind == Kind::Object {
        field = &field.fields[1];
        depth += 1;
    }
    assert_eq!(field.kind, Kind::Json);
    assert!(depth <= 3);
}

#[test]
fn readable_names() {
    assert_eq!(layout::readable("created_at"), "Created at");
    assert_eq!(layout::readable("createdAt"), "Created at");
    assert_eq!(layout::readable("html-url"), "Html url");
    assert_eq!(layout::readable(""), "Value");
}

fn list_output(extra: Value) -> Value {
    let mut props = json!({"items": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}}});
    if let (Some(map), Value::Object(more)) = (props.as_object_mut(), extra) {
        map.extend(more);
    }
    json!({"type": "object", "properties": props})
}

fn paged(input: Value, output: Value) -> Option<Paging> {
    layout_of(&output, false)
        .expect("a table")
        .with_paging(&input, &output, false, &mut no_defs)
        .paging
}

#[test]
fn paging_comes_from_the_input_and_response_schemas() {
    let page_input = json!({"type": "object", "properties": {"page": {"type": "integer"}, "per_page": {"type": "integer"}}});
    let output =
        list_output(json!({"page": {"type": "integer"}, "total_pages": {"type": "integer"}}));
    let paging = paged(page_input, output).expect("paging");
    assert_eq!(paging.mode, PagingMode::Page);
    assert_eq!(paging.arg, "page");
    assert_eq!(paging.size.as_deref(), Some("per_page"));
    assert_eq!(paging.next, ["page"]);
    assert_eq!(paging.pages, ["total_pages"]);

    let cursor_input = json!({"type": "object", "properties": {"cursor": {"type": "string"}}});
    let output = list_output(json!({"meta": {"type": "object", "properties": {
        "next_cursor": {"type": ["string", "null"]}, "has_more": {"type": "boolean"}
    }}}));
    let paging = paged(cursor_input.clone(), output).expect("paging");
    assert_eq!(paging.mode, PagingMode::Cursor);
    assert_eq!(paging.next, ["meta", "next_cursor"]);
    assert_eq!(paging.more, ["meta", "has_more"]);
    // A cursor argument with no next cursor in the response cannot page.
    assert_eq!(paged(cursor_input, list_output(json!({}))), None);

    let offset_input = json!({"type": "object", "properties": {"offset": {"type": "integer"}, "limit": {"type": "integer"}}});
    let paging = paged(offset_input, list_output(json!({}))).expect("paging");
    assert_eq!(paging.mode, PagingMode::Offset);
    assert_eq!(paging.size.as_deref(), Some("limit"));

    let none = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    assert_eq!(paged(none, list_output(json!({}))), None);
}

const MARKUP: &str = "<img src=x onerror=alert(1)></script><!-- https://evil.example/x & \u{2028}";

#[test]
fn text_from_the_schema_never_reaches_the_markup() {
    let schema = json!({
        "type": "object",
        "title": MARKUP,
        "properties": {
            "items": {"type": "array", "items": {"type": "object", "properties": {
                "name": {"type": "string", "title": MARKUP, "description": MARKUP}
            }}}
        }
    });
    let layout = derive(
        MARKUP,
        MARKUP,
        &schema,
        false,
        Requested::Auto,
        &mut no_defs,
    )
    .expect("a view");
    let json = layout.to_json();
    assert!(json.contains(MARKUP.split('\u{2028}').next().unwrap_or_default()));
    let html = document(&json);
    for needle in [
        "<img",
        "</script><!--",
        "https://",
        "evil.example/",
        "\u{2028}",
    ] {
        assert!(!html.contains(needle), "{needle:?} in the document");
    }
    // The layout block reads back as the same JSON.
    let start = html
        .find("id=\"mcpgen-layout\">")
        .map(|i| i + 19)
        .unwrap_or_default();
    let end = html[start..]
        .find("</script>")
        .map(|i| start + i)
        .unwrap_or_default();
    let back: Value = serde_json::from_str(&html[start..end]).expect("JSON");
    assert_eq!(back, serde_json::from_str::<Value>(&json).expect("JSON"));
    // Everything else is the same for every view.
    let other = document("{}");
    assert_eq!(html[..start], other[..start]);
    assert_eq!(html[end..], other[other.len() - (html.len() - end)..]);
}

#[test]
fn the_document_is_self_contained_and_small() {
    let html = document("{}");
    for needle in [
        "http://",
        "https://",
        "src=",
        "href=",
        "innerHTML",
        "outerHTML",
        "eval(",
        "Function(",
        "fetch(",
        "XMLHttpRequest",
        "WebSocket",
        "import(",
        "insertAdjacentHTML",
        "document.write",
    ] {
        assert!(!html.contains(needle), "{needle} in the document");
    }
    assert!(html.len() <= 30 * 1024, "{} bytes", html.len());
    assert!(html.contains("default-src 'none'"));
}

#[test]
fn a_line_end_after_the_layout_is_not_part_of_the_document() {
    // A generated crate's `views/<tool>.json` ends with a line end; the document does not
    // carry it into the layout block.
    let json = r#"{"tool":"t","title":"T","kind":"card","path":[],"fields":[]}"#;
    assert_eq!(document(&format!("{json}\n")), document(json));
    assert!(document(json).contains(&format!(">{json}</script>")));
}

#[test]
fn the_layout_json_is_stable() {
    let layout =
        derive("list", "List", &ticket(), false, Requested::Auto, &mut defs).expect("a view");
    assert_eq!(layout.to_json(), layout.clone().to_json());
    let parsed: Value = serde_json::from_str(&layout.to_json()).expect("JSON");
    assert_eq!(parsed["kind"], "card");
    assert_eq!(parsed["fields"][2]["kind"], "datetime");
    assert_eq!(resource_uri("synaplan", "list"), "ui://synaplan/list");
}

#[test]
fn numbers_that_name_something_are_identifiers() {
    use super::layout::is_identifier;
    for key in [
        "id",
        "ID",
        "uid",
        "user_id",
        "user-id",
        "userId",
        "userID",
        "ticket2Id",
        "number",
        "orderNumber",
        "order_number",
        "phone_no",
    ] {
        assert!(is_identifier(key), "{key}");
    }
    for key in [
        "paid", "valid", "total", "count", "casino", "idle", "numbers", "Id", "é_ïd", "ñId", "",
    ] {
        assert_eq!(is_identifier(key), key == "Id", "{key}");
    }
    let schema = json!({"type": "object", "properties": {
        "id": {"type": "integer"},
        "comment_count": {"type": "integer"},
        "parentId": {"type": ["integer", "null"]},
        "ids": {"type": "array", "items": {"type": "integer"}},
        "scores": {"type": "array", "items": {"type": "number"}}
    }});
    let layout = layout_of(&schema, false).expect("a view");
    let kinds: Vec<Kind> = layout.fields.iter().map(|f| f.kind).collect();
    assert_eq!(
        kinds,
        [Kind::Id, Kind::Number, Kind::Id, Kind::List, Kind::List]
    );
    assert_eq!(layout.fields[3].fields[0].kind, Kind::Id);
    assert_eq!(layout.fields[4].fields[0].kind, Kind::Number);
}
