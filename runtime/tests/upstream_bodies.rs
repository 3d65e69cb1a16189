//! Request bodies on the wire: `Upstream::invoke` against a loopback server that records the
//! raw `Content-Type` and body bytes, for every body content type.

use crate::support::recording::{Recorded, Recording};
use mcpgen_runtime::{
    ArgBinding, BodyBinding, HttpBinding, Location, PropertyEncoding, ToolAnnotations, ToolDef,
    ToolResult,
};
use serde_json::{Map, Value, json};

// ---------------------------------------------------------------------------------------------
// The recording server.

type Server = Recording;

impl Server {
    /// Calls `tool` with `args`, expects success, and returns the one new request.
    async fn send(&self, tool: &ToolDef, args: Value) -> Recorded {
        let before = self.requests().len();
        let result = self.upstream().invoke(tool, args_of(args)).await;
        assert!(!result.is_error, "{result:?}");
        let requests = self.requests();
        assert_eq!(requests.len(), before + 1, "{requests:#?}");
        requests.last().unwrap().clone()
    }
}

// ---------------------------------------------------------------------------------------------
// Tool tables.

const fn arg(name: &'static str, location: Location, required: bool) -> ArgBinding {
    ArgBinding {
        arg: name,
        wire: name,
        location,
        required,
        style: None,
        explode: None,
        allow_reserved: false,
    }
}

const fn tool(content_type: &'static str, required: bool, args: &'static [ArgBinding]) -> ToolDef {
    encoded_tool(content_type, required, args, &[])
}

/// A tool whose body has the per-property `encoding`.
const fn encoded_tool(
    content_type: &'static str,
    required: bool,
    args: &'static [ArgBinding],
    encoding: &'static [PropertyEncoding],
) -> ToolDef {
    ToolDef {
        name: "test_tool",
        title: None,
        description: "a test tool",
        input_schema: r#"{"type":"object"}"#,
        output_schema: None,
        full_input_schema: None,
        full_output_schema: None,
        full_defs: None,
        documented_output_schema: None,
        wrap_output: false,
        access: mcpgen_runtime::Access::Write,
        annotations: ToolAnnotations {
            read_only_hint: None,
            destructive_hint: None,
            idempotent_hint: None,
            open_world_hint: None,
        },
        confirm: false,
        required_scope: None,
        plugin: None,
        http: Some(HttpBinding {
            method: "POST",
            path: "/body",
            operation_id: "op",
            args,
            body: Some(BodyBinding {
                content_type,
                required,
                encoding,
            }),
            security: &[],
            server_url: None,
            task: false,
            cancel: &[],
        }),
        declaration: None,
        view: None,
    }
}

const WHOLE: &[ArgBinding] = &[arg("body", Location::Body, true)];
const OPTIONAL_WHOLE: &[ArgBinding] = &[arg("body", Location::Body, false)];

const JSON_TOOL: ToolDef = tool("application/json", true, WHOLE);
const JSON_OPTIONAL_TOOL: ToolDef = tool("application/json", false, OPTIONAL_WHOLE);
const VND_JSON_TOOL: ToolDef = tool("application/vnd.api+json", true, WHOLE);
const JSON_FIELDS_TOOL: ToolDef = tool(
    "application/json",
    true,
    &[
        arg("name", Location::BodyField, true),
        arg("note", Location::BodyField, false),
    ],
);

const FORM_FIELDS: &[ArgBinding] = &[
    arg("amount", Location::BodyField, true),
    arg("description", Location::BodyField, false),
    arg("metadata", Location::BodyField, false),
    arg("expand", Location::BodyField, false),
    arg("items", Location::BodyField, false),
    arg("capture", Location::BodyField, false),
    arg("livemode", Location::BodyField, false),
    arg("nothing", Location::BodyField, false),
];
const FORM_TOOL: ToolDef = tool("application/x-www-form-urlencoded", true, FORM_FIELDS);
const FORM_WHOLE_TOOL: ToolDef = tool("application/x-www-form-urlencoded", true, WHOLE);

