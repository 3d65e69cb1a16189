//! From spec to wire in-process: the generator's IR for a fixture spec, turned into runtime
//! tool tables (`support::preview`), prepared by `Upstream::prepare`, compared byte for byte.
//! Covers `allowReserved`, the `encoding` object (also as upgraded from Swagger 2.0
//! `collectionFormat`), the allowlist's `content_type` choice, and path-item and operation
//! `servers`.

use crate::support;

use std::path::{Path, PathBuf};

use mcpgen_codegen::allowlist::Allowlist;
use mcpgen_codegen::select::{SelectOptions, select};
use mcpgen_codegen::spec::Spec;
use mcpgen_runtime::{PreparedRequest, ToolDef, Upstream, UpstreamConfig};
use serde_json::{Map, Value, json};

const BASE: &str = "http://api.test/v1";

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/wire")
        .join(name)
}

/// Selects the operations of `allowlist` (YAML text) from the fixture `spec` and returns
/// the runtime tool table and the warnings' texts.
fn tools(spec: &str, allowlist: &str) -> (Vec<ToolDef>, Vec<String>) {
    let spec = Spec::load(&fixture(spec)).expect("the fixture loads");
    let allowlist = Allowlist::parse(Path::new("mcp_tools.yaml"), allowlist).expect("allowlist");
    let (server, warnings) = select(&spec, &allowlist, &SelectOptions::default())
        .unwrap_or_else(|errors| panic!("selection failed: {errors:?}"));
    (
        support::preview::server_tool_defs(&server),
        warnings.iter().map(ToString::to_string).collect(),
    )
}

fn prepare(tool: &ToolDef, args: Value) -> PreparedRequest {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    let upstream = Upstream::new(UpstreamConfig::new(BASE)).expect("upstream");
    upstream
        .prepare(tool, &args)
        .unwrap_or_else(|e| panic!("{}: {e}", tool.name))
}

fn body_text(request: &PreparedRequest) -> String {
    String::from_utf8(request.body.clone().expect("a body")).expect("UTF-8 body")
}

/// The multipart body `request` should carry for `parts` (header lines, content), with the
/// boundary it chose.
fn multipart(request: &PreparedRequest, parts: &[(&[&str], &str)]) -> String {
    let boundary = request
        .content_type
        .as_deref()
        .and_then(|ct| ct.strip_prefix("multipart/form-data; boundary="))
        .expect("a multipart content type");
    let mut out = String::new();
    for (headers, content) in parts {
        out.push_str(&format!("--{boundary}\r\n"));
        for header in *headers {
            out.push_str(header);
            out.push_str("\r\n");
        }
        out.push_str(&format!("\r\n{content}\r\n"));
    }
    out.push_str(&format!("--{boundary}--\r\n"));
    out
}

#[test]
fn allow_reserved_query_parameter_reaches_the_wire_unencoded() {
    let (tools, _) = tools("openapi.yaml", "mcp_tools:\n  - operation_id: search\n");
    let request = prepare(
        &tools[0],
        json!({"q": "repo:octo/hello is:open [a]", "tag": "repo:octo/hello"}),
    );
    assert_eq!(request.method, "GET");
    assert_eq!(
        request.url,
        "http://api.test/v1/search?q=repo:octo/hello%20is:open%20[a]&tag=repo%3Aocto%2Fhello"
    );
}

