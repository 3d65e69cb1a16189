//! The result contract of `Upstream::invoke` against a real HTTP server on loopback: how each
//! kind of upstream response maps to a tool result, and which redirects are followed.

use crate::support::recording::{Recording, Routes};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use mcpgen_runtime::{
    Content, HttpBinding, Invoked, ToolAnnotations, ToolDef, ToolResult, Upstream, UpstreamConfig,
};
use serde_json::{Map, json};

// ---------------------------------------------------------------------------------------------
// The recording server.

type Server = Recording<Answers>;

struct Answers;

impl Routes for Answers {
    async fn answer(path: &str) -> Response {
        answer(path)
    }
}

/// Bytes that are not UTF-8, standing in for a PNG and a PDF.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe";
const PDF: &[u8] = b"%PDF-1.7\n\xe2\xe3\xcf\xd3\n\x00\xff";

/// The route table.
fn answer(path: &str) -> Response {
    let typed = |status: StatusCode, content_type: &'static str, body: Vec<u8>| {
        (status, [(header::CONTENT_TYPE, content_type)], body).into_response()
    };
    let redirect = |status: StatusCode, to: &str| {
        (status, [(header::LOCATION, to.to_owned())], "moved").into_response()
    };
    match path {
        "/object" => typed(StatusCode::OK, "application/json", br#"{"id":7}"#.to_vec()),
        "/array" => typed(
            StatusCode::OK,
            "application/json; charset=utf-8",
            b"[1,2,3]".to_vec(),
        ),
        "/no-content" => StatusCode::NO_CONTENT.into_response(),
        "/empty" => StatusCode::OK.into_response(),
        "/text" => typed(StatusCode::OK, "text/csv", b"a,b\n1,2\n".to_vec()),
        "/latin1" => typed(
            StatusCode::OK,
            "text/plain; charset=iso-8859-1",
            b"caf\xe9".to_vec(),
        ),
        "/image" => typed(StatusCode::OK, "image/png", PNG.to_vec()),
        "/pdf" => typed(StatusCode::OK, "application/pdf", PDF.to_vec()),
        "/octets" => typed(StatusCode::OK, "application/octet-stream", PDF.to_vec()),
        "/unlabelled-binary" => Response::new(axum::body::Body::from(PDF.to_vec())),
        "/problem" => typed(
            StatusCode::NOT_FOUND,
            "application/problem+json",
            serde_json::to_vec(&json!({
                "type": "https://example.com/probs/no-item",
                "title": "Item not found",
                "status": 404,
                "detail": "item 42 does not exist",
                "instance": "/items/42",
            }))
            .unwrap(),
        ),
        "/problem-extra" => typed(
            StatusCode::UNPROCESSABLE_ENTITY,
            "application/problem+json",
            serde_json::to_vec(&json!({
                "title": "Invalid input",
                "errors": [{"field": "name", "message": "required"}],
            }))
            .unwrap(),
        ),
        "/problem-broken" => typed(
            StatusCode::BAD_REQUEST,
            "application/problem+json",
            b"not json at all".to_vec(),
        ),
        "/broken" => typed(
            StatusCode::INTERNAL_SERVER_ERROR,
            "text/plain",
            b"database on fire".to_vec(),
        ),
        "/busy" => (
            StatusCode::TOO_MANY_REQUESTS,
            [(header::RETRY_AFTER, "30")],
            "slow down",
        )
            .into_response(),
        "/down" => (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, "Wed, 21 Oct 2015 07:28:00 GMT")],
            "",
        )
            .into_response(),
        "/old" => redirect(StatusCode::FOUND, "/new"),
        "/old-post" => redirect(StatusCode::TEMPORARY_REDIRECT, "/new"),
        "/new" => typed(
            StatusCode::OK,
            "application/json",
            br#"{"moved":true}"#.to_vec(),
        ),
        "/elsewhere" => redirect(StatusCode::FOUND, "http://other.invalid/new"),
        "/loop" => redirect(StatusCode::FOUND, "/loop"),
        _ => typed(
            StatusCode::OK,
            "application/json",
            br#"{"ok":true}"#.to_vec(),
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// Tools.

const fn tool(method: &'static str, path: &'static str) -> ToolDef {
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
            method,
            path,
            operation_id: "getThing",
            args: &[],
            body: None,
            security: &[],
            server_url: None,
            task: false,
            cancel: &[],
        }),
        declaration: None,
        view: None,
    }
}

const fn get(path: &'static str) -> ToolDef {
    tool("GET", path)
}

async fn call(server: &Server, tool: &ToolDef) -> Invoked {
    server.upstream().invoke(tool, Map::new()).await
}

