//! `Upstream::invoke` against a real HTTP server on loopback: the exact request on the wire,
//! and how each kind of response maps to a tool result.

use std::time::Duration;

use crate::support::recording::{Recording, Routes};
use axum::body::Body;
use axum::http::{HeaderName, HeaderValue};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use mcpgen_runtime::{
    ArgBinding, BodyBinding, CallContext, CallerCredential, Content, Credential, ForwardedHeaders,
    HttpBinding, Invoked, Location, SecurityScheme, SecuritySchemeKind, ToolAnnotations, ToolDef,
    ToolResult, Upstream, UpstreamConfig,
};
use serde_json::{Map, Value, json};

// ---------------------------------------------------------------------------------------------
// The recording server.

type Server = Recording<Answers>;

struct Answers;

impl Routes for Answers {
    async fn answer(path: &str) -> Response {
        answer(path).await
    }
}

/// The route table.
async fn answer(path: &str) -> Response {
    let json = |status: StatusCode, body: String| {
        (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
    };
    match path {
        "/no-content" => StatusCode::NO_CONTENT.into_response(),
        "/missing" => (StatusCode::NOT_FOUND, "item 42 does not exist").into_response(),
        "/broken" => (StatusCode::INTERNAL_SERVER_ERROR, "e".repeat(10_000)).into_response(),
        "/array" => json(StatusCode::OK, "[1,2,3]".to_owned()),
        "/object" => json(StatusCode::OK, r#"{"id":7,"name":"x"}"#.to_owned()),
        "/untyped-json" => Response::new(Body::from(r#"{"ok":true}"#)),
        "/text" => (StatusCode::OK, "plain words").into_response(),
        "/big-text" => (StatusCode::OK, "x".repeat(1000)).into_response(),
        "/big-json" => json(StatusCode::OK, format!("[{}1]", "1,".repeat(500))),
        "/slow" => {
            tokio::time::sleep(Duration::from_secs(5)).await;
            StatusCode::OK.into_response()
        }
        _ => json(StatusCode::OK, r#"{"ok":true}"#.to_owned()),
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

const fn http(
    method: &'static str,
    path: &'static str,
    args: &'static [ArgBinding],
) -> HttpBinding {
    HttpBinding {
        method,
        path,
        operation_id: "op",
        args,
        body: None,
        security: &[],
        server_url: None,
        task: false,
        cancel: &[],
    }
}

const fn tool(http: HttpBinding) -> ToolDef {
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
        http: Some(http),
        declaration: None,
        view: None,
    }
}

const fn with_body(
    mut http: HttpBinding,
    content_type: &'static str,
    required: bool,
) -> HttpBinding {
    http.body = Some(BodyBinding {
        content_type,
        required,
        encoding: &[],
    });
    http
}

/// `GET {path}` with no arguments.
const fn get(path: &'static str) -> ToolDef {
    tool(http("GET", path, &[]))
}

const PATH_TOOL: ToolDef = tool(http(
    "GET",
    "/items/{id}/files/{name}",
    &[
        arg("id", Location::Path, true),
        arg("name", Location::Path, true),
    ],
));

const QUERY_TOOL: ToolDef = tool(http(
    "GET",
    "/search",
    &[
        arg("tags", Location::Query, false),
        ArgBinding {
            explode: Some(false),
            ..arg("ids", Location::Query, false)
        },
        arg("q", Location::Query, false),
        arg("limit", Location::Query, false),
        arg("page", Location::Query, false),
        arg("filter", Location::Query, false),
    ],
));

const HEADER_TOOL: ToolDef = tool(http(
    "GET",
    "/headers",
    &[
        ArgBinding {
            arg: "request_id",
            wire: "X-Request-Id",
            ..arg("", Location::Header, true)
        },
        ArgBinding {
            arg: "langs",
            wire: "X-Langs",
            ..arg("", Location::Header, false)
        },
    ],
));

const FIELDS_TOOL: ToolDef = tool(with_body(
    http(
        "POST",
        "/messages",
        &[
            arg("text", Location::BodyField, true),
            ArgBinding {
                arg: "chat_id",
                wire: "chatId",
                ..arg("", Location::BodyField, true)
            },
            arg("silent", Location::BodyField, false),
        ],
    ),
    "application/json",
    true,
));

const BODY_TOOL: ToolDef = tool(with_body(
    http("PUT", "/value", &[arg("body", Location::Body, true)]),
    "application/json",
    true,
));

const TEXT_BODY_TOOL: ToolDef = tool(with_body(
    http("POST", "/notes", &[arg("body", Location::Body, true)]),
    "text/plain; charset=utf-8",
    true,
));

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("arguments must be an object, got {other}"),
    }
}

fn text_of(result: &ToolResult) -> String {
    result.joined_text()
}

#[track_caller]
fn assert_error_containing(result: &ToolResult, needles: &[&str]) {
    assert!(result.is_error, "expected an error result, got {result:?}");
    let text = text_of(result);
    for needle in needles {
        assert!(
            text.contains(needle),
            "`{needle}` not in error text: {text}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Requests on the wire.

#[tokio::test(flavor = "multi_thread")]
async fn path_parameters_are_percent_encoded_as_segments() {
    let server = Server::start().await;
    let result = server
        .upstream()
        .invoke(&PATH_TOOL, args(json!({"id": "a b/c?d#%", "name": "ü"})))
        .await;
    assert!(!result.is_error, "{result:?}");
    let request = server.only_request();
    assert_eq!(request.method, "GET");
    assert_eq!(request.target, "/items/a%20b%2Fc%3Fd%23%25/files/%C3%BC");
}

#[tokio::test(flavor = "multi_thread")]
async fn path_scalars_arrays_and_objects_use_simple_style() {
    let server = Server::start().await;
    let upstream = server.upstream();
    for (id, name, expected) in [
        (json!(42), json!(true), "/items/42/files/true"),
        (
            json!(1.5),
            json!(["a", "b c", "d,e"]),
            "/items/1.5/files/a,b%20c,d%2Ce",
        ),
        (
            json!("x"),
            json!({"k": "v", "n": 2}),
            "/items/x/files/k,v,n,2",
        ),
    ] {
        let result = upstream
            .invoke(&PATH_TOOL, args(json!({"id": id, "name": name})))
            .await;
        assert!(!result.is_error, "{result:?}");
        assert_eq!(server.requests().last().unwrap().target, expected);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn missing_required_path_argument_is_an_error_and_sends_nothing() {
    let server = Server::start().await;
    let result = server
        .upstream()
        .invoke(&PATH_TOOL, args(json!({"name": "f", "id": null})))
        .await;
    assert_error_containing(
        &result,
        &["missing required argument `id`", "path parameter"],
    );
    assert!(server.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn dot_segments_from_arguments_are_refused() {
    let server = Server::start().await;
    let result = server
        .upstream()
        .invoke(&PATH_TOOL, args(json!({"id": "..", "name": "f"})))
        .await;
    assert_error_containing(&result, &["`id`", "`..`"]);
    assert!(server.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn query_arrays_explode_by_default_and_join_when_explode_is_false() {
    let server = Server::start().await;
    let result = server
        .upstream()
        .invoke(
            &QUERY_TOOL,
            args(json!({
                "tags": ["a", "b c"],
                "ids": [1, 2, 3],
                "q": "x y&z=1",
                "page": null,
                "filter": {"color": "red", "size": "L"},
            })),
        )
        .await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(
        server.only_request().target,
        "/search?tags=a&tags=b%20c&ids=1,2,3&q=x%20y%26z%3D1&color=red&size=L"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn header_arguments_are_sent_as_headers() {
    let server = Server::start().await;
    let result = server
        .upstream()
        .invoke(
            &HEADER_TOOL,
            args(json!({"request_id": "abc-123", "langs": ["en", "de"]})),
        )
        .await;
    assert!(!result.is_error, "{result:?}");
    let request = server.only_request();
    assert_eq!(request.header("x-request-id"), Some("abc-123"));
    assert_eq!(request.header("x-langs"), Some("en,de"));
}

#[tokio::test(flavor = "multi_thread")]
async fn header_argument_with_a_line_break_is_an_error() {
    let server = Server::start().await;
    let result = server
        .upstream()
        .invoke(
            &HEADER_TOOL,
            args(json!({"request_id": "a\r\nInjected: yes"})),
        )
        .await;
    assert_error_containing(&result, &["`request_id`", "X-Request-Id"]);
    assert!(server.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn credentials_go_in_header_bearer_and_query() {
    let server = Server::start().await;
    let upstream = Upstream::new(
        UpstreamConfig::new(format!("{}/", server.base))
            .with_credential(Credential::Header {
                name: "X-API-Key".into(),
                value: "key-123".into(),
            })
            .with_credential(Credential::Bearer("tok en".into()))
            .with_credential(Credential::Query {
                name: "api_key".into(),
                value: "s&k".into(),
            }),
    )
    .unwrap();
    let result = upstream.invoke(&QUERY_TOOL, args(json!({"q": "hi"}))).await;
    assert!(!result.is_error, "{result:?}");
    let request = server.only_request();
    assert_eq!(request.target, "/search?q=hi&api_key=s%26k");
    assert_eq!(request.header("x-api-key"), Some("key-123"));
    assert_eq!(request.header("authorization"), Some("Bearer tok en"));

    let debug = format!("{upstream:?}");
    for secret in ["key-123", "tok en", "s&k", "s%26k"] {
        assert!(!debug.contains(secret), "{secret} leaked into {debug}");
    }
}

const COOKIE_TOOL: ToolDef = tool(http(
    "GET",
    "/prefs",
    &[arg("theme", Location::Cookie, false)],
));

#[tokio::test(flavor = "multi_thread")]
async fn cookie_credentials_join_the_cookie_arguments_in_one_header() {
    let server = Server::start().await;
    let upstream = Upstream::new(
        UpstreamConfig::new(&server.base)
            .with_credential(Credential::Cookie {
                name: "session".into(),
                value: "c00kie-s3cret".into(),
            })
            .with_credential(Credential::Cookie {
                name: "csrf".into(),
                value: "t0k".into(),
            }),
    )
    .unwrap();
    let result = upstream
        .invoke(&COOKIE_TOOL, args(json!({"theme": "dark mode"})))
        .await;
    assert!(!result.is_error, "{result:?}");
    let result = upstream.invoke(&COOKIE_TOOL, Map::new()).await;
    assert!(!result.is_error, "{result:?}");
    let requests = server.requests();
    let cookies: Vec<_> = requests
        .iter()
        .map(|r| r.headers.get_all("cookie").iter().count())
        .collect();
    assert_eq!(cookies, [1, 1], "one Cookie header each: {requests:#?}");
    assert_eq!(
        requests[0].header("cookie"),
        Some("theme=dark%20mode; session=c00kie-s3cret; csrf=t0k")
    );
    assert_eq!(
        requests[1].header("cookie"),
        Some("session=c00kie-s3cret; csrf=t0k")
    );
    let debug = format!("{upstream:?}");
    assert!(
        debug.contains("Cookie(session=***)") && !debug.contains("c00kie-s3cret"),
        "{debug}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn basic_credentials_are_base64_of_user_colon_password() {
    let server = Server::start().await;
    let upstream = Upstream::new(UpstreamConfig::new(&server.base).with_credential(
        Credential::Basic {
            username: "alice".into(),
            password: "p:a ss".into(),
        },
    ))
    .unwrap();
    let result = upstream.invoke(&get("/things"), Map::new()).await;
    assert!(!result.is_error, "{result:?}");
    // base64("alice:p:a ss")
    assert_eq!(
        server.only_request().header("authorization"),
        Some("Basic YWxpY2U6cDphIHNz")
    );
    let debug = format!("{upstream:?}");
    assert!(
        debug.contains("Basic(***)") && !debug.contains("alice") && !debug.contains("p:a ss"),
        "{debug}"
    );
}

#[test]
fn credentials_that_cannot_be_sent_are_rejected_without_their_values() {
    let rejected = |credentials: Vec<Credential>| {
        let mut config = UpstreamConfig::new("http://example.com");
        for c in credentials {
            config = config.with_credential(c);
        }
        Upstream::new(config).unwrap_err().to_string()
    };
    let err = rejected(vec![Credential::Basic {
        username: "al:ice".into(),
        password: "hunter2".into(),
    }]);
    assert!(
        err.contains("user name contains `:`") && !err.contains("hunter2"),
        "{err}"
    );
    let err = rejected(vec![Credential::Cookie {
        name: "session".into(),
        value: "a;b=secret".into(),
    }]);
    assert!(
        err.contains("Cookie(session=***)")
            && err.contains("cookie value")
            && !err.contains("secret"),
        "{err}"
    );
    let err = rejected(vec![Credential::Cookie {
        name: "bad name".into(),
        value: "v".into(),
    }]);
    assert!(err.contains("cookie name"), "{err}");
    let err = rejected(vec![
        Credential::Bearer("tok-secret".into()),
        Credential::Basic {
            username: "u".into(),
            password: "pw-secret".into(),
        },
    ]);
    assert!(
        err.contains("Authorization") && !err.contains("secret"),
        "{err}"
    );
}

const SCHEMES: &[SecurityScheme] = &[
    SecurityScheme {
        name: "hdr",
        kind: SecuritySchemeKind::ApiKeyHeader("X-API-Key"),
    },
    SecurityScheme {
        name: "qry",
        kind: SecuritySchemeKind::ApiKeyQuery("api key"),
    },
    SecurityScheme {
        name: "basic",
        kind: SecuritySchemeKind::Basic,
    },
];

const fn secured(path: &'static str, security: &'static [&'static str]) -> ToolDef {
    let mut binding = http("GET", path, &[]);
    binding.security = security;
    tool(binding)
}

#[tokio::test(flavor = "multi_thread")]
async fn pass_through_places_the_callers_credential_only_when_configured() {
    let server = Server::start().await;
    let ctx = CallContext::new().with_caller_credential(CallerCredential::new("caller k&y"));
    let plain = server.upstream();
    let result = plain
        .invoke_with(&secured("/a", &["hdr"]), Map::new(), &ctx)
        .await;
    assert!(!result.is_error, "{result:?}");
    let passing =
        Upstream::new(UpstreamConfig::new(&server.base).with_pass_through(SCHEMES.iter().copied()))
            .unwrap();
    for (path, security) in [
        ("/b", &["qry"][..]),
        ("/c", &["basic"][..]),
        ("/d", &[][..]),
    ] {
        let result = passing
            .invoke_with(&secured(path, security), Map::new(), &ctx)
            .await;
        assert!(!result.is_error, "{result:?}");
    }
    // A credential a header cannot carry is an error, and nothing is sent.
    let bad = CallContext::new().with_caller_credential(CallerCredential::new("line\nbreak"));
    let result = passing
        .invoke_with(&secured("/e", &["hdr"]), Map::new(), &bad)
        .await;
    assert_error_containing(
        &result,
        &["caller's credential", "header `x-api-key`", "`hdr`"],
    );
    assert!(!text_of(&result).contains("break"), "{result:?}");

    let requests = server.requests();
    let targets: Vec<&str> = requests.iter().map(|r| r.target.as_str()).collect();
    assert_eq!(targets, ["/a", "/b?api%20key=caller%20k%26y", "/c", "/d"]);
    for r in &requests {
        assert_eq!(r.header("x-api-key"), None, "{r:?}");
        assert_eq!(r.header("authorization"), None, "{r:?}");
    }
    assert_eq!(format!("{ctx:?}").matches("***").count(), 1, "{ctx:?}");
    assert!(!format!("{ctx:?}").contains("caller k&y"));
}

#[test]
fn pass_through_needs_a_scheme_it_can_use_and_no_clash() {
    let basic_only = [SecurityScheme {
        name: "basic",
        kind: SecuritySchemeKind::Basic,
    }];
    let err =
        Upstream::new(UpstreamConfig::new("http://example.com").with_pass_through(basic_only))
            .unwrap_err()
            .to_string();
    assert!(err.contains("no apiKey"), "{err}");
    let err = Upstream::new(
        UpstreamConfig::new("http://example.com")
            .with_credential(Credential::Header {
                name: "x-api-key".into(),
                value: "configured-secret".into(),
            })
            .with_pass_through(SCHEMES.iter().copied()),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("`hdr`")
            && err.contains("configure one of them")
            && !err.contains("configured-secret"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn forwarded_headers_never_replace_arguments_or_credentials() {
    let server = Server::start().await;
    let upstream = Upstream::new(UpstreamConfig::new(&server.base).with_credential(
        Credential::Header {
            name: "X-API-Key".into(),
            value: "configured".into(),
        },
    ))
    .unwrap();
    let mut headers = ForwardedHeaders::new();
    for (name, value) in [
        ("x-request-id", "from-caller"),
        ("x-api-key", "from-caller"),
        ("x-tenant", "t1"),
        ("x-tenant", "t2"),
    ] {
        headers.append(
            HeaderName::from_static(name),
            HeaderValue::from_static(value),
        );
    }
    let ctx = CallContext::new().with_forwarded_headers(headers);
    let result = upstream
        .invoke_with(&HEADER_TOOL, args(json!({"request_id": "from-args"})), &ctx)
        .await;
    assert!(!result.is_error, "{result:?}");
    let request = server.only_request();
    assert_eq!(request.header("x-request-id"), Some("from-args"));
    assert_eq!(request.header("x-api-key"), Some("configured"));
    let tenants: Vec<_> = request.headers.get_all("x-tenant").iter().collect();
    assert_eq!(tenants, ["t1", "t2"]);
    let debug = format!("{ctx:?}");
    assert!(
        debug.contains("x-tenant") && !debug.contains("t1"),
        "{debug}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn base_url_path_is_kept() {
    let server = Server::start().await;
    let upstream = Upstream::new(UpstreamConfig::new(format!("{}/api/v1/", server.base))).unwrap();
    let result = upstream.invoke(&get("/things"), Map::new()).await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(server.only_request().target, "/api/v1/things");
}

#[tokio::test(flavor = "multi_thread")]
async fn body_fields_make_a_json_object() {
    let server = Server::start().await;
    let result = server
        .upstream()
        .invoke(
            &FIELDS_TOOL,
            args(json!({"chat_id": 7, "text": "hi \"there\""})),
        )
        .await;
    assert!(!result.is_error, "{result:?}");
    let request = server.only_request();
    assert_eq!(request.method, "POST");
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(
        String::from_utf8(request.body).unwrap(),
        r#"{"text":"hi \"there\"","chatId":7}"#
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn missing_required_body_fields_are_all_named() {
    let server = Server::start().await;
    let result = server
        .upstream()
        .invoke(&FIELDS_TOOL, args(json!({"silent": true})))
        .await;
    assert_error_containing(&result, &["`text`", "`chat_id`"]);
    assert!(server.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn whole_body_argument_is_encoded_as_json() {
    let server = Server::start().await;
    let upstream = server.upstream();
    for (value, wire) in [
        (json!("hello"), r#""hello""#),
        (json!(42), "42"),
        (json!(false), "false"),
        (json!([1, "a", {"b": null}]), r#"[1,"a",{"b":null}]"#),
        (json!({"z": 1, "a": [2]}), r#"{"z":1,"a":[2]}"#),
    ] {
        let result = upstream
            .invoke(&BODY_TOOL, args(json!({"body": value})))
            .await;
        assert!(!result.is_error, "{result:?}");
        let request = server.requests().pop().unwrap();
        assert_eq!(request.header("content-type"), Some("application/json"));
        assert_eq!(String::from_utf8(request.body).unwrap(), wire);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn missing_required_body_is_an_error() {
    let server = Server::start().await;
    let result = server.upstream().invoke(&BODY_TOOL, Map::new()).await;
    assert_error_containing(
        &result,
        &["missing required argument `body`", "request body"],
    );
    assert!(server.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn string_body_of_another_content_type_is_sent_as_is() {
    let server = Server::start().await;
    let result = server
        .upstream()
        .invoke(
            &TEXT_BODY_TOOL,
            args(json!({"body": "line one\nline \"two\""})),
        )
        .await;
    assert!(!result.is_error, "{result:?}");
    let request = server.only_request();
    assert_eq!(
        request.header("content-type"),
        Some("text/plain; charset=utf-8")
    );
    assert_eq!(request.body, b"line one\nline \"two\"");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_body_of_the_wrong_shape_is_an_error_and_sends_nothing() {
    let server = Server::start().await;
    let upstream = server.upstream();
    let result = upstream
        .invoke(&TEXT_BODY_TOOL, args(json!({"body": {"not": "text"}})))
        .await;
    assert_error_containing(
        &result,
        &[
            "argument `body`",
            "`text/plain; charset=utf-8`",
            "not an object",
        ],
    );
    assert!(server.requests().is_empty());
}

// ---------------------------------------------------------------------------------------------
// Responses.

#[tokio::test(flavor = "multi_thread")]
async fn no_content_is_a_success_message() {
    let server = Server::start().await;
    let delete = tool(http("DELETE", "/no-content", &[]));
    let result = server.upstream().invoke(&delete, Map::new()).await;
    assert_eq!(
        result,
        Invoked::new(ToolResult::text(
            "DELETE /no-content succeeded with status 204 (no content)"
        ))
        .with_status(204)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn non_2xx_is_an_error_with_status_and_body() {
    let server = Server::start().await;
    let result = server.upstream().invoke(&get("/missing"), Map::new()).await;
    assert_eq!(
        result,
        Invoked::new(ToolResult::error(
            "GET /missing failed with status 404 Not Found: item 42 does not exist"
        ))
        .with_status(404)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn long_error_bodies_are_cut_at_4_kib_with_a_marker() {
    let server = Server::start().await;
    let result = server.upstream().invoke(&get("/broken"), Map::new()).await;
    let expected = format!(
        "GET /broken failed with status 500 Internal Server Error: {}…[truncated {} bytes]",
        "e".repeat(4096),
        10_000 - 4096
    );
    assert_eq!(
        result,
        Invoked::new(ToolResult::error(expected)).with_status(500)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn json_object_is_structured_content_as_is() {
    let server = Server::start().await;
    let result = server.upstream().invoke(&get("/object"), Map::new()).await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(
        result.structured_content,
        Some(json!({"id": 7, "name": "x"}))
    );
    assert_eq!(
        result.content,
        vec![Content::Text(r#"{"id":7,"name":"x"}"#.into())]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn json_object_is_wrapped_when_the_tool_says_so() {
    let server = Server::start().await;
    let wrapped = ToolDef {
        full_input_schema: None,
        full_output_schema: None,
        full_defs: None,
        documented_output_schema: None,
        wrap_output: true,
        ..get("/object")
    };
    let result = server.upstream().invoke(&wrapped, Map::new()).await;
    assert_eq!(
        result.structured_content,
        Some(json!({"result": {"id": 7, "name": "x"}}))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn json_array_is_wrapped_even_when_the_tool_does_not_wrap() {
    let server = Server::start().await;
    let result = server.upstream().invoke(&get("/array"), Map::new()).await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(
        result.structured_content,
        Some(json!({"result": [1, 2, 3]}))
    );
    assert_eq!(text_of(&result), "[1,2,3]");
}

#[tokio::test(flavor = "multi_thread")]
async fn json_without_content_type_is_still_json() {
    let server = Server::start().await;
    let result = server
        .upstream()
        .invoke(&get("/untyped-json"), Map::new())
        .await;
    assert_eq!(result.structured_content, Some(json!({"ok": true})));
}

#[tokio::test(flavor = "multi_thread")]
async fn text_response_is_text() {
    let server = Server::start().await;
    let result = server.upstream().invoke(&get("/text"), Map::new()).await;
    assert_eq!(
        result,
        Invoked::new(ToolResult::text("plain words")).with_status(200)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn oversized_responses_are_cut_with_a_marker() {
    let server = Server::start().await;
    let upstream =
        Upstream::new(UpstreamConfig::new(&server.base).with_max_response_bytes(64)).unwrap();

    let result = upstream.invoke(&get("/big-text"), Map::new()).await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(
        text_of(&result),
        format!(
            "{}\n…[truncated: the response exceeded the 64-byte limit]",
            "x".repeat(64)
        )
    );

    let result = upstream.invoke(&get("/big-json"), Map::new()).await;
    assert_error_containing(
        &result,
        &[
            "GET /big-json",
            "64-byte response limit",
            "cannot be parsed",
        ],
    );
    assert_eq!(result.structured_content, None);
}

#[tokio::test(flavor = "multi_thread")]
async fn slow_upstream_times_out() {
    let server = Server::start().await;
    let upstream =
        Upstream::new(UpstreamConfig::new(&server.base).with_timeout(Duration::from_millis(300)))
            .unwrap();
    let result = upstream.invoke(&get("/slow"), Map::new()).await;
    assert_eq!(
        result,
        Invoked::new(ToolResult::error("GET /slow timed out after 0.3 s")).timed_out()
    );
    assert!(result.is_error && result.timed_out);
}

#[tokio::test(flavor = "multi_thread")]
async fn unreachable_upstream_is_an_error_naming_the_base_url() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let base = format!("http://{addr}/api");
    let upstream = Upstream::new(
        UpstreamConfig::new(base.replace("http://", "http://user:hunter2@")).with_credential(
            Credential::Query {
                name: "api_key".into(),
                value: "sekrit".into(),
            },
        ),
    )
    .unwrap();
    let result = upstream.invoke(&get("/things"), Map::new()).await;
    assert_error_containing(&result, &["GET /things", "could not be reached", &base]);
    assert!(!result.timed_out, "a refused connection is not a timeout");
    let text = text_of(&result);
    assert!(
        !text.contains("hunter2") && !text.contains("sekrit"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------------
// An operation's own server.

/// `tool` sent to `server_url` instead of the configured base URL (leaked: the table is
/// `'static`).
fn on_server(tool: ToolDef, server_url: String) -> ToolDef {
    let Some(http) = tool.http else {
        panic!("the tool needs an HTTP binding");
    };
    ToolDef {
        http: Some(HttpBinding {
            server_url: Some(String::leak(server_url)),
            task: false,
            cancel: &[],
            ..http
        }),
        declaration: None,
        ..tool
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_operations_own_server_gets_the_request_with_the_credentials() {
    let configured = Server::start().await;
    let own = Server::start().await;
    let upstream = Upstream::new(
        UpstreamConfig::new(format!("{}/api", configured.base))
            .with_credential(Credential::Header {
                name: "X-API-Key".into(),
                value: "key-123".into(),
            })
            .with_credential(Credential::Query {
                name: "api_key".into(),
                value: "k".into(),
            }),
    )
    .unwrap();
    let tool = on_server(QUERY_TOOL, format!("{}/uploads/", own.base));

    let prepared = upstream.prepare(&tool, &args(json!({"q": "hi"}))).unwrap();
    assert_eq!(
        prepared.url,
        format!("{}/uploads/search?q=hi&api_key=k", own.base)
    );

    let result = upstream.invoke(&tool, args(json!({"q": "hi"}))).await;
    assert!(!result.is_error, "{result:?}");
    let request = own.only_request();
    assert_eq!(request.method, "GET");
    assert_eq!(request.target, "/uploads/search?q=hi&api_key=k");
    assert_eq!(request.header("x-api-key"), Some("key-123"));
    assert!(
        configured.requests().is_empty(),
        "the configured base URL got {:#?}",
        configured.requests()
    );

    // Tools without their own server still go to the configured base URL.
    let result = upstream.invoke(&QUERY_TOOL, args(json!({"q": "x"}))).await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(
        configured.only_request().target,
        "/api/search?q=x&api_key=k"
    );
    assert_eq!(own.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unusable_operation_server_is_an_error_and_sends_nothing() {
    let configured = Server::start().await;
    let upstream = configured.upstream();
    for (server_url, reason) in [
        ("/uploads", "relative URL without a base"),
        ("uploads.example.com", "relative URL without a base"),
        (
            "ftp://uploads.example.com",
            "the scheme must be http or https",
        ),
        (
            "https://uploads.example.com/?a=1",
            "must not have a query string",
        ),
        (
            "https://uploads.example.com/#top",
            "must not have a fragment",
        ),
        ("https://u:hunter2@[::1", "invalid IPv6 address"),
    ] {
        let tool = on_server(get("/assets"), server_url.to_owned());
        let result = upstream.invoke(&tool, Map::new()).await;
        assert_error_containing(
            &result,
            &["cannot call GET /assets", "its own server", reason],
        );
        assert!(!text_of(&result).contains("hunter2"), "{result:?}");
        let prepared = upstream.prepare(&tool, &Map::new()).unwrap_err();
        assert!(prepared.contains(reason), "{prepared}");
    }
    assert!(
        configured.requests().is_empty(),
        "{:#?}",
        configured.requests()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_operation_server_is_named_in_the_error() {
    let configured = Server::start().await;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let own = format!("http://{addr}/uploads");
    let tool = on_server(
        get("/assets"),
        own.replace("http://", "http://user:hunter2@"),
    );
    let result = configured.upstream().invoke(&tool, Map::new()).await;
    assert_error_containing(&result, &["GET /assets", "could not be reached", &own]);
    assert!(!text_of(&result).contains("hunter2"), "{result:?}");
    assert!(
        configured.requests().is_empty(),
        "{:#?}",
        configured.requests()
    );
}

// ---------------------------------------------------------------------------------------------
// Configuration and tool table problems.

#[tokio::test(flavor = "multi_thread")]
async fn tool_without_http_binding_is_an_error() {
    let upstream = Upstream::new(UpstreamConfig::new("http://127.0.0.1:9")).unwrap();
    let local = ToolDef {
        http: None,
        ..get("/")
    };
    let result = upstream.invoke(&local, Map::new()).await;
    assert_error_containing(&result, &["`test_tool`", "no HTTP binding"]);
}

#[test]
fn bad_base_urls_and_credentials_are_rejected() {
    for bad in ["not a url", "ftp://example.com", "http://example.com/?a=1"] {
        assert!(
            Upstream::new(UpstreamConfig::new(bad)).is_err(),
            "{bad} was accepted"
        );
    }
    let err = Upstream::new(UpstreamConfig::new("http://example.com").with_credential(
        Credential::Header {
            name: "X-API-Key".into(),
            value: "line\nbreak-secret".into(),
        },
    ))
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("X-API-Key") && !err.contains("secret"),
        "{err}"
    );
}