#[test]
fn json_is_preferred_when_the_allowlist_chooses_no_media_type() {
    let (tools, _) = tools(
        "openapi.yaml",
        "mcp_tools:\n  - operation_id: createIssue\n",
    );
    let request = prepare(&tools[0], json!({"title": "Bug", "labels": ["a", "b"]}));
    assert_eq!(request.content_type.as_deref(), Some("application/json"));
    assert_eq!(body_text(&request), r#"{"title":"Bug","labels":["a","b"]}"#);
}

#[test]
fn chosen_form_media_type_is_sent_with_its_encoding_object() {
    let allowlist = "mcp_tools:\n  - operation_id: createIssue\n    content_type: Application/X-WWW-Form-Urlencoded\n";
    let (tools, _) = tools("openapi.yaml", allowlist);
    let request = prepare(
        &tools[0],
        json!({
            "title": "Crash on save",
            "labels": ["bug", "p1"],
            "filter": {"state": "open", "owner": {"login": "octo"}},
            "link": "https://x.test/a?b=c",
        }),
    );
    assert_eq!(
        request.content_type.as_deref(),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(
        body_text(&request),
        "title=Crash+on+save&labels=bug,p1&filter[state]=open&filter[owner][login]=octo\
         &link=https://x.test/a?b=c"
    );
}

#[test]
fn chosen_multipart_media_type_sends_declared_part_types() {
    let allowlist =
        "mcp_tools:\n  - operation_id: createIssue\n    content_type: multipart/form-data\n";
    let (tools, warnings) = tools("openapi.yaml", allowlist);
    assert!(
        warnings.iter().any(|w| w.contains(
            "/paths/~1issues/post/requestBody/content/multipart~1form-data/encoding/shot/headers"
        ) && w.contains("not sent")),
        "{warnings:?}"
    );
    let request = prepare(
        &tools[0],
        json!({
            "title": "Crash",
            "meta": {"os": "linux"},
            "shot": "UE5H",
            "labels": ["bug", "p1"],
        }),
    );
    let expected = multipart(
        &request,
        &[
            (
                &[r#"Content-Disposition: form-data; name="title""#],
                "Crash",
            ),
            (
                &[
                    r#"Content-Disposition: form-data; name="meta""#,
                    "Content-Type: application/json",
                ],
                r#"{"os":"linux"}"#,
            ),
            (
                &[
                    r#"Content-Disposition: form-data; name="shot"; filename="file.png""#,
                    "Content-Type: image/png",
                ],
                "PNG",
            ),
            (
                &[r#"Content-Disposition: form-data; name="labels""#],
                "bug|p1",
            ),
        ],
    );
    assert_eq!(body_text(&request), expected);
}

#[test]
fn swagger_collection_formats_become_form_and_multipart_encodings() {
    let allowlist = "mcp_tools:\n  - operation_id: addPet\n  - operation_id: uploadPhoto\n";
    let (tools, _) = tools("swagger.yaml", allowlist);
    let request = prepare(
        &tools[0],
        json!({"name": "Rex", "tags": ["a", "b"], "ids": [1, 2], "colors": ["red", "tan"]}),
    );
    assert_eq!(
        body_text(&request),
        "name=Rex&tags=a,b&ids=1&ids=2&colors=red%7Ctan"
    );
    let request = prepare(
        &tools[1],
        json!({"file": "data:text/plain;name=a.txt,hi", "tags": ["a", "b"], "sizes": [1, 2]}),
    );
    let expected = multipart(
        &request,
        &[
            (
                &[
                    r#"Content-Disposition: form-data; name="file"; filename="a.txt""#,
                    "Content-Type: text/plain",
                ],
                "hi",
            ),
            (&[r#"Content-Disposition: form-data; name="tags""#], "a,b"),
            (&[r#"Content-Disposition: form-data; name="sizes""#], "1"),
            (&[r#"Content-Disposition: form-data; name="sizes""#], "2"),
        ],
    );
    assert_eq!(body_text(&request), expected);
}

#[test]
fn preview_tool_defs_match_the_ir() {
    let (tools, _) = tools("openapi.yaml", "mcp_tools:\n  - operation_id: search\n");
    let tool = &tools[0];
    assert_eq!(tool.name, "search");
    let http = tool.http.expect("an HTTP binding");
    assert_eq!((http.method, http.path), ("GET", "/search"));
    assert!(http.args[0].allow_reserved && !http.args[1].allow_reserved);
    let schema: Map<String, Value> = serde_json::from_str(tool.input_schema).expect("JSON");
    assert_eq!(schema["required"], json!(["q"]));
}

/// `server_url` of each tool's HTTP binding.
fn server_urls(tools: &[ToolDef]) -> Vec<Option<&'static str>> {
    tools
        .iter()
        .map(|tool| tool.http.and_then(|http| http.server_url))
        .collect()
}

#[test]
fn path_item_and_operation_servers_reach_the_wire() {
    let allowlist = "mcp_tools:\n  - operation_id: getAsset\n  - operation_id: uploadAsset\n  \
                     - operation_id: listAssets\n";
    let (tools, warnings) = tools("servers.yaml", allowlist);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        server_urls(&tools),
        [
            Some("https://eu.cdn.example.test/files/"),
            Some("https://uploads.example.test:8443"),
            None,
        ]
    );

    // The path item's first server, its variable at its default.
    let request = prepare(&tools[0], json!({"id": "a b"}));
    assert_eq!(request.method, "GET");
    assert_eq!(
        request.url,
        "https://eu.cdn.example.test/files/assets/a%20b"
    );

    // The operation's own server wins over its path item's.
    let request = prepare(
        &tools[1],
        json!({"id": "7", "name": "r 1.zip", "body": "cmF3IGJ5dGVz"}),
    );
    assert_eq!(request.method, "PUT");
    assert_eq!(
        request.url,
        "https://uploads.example.test:8443/assets/7?name=r%201.zip"
    );
    assert_eq!(
        request.content_type.as_deref(),
        Some("application/octet-stream")
    );
    // A binary body is given in base64.
    assert_eq!(body_text(&request), "raw bytes");

    // An operation server equal to the document's (up to a trailing slash) is not an override,
    // and an empty path-item list is none: the configured base URL is used.
    let request = prepare(&tools[2], json!({}));
    assert_eq!(request.url, format!("{BASE}/assets"));
}

#[test]
fn unusable_servers_warn_where_and_keep_the_documents_server() {
    let allowlist = "mcp_tools:\n  - operation_id: noDefault\n  - operation_id: undeclared\n  \
                     - operation_id: notAList\n";
    let (tools, warnings) = tools("servers.yaml", allowlist);
    assert_eq!(server_urls(&tools), [None, None, None]);
    for (pointer, why) in [
        (
            "/paths/~1no-default/get/servers/0/variables/tenant",
            "no `default`",
        ),
        ("/paths/~1undeclared/servers/0/url", "do not declare"),
        ("/paths/~1not-a-list/get/servers", "must be a list"),
    ] {
        assert!(
            warnings
                .iter()
                .any(|w| w.contains(&format!("servers.yaml: {pointer}: "))
                    && w.contains(why)
                    && w.contains("sent to the document's server")),
            "no warning at {pointer} saying {why}: {warnings:#?}"
        );
    }
    assert_eq!(warnings.len(), 3, "{warnings:#?}");
    for (tool, path) in tools
        .iter()
        .zip(["/no-default", "/undeclared", "/not-a-list"])
    {
        assert_eq!(prepare(tool, json!({})).url, format!("{BASE}{path}"));
    }
}

#[test]
fn a_relative_operation_server_warns_and_the_runtime_refuses_it() {
    let (tools, warnings) = tools("servers.yaml", "mcp_tools:\n  - operation_id: relative\n");
    assert_eq!(server_urls(&tools), [Some("/uploads")]);
    assert!(
        warnings.len() == 1
            && warnings[0].contains("servers.yaml: /paths/~1relative/get/servers/0/url: ")
            && warnings[0].contains("is relative"),
        "{warnings:#?}"
    );
    let upstream = Upstream::new(UpstreamConfig::new(BASE)).expect("upstream");
    let error = upstream
        .prepare(&tools[0], &Map::new())
        .expect_err("a relative server URL");
    assert!(
        error.contains("its own server `/uploads`") && error.contains("relative URL"),
        "{error}"
    );
}

#[test]
fn swagger_operations_keep_the_documents_server() {
    let allowlist = "mcp_tools:\n  - operation_id: addPet\n  - operation_id: uploadPhoto\n";
    let (tools, _) = tools("swagger.yaml", allowlist);
    assert_eq!(server_urls(&tools), [None, None]);
}