const MULTIPART_TOOL: ToolDef = tool(
    "multipart/form-data",
    true,
    &[
        ArgBinding {
            arg: "files",
            wire: "files[]",
            ..arg("", Location::BodyField, true)
        },
        arg("purpose", Location::BodyField, true),
        arg("options", Location::BodyField, false),
    ],
);
const MULTIPART_WHOLE_TOOL: ToolDef = tool("multipart/form-data", true, WHOLE);

const TEXT_TOOL: ToolDef = tool("text/plain", true, WHOLE);
const CSV_TOOL: ToolDef = tool("text/csv; charset=utf-8", true, WHOLE);
const OCTET_TOOL: ToolDef = tool("application/octet-stream", true, WHOLE);
const IMAGE_ANY_TOOL: ToolDef = tool("image/*", true, WHOLE);

/// An encoding for `property` that sets nothing.
const fn enc(property: &'static str) -> PropertyEncoding {
    PropertyEncoding {
        property,
        content_type: None,
        style: None,
        explode: None,
        allow_reserved: false,
    }
}

const STYLED_FORM_TOOL: ToolDef = encoded_tool(
    "application/x-www-form-urlencoded",
    true,
    &[
        arg("tags", Location::BodyField, false),
        arg("ids", Location::BodyField, false),
        arg("words", Location::BodyField, false),
        arg("pipes", Location::BodyField, false),
        arg("filter", Location::BodyField, false),
        arg("point", Location::BodyField, false),
        arg("redirect", Location::BodyField, false),
        arg("meta", Location::BodyField, false),
        arg("gone", Location::BodyField, false),
        arg("nested", Location::BodyField, false),
    ],
    &[
        PropertyEncoding {
            style: Some("form"),
            explode: Some(false),
            ..enc("tags")
        },
        PropertyEncoding {
            explode: Some(true),
            ..enc("ids")
        },
        PropertyEncoding {
            style: Some("spaceDelimited"),
            ..enc("words")
        },
        PropertyEncoding {
            style: Some("pipeDelimited"),
            ..enc("pipes")
        },
        PropertyEncoding {
            style: Some("deepObject"),
            explode: Some(true),
            ..enc("filter")
        },
        PropertyEncoding {
            style: Some("form"),
            ..enc("point")
        },
        PropertyEncoding {
            allow_reserved: true,
            ..enc("redirect")
        },
        PropertyEncoding {
            content_type: Some("application/json"),
            ..enc("meta")
        },
        PropertyEncoding {
            explode: Some(false),
            ..enc("gone")
        },
    ],
);

const ENCODED_MULTIPART_TOOL: ToolDef = encoded_tool(
    "multipart/form-data",
    true,
    &[
        arg("profile", Location::BodyField, false),
        arg("avatar", Location::BodyField, false),
        arg("doc", Location::BodyField, false),
        arg("raw", Location::BodyField, false),
        arg("note", Location::BodyField, false),
        arg("count", Location::BodyField, false),
        arg("tags", Location::BodyField, false),
        arg("ids", Location::BodyField, false),
        arg("where", Location::BodyField, false),
        arg("plain", Location::BodyField, false),
    ],
    &[
        PropertyEncoding {
            content_type: Some("application/vnd.profile+json"),
            ..enc("profile")
        },
        PropertyEncoding {
            content_type: Some("image/png, image/jpeg"),
            ..enc("avatar")
        },
        PropertyEncoding {
            content_type: Some("application/pdf"),
            ..enc("doc")
        },
        PropertyEncoding {
            content_type: Some("image/*, application/octet-stream"),
            ..enc("raw")
        },
        PropertyEncoding {
            content_type: Some("text/markdown; charset=utf-8"),
            ..enc("note")
        },
        PropertyEncoding {
            content_type: Some("text/plain"),
            ..enc("count")
        },
        PropertyEncoding {
            style: Some("form"),
            explode: Some(false),
            content_type: Some("application/json"),
            ..enc("tags")
        },
        PropertyEncoding {
            explode: Some(true),
            ..enc("ids")
        },
        PropertyEncoding {
            style: Some("deepObject"),
            ..enc("where")
        },
    ],
);