fn text_of(result: &ToolResult) -> String {
    result.joined_text()
}

#[track_caller]
fn assert_error_containing(result: &ToolResult, parts: &[&str]) {
    assert!(result.is_error, "expected an error: {result:?}");
    let text = text_of(result);
    for part in parts {
        assert!(text.contains(part), "`{part}` missing from: {text}");
    }
}

// ---------------------------------------------------------------------------------------------
// Successes.

#[tokio::test(flavor = "multi_thread")]
async fn json_object_is_structured_content_and_text() {
    let server = Server::start().await;
    let result = call(&server, &get("/object")).await;
    assert_eq!(
        result,
        Invoked::new(ToolResult {
            content: vec![Content::Text(r#"{"id":7}"#.into())],
            structured_content: Some(json!({"id": 7})),
            is_error: false,
        })
        .with_status(200)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn json_array_is_wrapped_in_structured_content() {
    let server = Server::start().await;
    let result = call(&server, &get("/array")).await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(
        result.structured_content,
        Some(json!({"result": [1, 2, 3]}))
    );
    assert_eq!(result.content, vec![Content::Text("[1,2,3]".into())]);
}

#[tokio::test(flavor = "multi_thread")]
async fn no_content_and_empty_bodies_are_short_successes() {
    let server = Server::start().await;
    assert_eq!(
        call(&server, &tool("DELETE", "/no-content")).await,
        Invoked::new(ToolResult::text(
            "DELETE /no-content succeeded with status 204 (no content)"
        ))
        .with_status(204)
    );
    assert_eq!(
        call(&server, &get("/empty")).await,
        Invoked::new(ToolResult::text(
            "GET /empty succeeded with status 200 (empty body)"
        ))
        .with_status(200)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn text_types_are_text() {
    let server = Server::start().await;
    assert_eq!(
        call(&server, &get("/text")).await,
        Invoked::new(ToolResult::text("a,b\n1,2\n")).with_status(200)
    );
    // Declared text in another encoding is still text, not binary.
    assert_eq!(
        call(&server, &get("/latin1")).await,
        Invoked::new(ToolResult::text("caf\u{fffd}")).with_status(200)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn images_are_image_content_with_the_bytes_in_base64() {
    let server = Server::start().await;
    let result = call(&server, &get("/image")).await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(result.structured_content, None);
    let [Content::Image { data, mime_type }] = result.content.as_slice() else {
        panic!("expected one image block: {result:?}");
    };
    assert_eq!(mime_type, "image/png");
    assert_eq!(BASE64.decode(data).unwrap(), PNG);
}

#[tokio::test(flavor = "multi_thread")]
async fn other_binary_is_an_embedded_resource_with_its_mime_type() {
    let server = Server::start().await;
    for (path, expected_type) in [
        ("/pdf", "application/pdf"),
        ("/octets", "application/octet-stream"),
        ("/unlabelled-binary", "application/octet-stream"),
    ] {
        let result = call(&server, &get(path)).await;
        assert!(!result.is_error, "{path}: {result:?}");
        let [
            Content::Text(note),
            Content::Resource {
                uri,
                mime_type,
                blob,
            },
        ] = result.content.as_slice()
        else {
            panic!("{path}: expected a note and a resource: {result:?}");
        };
        assert_eq!(uri, "mcpgen://response/getThing");
        assert_eq!(mime_type, expected_type);
        assert_eq!(BASE64.decode(blob).unwrap(), PDF, "{path}");
        assert!(
            note.contains(&format!("GET {path}"))
                && note.contains(&format!("{} bytes of {expected_type}", PDF.len())),
            "{note}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn binary_over_the_cap_is_an_error_not_corrupt_data() {
    let server = Server::start().await;
    let upstream =
        Upstream::new(UpstreamConfig::new(&server.base).with_max_response_bytes(8)).unwrap();
    for path in ["/image", "/pdf"] {
        let result = upstream.invoke(&get(path), Map::new()).await;
        assert_error_containing(&result, &[path, "8-byte response limit", "corrupt"]);
    }
}

// ---------------------------------------------------------------------------------------------
// Failures.

#[tokio::test(flavor = "multi_thread")]
async fn problem_json_is_rendered_by_title_and_detail() {
    let server = Server::start().await;
    let result = call(&server, &get("/problem")).await;
    assert_eq!(
        result,
        Invoked::new(ToolResult::error(
            "GET /problem failed with status 404 Not Found: Item not found: item 42 does not \
             exist (status 404, type https://example.com/probs/no-item, instance /items/42)"
        ))
        .with_status(404)
    );

    // Extension members (e.g. validation errors) are kept.
    let result = call(&server, &get("/problem-extra")).await;
    assert_error_containing(
        &result,
        &[
            "status 422 Unprocessable Entity: Invalid input; more: ",
            r#""errors":[{"field":"name","message":"required"}]"#,
        ],
    );

    // A problem body that is not a problem document is shown as is.
    let result = call(&server, &get("/problem-broken")).await;
    assert_eq!(
        text_of(&result),
        "GET /problem-broken failed with status 400 Bad Request: not json at all"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn server_error_is_an_error_with_status_and_body() {
    let server = Server::start().await;
    assert_eq!(
        call(&server, &tool("POST", "/broken")).await,
        Invoked::new(ToolResult::error(
            "POST /broken failed with status 500 Internal Server Error: database on fire"
        ))
        .with_status(500)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn retry_after_is_passed_on() {
    let server = Server::start().await;
    assert_eq!(
        call(&server, &get("/busy")).await,
        Invoked::new(ToolResult::error(
            "GET /busy failed with status 429 Too Many Requests: slow down\nThe upstream asks \
             to retry after 30 seconds."
        ))
        .with_status(429)
    );
    assert_eq!(
        call(&server, &get("/down")).await,
        Invoked::new(ToolResult::error(
            "GET /down failed with status 503 Service Unavailable (empty body)\nThe upstream \
             asks to retry after Wed, 21 Oct 2015 07:28:00 GMT.\nThe request was retried once \
             after a short wait and failed again; the upstream API may be briefly \
             unavailable, retry later."
        ))
        .with_status(503)
        // A GET answered 503 is sent once more.
        .with_guard(mcpgen_runtime::GuardReport {
            retried: true,
            ..Default::default()
        })
    );
}

// ---------------------------------------------------------------------------------------------
// Redirects.

#[tokio::test(flavor = "multi_thread")]
async fn redirects_are_followed_for_safe_methods() {
    let server = Server::start().await;
    let result = call(&server, &get("/old")).await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(result.structured_content, Some(json!({"moved": true})));
    assert_eq!(result.status, Some(200));
    assert_eq!(server.lines(), ["GET /old", "GET /new"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn redirects_are_not_followed_for_unsafe_methods() {
    for method in ["POST", "PUT", "PATCH", "DELETE"] {
        let server = Server::start().await;
        let result = call(&server, &tool(method, "/old-post")).await;
        assert_eq!(
            result,
            Invoked::new(ToolResult::error(format!(
                "{method} /old-post was redirected with status 307 Temporary Redirect to `/new`, \
                 which was not followed: redirects are followed only for GET, HEAD and OPTIONS \
                 requests: moved"
            )))
            .with_status(307)
        );
        assert_eq!(server.lines(), [format!("{method} /old-post")]);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_operations_own_server_redirects_like_the_base_url() {
    let configured = Server::start().await;
    let own = Server::start().await;
    let server_url: &'static str = String::leak(own.base.clone());
    let on_own = |tool: ToolDef| {
        let Some(http) = tool.http else {
            panic!("the tool needs an HTTP binding");
        };
        ToolDef {
            http: Some(HttpBinding {
                server_url: Some(server_url),
                ..http
            }),
            ..tool
        }
    };
    let upstream = configured.upstream();

    let result = upstream.invoke(&on_own(get("/old")), Map::new()).await;
    assert_eq!(result.structured_content, Some(json!({"moved": true})));
    assert_eq!(own.lines(), ["GET /old", "GET /new"]);

    let result = upstream
        .invoke(&on_own(tool("POST", "/old-post")), Map::new())
        .await;
    assert_error_containing(&result, &["POST /old-post", "307", "only for GET"]);

    let result = upstream
        .invoke(&on_own(get("/elsewhere")), Map::new())
        .await;
    assert_error_containing(&result, &["`http://other.invalid/new`", "another origin"]);
    assert_eq!(
        own.lines(),
        ["GET /old", "GET /new", "POST /old-post", "GET /elsewhere"]
    );
    assert!(configured.lines().is_empty(), "{:?}", configured.lines());
}

#[tokio::test(flavor = "multi_thread")]
async fn redirects_stop_after_five_and_at_another_origin() {
    let server = Server::start().await;
    let result = call(&server, &get("/loop")).await;
    assert_error_containing(
        &result,
        &[
            "GET /loop was redirected with status 302 Found to `/loop`",
            "limit of 5",
        ],
    );
    assert_eq!(server.lines().len(), 6, "{:?}", server.lines());

    let server = Server::start().await;
    let result = call(&server, &get("/elsewhere")).await;
    assert_error_containing(&result, &["`http://other.invalid/new`", "another origin"]);
    assert_eq!(server.lines(), ["GET /elsewhere"]);
}