fn args_of(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("arguments must be an object, got {other}"),
    }
}

#[track_caller]
fn assert_error_containing(result: &ToolResult, needles: &[&str]) {
    assert!(result.is_error, "expected an error result, got {result:?}");
    let text = result.joined_text();
    for needle in needles {
        assert!(
            text.contains(needle),
            "`{needle}` not in error text: {text}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// A small multipart/form-data parser for assertions.

#[derive(Debug, PartialEq, Eq)]
struct Part {
    /// Header lines in order, as sent.
    headers: Vec<String>,
    body: Vec<u8>,
}

/// Splits a multipart body by the boundary named in `content_type`, checking the framing.
fn parse_multipart(content_type: &str, body: &[u8]) -> Vec<Part> {
    let (essence, boundary) = content_type
        .split_once("; boundary=")
        .expect("a boundary parameter");
    assert_eq!(essence, "multipart/form-data");
    assert!(
        !boundary.is_empty() && boundary.len() <= 70,
        "RFC 2046 limits boundaries to 1-70 characters: {boundary}"
    );
    let delimiter = format!("--{boundary}");
    let close = format!("{delimiter}--\r\n");
    assert!(
        body.ends_with(close.as_bytes()),
        "body does not end with the close delimiter"
    );
    let body = &body[..body.len() - close.len()];
    let mut parts = Vec::new();
    let mut rest = body;
    let opener = format!("{delimiter}\r\n");
    let separator = format!("\r\n{delimiter}\r\n");
    assert!(rest.starts_with(opener.as_bytes()) || rest.is_empty());
    if rest.is_empty() {
        return parts;
    }
    rest = &rest[opener.len()..];
    // The last part ends with CRLF before the close delimiter.
    assert!(rest.ends_with(b"\r\n"));
    rest = &rest[..rest.len() - 2];
    for raw in split_bytes(rest, separator.as_bytes()) {
        let end = find(raw, b"\r\n\r\n").expect("a blank line after part headers");
        let headers = std::str::from_utf8(&raw[..end])
            .unwrap()
            .split("\r\n")
            .map(str::to_owned)
            .collect();
        parts.push(Part {
            headers,
            body: raw[end + 4..].to_vec(),
        });
    }
    parts
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn split_bytes<'a>(mut bytes: &'a [u8], separator: &[u8]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    while let Some(at) = find(bytes, separator) {
        out.push(&bytes[..at]);
        bytes = &bytes[at + separator.len()..];
    }
    out.push(bytes);
    out
}

fn part(headers: &[&str], body: &[u8]) -> Part {
    Part {
        headers: headers.iter().map(|h| (*h).to_owned()).collect(),
        body: body.to_vec(),
    }
}

// ---------------------------------------------------------------------------------------------
// JSON.

#[tokio::test(flavor = "multi_thread")]
async fn json_bodies_of_every_kind_are_encoded_as_json() {
    let server = Server::start().await;
    for (value, wire) in [
        (
            json!({"z": 1, "a": {"b": [true, null]}}),
            r#"{"z":1,"a":{"b":[true,null]}}"#,
        ),
        (
            json!([1, "two", null, {"x": 3}]),
            r#"[1,"two",null,{"x":3}]"#,
        ),
        (json!("a \"quoted\" string\n"), r#""a \"quoted\" string\n""#),
        (json!(-12.5), "-12.5"),
        (json!(0), "0"),
        (json!(true), "true"),
        (json!(false), "false"),
        (json!(""), r#""""#),
        (json!([]), "[]"),
        (json!({}), "{}"),
    ] {
        let request = server.send(&JSON_TOOL, json!({"body": value})).await;
        assert_eq!(request.content_type(), Some("application/json"));
        assert_eq!(String::from_utf8(request.body).unwrap(), wire);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn plus_json_types_are_json_and_keep_their_content_type() {
    let server = Server::start().await;
    let request = server
        .send(&VND_JSON_TOOL, json!({"body": {"data": {"type": "x"}}}))
        .await;
    assert_eq!(request.content_type(), Some("application/vnd.api+json"));
    assert_eq!(request.body, br#"{"data":{"type":"x"}}"#);
}

#[tokio::test(flavor = "multi_thread")]
async fn json_null_fields_are_sent_and_a_null_whole_body_is_not() {
    let server = Server::start().await;
    let request = server
        .send(&JSON_FIELDS_TOOL, json!({"name": "n", "note": null}))
        .await;
    assert_eq!(request.body, br#"{"name":"n","note":null}"#);

    // `null` for the whole body means "not given", as for every other argument.
    let request = server
        .send(&JSON_OPTIONAL_TOOL, json!({"body": null}))
        .await;
    assert_eq!(request.content_type(), None);
    assert!(request.body.is_empty());
    let result = server
        .upstream()
        .invoke(&JSON_TOOL, args_of(json!({"body": null})))
        .await;
    assert_error_containing(&result, &["missing required argument `body`"]);
}

// ---------------------------------------------------------------------------------------------
// application/x-www-form-urlencoded.

#[tokio::test(flavor = "multi_thread")]
async fn form_bodies_use_brackets_and_indexed_arrays() {
    let server = Server::start().await;
    let request = server
        .send(
            &FORM_TOOL,
            json!({
                "amount": 2000,
                "description": "tea & cake = 2 items, 100% nice ü+",
                "metadata": {"order_id": "6735", "nested": {"deep key": "v"}, "gone": null},
                "expand": ["customer", "invoice.subscription"],
                "items": [{"price": "p_1", "quantity": 2}, {"price": "p_2", "tags": ["x"]}],
                "capture": false,
                "livemode": true,
                "nothing": null,
            }),
        )
        .await;
    assert_eq!(
        request.content_type(),
        Some("application/x-www-form-urlencoded")
    );
    let expected = [
        "amount=2000",
        "description=tea+%26+cake+%3D+2+items%2C+100%25+nice+%C3%BC%2B",
        "metadata[order_id]=6735",
        "metadata[nested][deep+key]=v",
        "expand[0]=customer",
        "expand[1]=invoice.subscription",
        "items[0][price]=p_1",
        "items[0][quantity]=2",
        "items[1][price]=p_2",
        "items[1][tags][0]=x",
        "capture=false",
        "livemode=true",
    ]
    .join("&");
    assert_eq!(String::from_utf8(request.body).unwrap(), expected);
}

/// The `encoding` object's `style`, `explode`, `allowReserved` and JSON `contentType` per form
/// property; a property without an encoding keeps the default bracket convention.
#[tokio::test(flavor = "multi_thread")]
async fn form_body_honours_per_property_style_explode_and_allow_reserved() {
    let server = Server::start().await;
    let request = server
        .send(
            &STYLED_FORM_TOOL,
            json!({
                "tags": ["a b", "c,d"],
                "ids": [1, 2],
                "words": ["x", "y z"],
                "pipes": ["p", "q"],
                "filter": {"state": "open", "labels": ["bug", "ui"], "owner": {"login": "o&k"}},
                "point": {"x": 1, "y": 2},
                "redirect": "https://x.test/a b?c=d&e+f#g",
                "meta": {"a": [1]},
                "gone": null,
                "nested": {"a": [1]},
            }),
        )
        .await;
    assert_eq!(
        request.content_type(),
        Some("application/x-www-form-urlencoded")
    );
    let expected = [
        "tags=a+b,c%2Cd",
        "ids=1",
        "ids=2",
        "words=x+y+z",
        "pipes=p%7Cq",
        "filter[state]=open",
        "filter[labels][0]=bug",
        "filter[labels][1]=ui",
        "filter[owner][login]=o%26k",
        "x=1",
        "y=2",
        "redirect=https://x.test/a+b?c=d%26e%2Bf#g",
        "meta=%7B%22a%22%3A%5B1%5D%7D",
        "nested[a][0]=1",
    ]
    .join("&");
    assert_eq!(String::from_utf8(request.body).unwrap(), expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn form_body_from_a_whole_object_argument_encodes_names_too() {
    let server = Server::start().await;
    let request = server
        .send(
            &FORM_WHOLE_TOOL,
            json!({"body": {"a b": "1 2", "x[y]": "*-._~", "e": [], "o": {}, "f": 1.5}}),
        )
        .await;
    assert_eq!(
        String::from_utf8(request.body).unwrap(),
        "a+b=1+2&x%5By%5D=*-._%7E&f=1.5"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn form_body_that_is_not_an_object_is_an_error() {
    let server = Server::start().await;
    let result = server
        .upstream()
        .invoke(&FORM_WHOLE_TOOL, args_of(json!({"body": ["a"]})))
        .await;
    assert_error_containing(
        &result,
        &["argument `body`", "must be an object", "an array"],
    );
    assert!(server.requests().is_empty());
}

// ---------------------------------------------------------------------------------------------
// multipart/form-data.

#[tokio::test(flavor = "multi_thread")]
async fn multipart_with_two_files_and_text_fields() {
    let server = Server::start().await;
    let request = server
        .send(
            &MULTIPART_TOOL,
            json!({
                "files": [
                    "data:image/png;base64,iVBORw0KGgo=",
                    {"data": "AAEC/w==", "filename": "report \"v2\".bin",
                     "content_type": "application/x-report"},
                ],
                "purpose": "fine-tune",
                "options": {"n": 2, "tags": ["a"]},
            }),
        )
        .await;
    let content_type = request.content_type().unwrap();
    assert!(
        content_type.starts_with("multipart/form-data; boundary="),
        "{content_type}"
    );
    let parts = parse_multipart(content_type, &request.body);
    assert_eq!(
        parts,
        [
            part(
                &[
                    r#"Content-Disposition: form-data; name="files[]"; filename="file.png""#,
                    "Content-Type: image/png",
                ],
                b"\x89PNG\r\n\x1a\n",
            ),
            part(
                &[
                    r#"Content-Disposition: form-data; name="files[]"; filename="report %22v2%22.bin""#,
                    "Content-Type: application/x-report",
                ],
                &[0, 1, 2, 255],
            ),
            part(
                &[r#"Content-Disposition: form-data; name="purpose""#],
                b"fine-tune",
            ),
            part(
                &[
                    r#"Content-Disposition: form-data; name="options""#,
                    "Content-Type: application/json",
                ],
                br#"{"n":2,"tags":["a"]}"#,
            ),
        ]
    );
}

/// The `encoding` object's `contentType` per multipart part (JSON, text, declared file
/// types) and `style`/`explode`, which override `contentType` (OpenAPI 3.1.1).
#[tokio::test(flavor = "multi_thread")]
async fn multipart_parts_honour_the_encoding_object() {
    let server = Server::start().await;
    let request = server
        .send(
            &ENCODED_MULTIPART_TOOL,
            json!({
                "profile": ["en", "fr"],
                "avatar": "data:image/jpeg;name=me.jpg;base64,/9j/",
                "doc": {"data": "data:text/plain;base64,JVBERg==", "filename": "a.pdf"},
                "raw": "AAE=",
                "note": "# Title",
                "count": 3,
                "tags": ["a", "b c"],
                "ids": [1, 2],
                "where": {"state": "open", "labels": ["x"]},
                "plain": "text",
            }),
        )
        .await;
    let parts = parse_multipart(request.content_type().unwrap(), &request.body);
    assert_eq!(
        parts,
        [
            part(
                &[
                    r#"Content-Disposition: form-data; name="profile""#,
                    "Content-Type: application/vnd.profile+json",
                ],
                br#"["en","fr"]"#,
            ),
            part(
                &[
                    r#"Content-Disposition: form-data; name="avatar"; filename="me.jpg""#,
                    "Content-Type: image/jpeg",
                ],
                &[0xff, 0xd8, 0xff],
            ),
            part(
                &[
                    r#"Content-Disposition: form-data; name="doc"; filename="a.pdf""#,
                    "Content-Type: application/pdf",
                ],
                b"%PDF",
            ),
            part(
                &[
                    r#"Content-Disposition: form-data; name="raw"; filename="file.bin""#,
                    "Content-Type: application/octet-stream",
                ],
                &[0, 1],
            ),
            part(
                &[
                    r#"Content-Disposition: form-data; name="note""#,
                    "Content-Type: text/markdown; charset=utf-8",
                ],
                b"# Title",
            ),
            part(
                &[
                    r#"Content-Disposition: form-data; name="count""#,
                    "Content-Type: text/plain",
                ],
                b"3",
            ),
            part(
                &[r#"Content-Disposition: form-data; name="tags""#],
                b"a,b c"
            ),
            part(&[r#"Content-Disposition: form-data; name="ids""#], b"1"),
            part(&[r#"Content-Disposition: form-data; name="ids""#], b"2"),
            part(
                &[r#"Content-Disposition: form-data; name="where[state]""#],
                b"open",
            ),
            part(
                &[r#"Content-Disposition: form-data; name="where[labels][0]""#],
                b"x",
            ),
            part(
                &[r#"Content-Disposition: form-data; name="plain""#],
                b"text"
            ),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn multipart_values_that_do_not_fit_the_declared_type_are_errors() {
    let server = Server::start().await;
    let upstream = server.upstream();
    let result = upstream
        .invoke(
            &ENCODED_MULTIPART_TOOL,
            args_of(json!({"note": {"not": "text"}})),
        )
        .await;
    assert_error_containing(
        &result,
        &["argument `note` must be a string, number or boolean for a \
             `text/markdown; charset=utf-8` part, not an object"],
    );
    let result = upstream
        .invoke(&ENCODED_MULTIPART_TOOL, args_of(json!({"raw": "a*b"})))
        .await;
    assert_error_containing(
        &result,
        &["argument `raw` must be base64 or a `data:` URI for a `application/octet-stream` part"],
    );
    assert!(server.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn multipart_boundaries_differ_per_request() {
    let server = Server::start().await;
    let body = json!({"body": {"a": "1"}});
    let first = server.send(&MULTIPART_WHOLE_TOOL, body.clone()).await;
    let second = server.send(&MULTIPART_WHOLE_TOOL, body).await;
    assert_ne!(first.content_type(), second.content_type());
}

#[tokio::test(flavor = "multi_thread")]
async fn multipart_names_scalars_arrays_and_named_data_uris() {
    let server = Server::start().await;
    let request = server
        .send(
            &MULTIPART_WHOLE_TOOL,
            json!({"body": {
                "we\"ird\r\nname": true,
                "ids": [1, "two"],
                "doc": "data:text/plain;name=notes.txt,hello%20world",
                "plain": "data: not a URI, just text",
                "missing": null,
            }}),
        )
        .await;
    let parts = parse_multipart(request.content_type().unwrap(), &request.body);
    assert_eq!(
        parts,
        [
            part(
                &[r#"Content-Disposition: form-data; name="we%22ird%0D%0Aname""#],
                b"true",
            ),
            part(&[r#"Content-Disposition: form-data; name="ids""#], b"1"),
            part(&[r#"Content-Disposition: form-data; name="ids""#], b"two"),
            part(
                &[
                    r#"Content-Disposition: form-data; name="doc"; filename="notes.txt""#,
                    "Content-Type: text/plain",
                ],
                b"hello world",
            ),
            part(
                &[r#"Content-Disposition: form-data; name="plain""#],
                b"data: not a URI, just text",
            ),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_files_in_multipart_are_errors_naming_the_argument() {
    let server = Server::start().await;
    let upstream = server.upstream();
    let result = upstream
        .invoke(
            &MULTIPART_TOOL,
            args_of(json!({"purpose": "p", "files": ["data:image/png;base64,@@@"]})),
        )
        .await;
    assert_error_containing(
        &result,
        &[
            "argument `files` item 0",
            "not a valid `data:` URI",
            "base64",
        ],
    );
    let result = upstream
        .invoke(
            &MULTIPART_TOOL,
            args_of(json!({"purpose": "p", "files": {"data": "not base64!", "filename": "a"}})),
        )
        .await;
    assert_error_containing(&result, &["argument `files`", "not valid base64"]);
    let result = upstream
        .invoke(
            &MULTIPART_TOOL,
            args_of(json!({"purpose": "p", "files": "data:image/png;base64"})),
        )
        .await;
    assert_error_containing(&result, &["argument `files`", "has no `,`"]);
    let result = upstream
        .invoke(
            &MULTIPART_WHOLE_TOOL,
            args_of(json!({"body": {"f": {"data": "AA==", "filename": 3}}})),
        )
        .await;
    assert_error_containing(
        &result,
        &[
            "argument `body` (property `f`)",
            "`filename`",
            "must be a string",
        ],
    );
    assert!(server.requests().is_empty());
}

// ---------------------------------------------------------------------------------------------
// Text and binary.

#[tokio::test(flavor = "multi_thread")]
async fn text_bodies_are_sent_as_utf8() {
    let server = Server::start().await;
    let request = server
        .send(&TEXT_TOOL, json!({"body": "grüße\r\n\"quoted\" & more"}))
        .await;
    assert_eq!(request.content_type(), Some("text/plain"));
    assert_eq!(request.body, "grüße\r\n\"quoted\" & more".as_bytes());
    let request = server.send(&CSV_TOOL, json!({"body": "a,b\n1,2\n"})).await;
    assert_eq!(request.content_type(), Some("text/csv; charset=utf-8"));
    assert_eq!(request.body, b"a,b\n1,2\n");
    let request = server.send(&TEXT_TOOL, json!({"body": 42})).await;
    assert_eq!(request.body, b"42");
}

#[tokio::test(flavor = "multi_thread")]
async fn object_for_a_text_body_is_an_error() {
    let server = Server::start().await;
    let result = server
        .upstream()
        .invoke(&TEXT_TOOL, args_of(json!({"body": {"not": "text"}})))
        .await;
    assert_error_containing(
        &result,
        &[
            "argument `body`",
            "must be a string",
            "`text/plain`",
            "an object",
        ],
    );
    assert!(server.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn octet_stream_bodies_are_decoded_from_base64_or_data_uris() {
    let server = Server::start().await;
    for value in [
        json!("AAEC/f7/"),
        json!("AAEC_f7_"),
        json!("AAEC\n/f7/"),
        json!("data:application/octet-stream;base64,AAEC/f7/"),
        json!({"data": "AAEC/f7/", "filename": "x.bin"}),
    ] {
        let request = server.send(&OCTET_TOOL, json!({"body": value})).await;
        assert_eq!(request.content_type(), Some("application/octet-stream"));
        assert_eq!(request.body, [0, 1, 2, 0xfd, 0xfe, 0xff]);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn wildcard_binary_types_send_the_given_media_type() {
    let server = Server::start().await;
    let request = server
        .send(
            &IMAGE_ANY_TOOL,
            json!({"body": "data:image/gif;base64,R0lG"}),
        )
        .await;
    assert_eq!(request.content_type(), Some("image/gif"));
    assert_eq!(request.body, b"GIF");
    let request = server.send(&IMAGE_ANY_TOOL, json!({"body": "R0lG"})).await;
    assert_eq!(request.content_type(), Some("application/octet-stream"));
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_binary_bodies_are_errors_naming_the_argument() {
    let server = Server::start().await;
    let upstream = server.upstream();
    for (value, needles) in [
        (
            json!("not base64!"),
            &["argument `body`", "must be base64 or a `data:` URI"][..],
        ),
        (
            json!("data:application/pdf;base64,%%%"),
            &["argument `body`", "not a valid `data:` URI"][..],
        ),
        (json!("data:x"), &["argument `body`", "has no `,`"][..]),
        (
            json!({"name": "x"}),
            &["argument `body`", "file object", "not an object"][..],
        ),
        (json!(7), &["argument `body`", "not a number"][..]),
    ] {
        let result = upstream
            .invoke(&OCTET_TOOL, args_of(json!({"body": value})))
            .await;
        assert_error_containing(&result, needles);
    }
    assert!(server.requests().is_empty());
}

// ---------------------------------------------------------------------------------------------
// A Stripe-shaped form body: the bracket convention form-encoded APIs read.

/// How Stripe's spec encodes its nested form properties.
const fn deep(property: &'static str) -> PropertyEncoding {
    PropertyEncoding {
        style: Some("deepObject"),
        explode: Some(true),
        ..enc(property)
    }
}

const CHECKOUT_ARGS: &[ArgBinding] = &[
    arg("line_items", Location::BodyField, false),
    arg("mode", Location::BodyField, false),
    arg("expand", Location::BodyField, false),
    arg("metadata", Location::BodyField, false),
    arg("discounts", Location::BodyField, false),
    arg("customer", Location::BodyField, false),
];

/// `POST /v1/checkout/sessions` as Stripe's spec declares it: `deepObject` for the arrays and
/// objects.
const CHECKOUT_TOOL: ToolDef = encoded_tool(
    "application/x-www-form-urlencoded",
    false,
    CHECKOUT_ARGS,
    &[
        deep("line_items"),
        deep("expand"),
        deep("metadata"),
        deep("discounts"),
    ],
);

/// The same operation from a spec without an `encoding` object.
const CHECKOUT_PLAIN_TOOL: ToolDef =
    tool("application/x-www-form-urlencoded", false, CHECKOUT_ARGS);

fn checkout_session() -> Value {
    json!({
        "line_items": [
            {"price": "price_1", "quantity": 2},
            {
                "price": "price_2",
                "quantity": 1,
                "adjustable_quantity": {"enabled": true, "minimum": 1, "maximum": 10},
            },
        ],
        "mode": "payment",
        "expand": ["line_items", "payment_intent.latest_charge"],
        "metadata": {"order": "6735", "note": "gift wrap & card", "coupon": null},
        "discounts": [],
        "customer": null,
    })
}

/// Arrays are indexed (`[0]`), arrays of objects and nested objects continue the brackets,
/// booleans are `true`/`false`, and the brackets are written literally, as Stripe's client
/// libraries send them. `null` (`customer`, `metadata[coupon]`) and the empty array
/// (`discounts`) send nothing. With or without the spec's `deepObject` encoding, the bytes are
/// the same.
#[tokio::test(flavor = "multi_thread")]
async fn stripe_checkout_session_form_body_uses_indexed_brackets() {
    let server = Server::start().await;
    let expected = "line_items[0][price]=price_1&line_items[0][quantity]=2\
        &line_items[1][price]=price_2&line_items[1][quantity]=1\
        &line_items[1][adjustable_quantity][enabled]=true\
        &line_items[1][adjustable_quantity][minimum]=1\
        &line_items[1][adjustable_quantity][maximum]=10\
        &mode=payment\
        &expand[0]=line_items&expand[1]=payment_intent.latest_charge\
        &metadata[order]=6735&metadata[note]=gift+wrap+%26+card";
    for tool in [&CHECKOUT_TOOL, &CHECKOUT_PLAIN_TOOL] {
        let request = server.send(tool, checkout_session()).await;
        assert_eq!(request.method, "POST");
        assert_eq!(
            request.content_type(),
            Some("application/x-www-form-urlencoded")
        );
        assert_eq!(String::from_utf8(request.body).unwrap(), expected);
    }
}

/// A `null` array item is left out and the items after it are numbered without a gap, so
/// parsers that read indices as positions see a dense array.
#[tokio::test(flavor = "multi_thread")]
async fn form_body_null_array_items_leave_no_gap() {
    let server = Server::start().await;
    for tool in [&CHECKOUT_TOOL, &CHECKOUT_PLAIN_TOOL] {
        let request = server
            .send(
                tool,
                json!({
                    "expand": ["a", null, "b"],
                    "line_items": [null, {"price": "p", "tax_rates": []}],
                    "metadata": {},
                }),
            )
            .await;
        assert_eq!(
            String::from_utf8(request.body).unwrap(),
            "line_items[0][price]=p&expand[0]=a&expand[1]=b"
        );
    }
}
