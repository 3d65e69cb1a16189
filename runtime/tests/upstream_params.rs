//! Parameters on the wire per OpenAPI 3.1 serialization rules: every path and query style with
//! and without explode for scalars, arrays and objects, header `simple`, cookies, and
//! percent-encoding of reserved and non-ASCII characters. A loopback server records each raw
//! request target and its headers; the tests compare exact bytes.
//!
//! Expected values follow the spec's "Style Examples" table (3.1.1 wording, which agrees with
//! RFC 6570) for a parameter `color` with the values `"blue"`, `["blue","black","brown"]` and
//! `{"R":100,"G":200,"B":150}`.

use crate::support::recording::{Recorded, Recording};
use mcpgen_runtime::{
    ArgBinding, Credential, HttpBinding, Location, ToolAnnotations, ToolDef, ToolResult, Upstream,
    UpstreamConfig,
};
use serde_json::{Map, Value, json};

// ---------------------------------------------------------------------------------------------
// The recording server.

type Server = Recording;

impl Server {
    /// Calls `tool` with `arguments`, expects success and exactly one new request, and returns it.
    async fn call(&self, upstream: &Upstream, tool: &ToolDef, arguments: Value) -> Recorded {
        let before = self.requests().len();
        let result = upstream.invoke(tool, args(arguments.clone())).await;
        assert!(!result.is_error, "{arguments} gave {result:?}");
        let requests = self.requests();
        assert_eq!(requests.len(), before + 1, "{arguments}: {requests:#?}");
        requests.into_iter().next_back().unwrap()
    }
}

// ---------------------------------------------------------------------------------------------
// Tool tables.

const fn arg(name: &'static str, location: Location) -> ArgBinding {
    ArgBinding {
        arg: name,
        wire: name,
        location,
        required: false,
        style: None,
        explode: None,
        allow_reserved: false,
    }
}

const fn styled(
    name: &'static str,
    location: Location,
    style: Option<&'static str>,
    explode: Option<bool>,
) -> ArgBinding {
    ArgBinding {
        style,
        explode,
        required: matches!(location, Location::Path),
        ..arg(name, location)
    }
}

/// A `GET {path}` tool with `args`; the table is leaked so it is `'static` like a generated one.
fn tool(path: &'static str, args: Vec<ArgBinding>) -> ToolDef {
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
            method: "GET",
            path,
            operation_id: "op",
            args: Box::leak(args.into_boxed_slice()),
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

fn args(value: Value) -> Map<String, Value> {
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

fn string() -> Value {
    json!("blue")
}

fn array() -> Value {
    json!(["blue", "black", "brown"])
}

fn object() -> Value {
    json!({"R": 100, "G": 200, "B": 150})
}

/// Runs each `(style, explode, value, expected target)` case against a one-parameter tool.
async fn check_cases(
    location: Location,
    path: &'static str,
    cases: &[(Option<&'static str>, Option<bool>, Value, &str)],
) {
    let server = Server::start().await;
    let upstream = server.upstream();
    for (style, explode, value, expected) in cases {
        let tool = tool(path, vec![styled("color", location, *style, *explode)]);
        let request = server
            .call(&upstream, &tool, json!({ "color": value }))
            .await;
        assert_eq!(request.method, "GET");
        assert_eq!(
            request.target, *expected,
            "style {style:?}, explode {explode:?}, value {value}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Path.

#[tokio::test(flavor = "multi_thread")]
async fn path_simple_label_and_matrix_match_the_style_examples() {
    let (s, f, t) = (Some("simple"), Some(false), Some(true));
    let (label, matrix) = (Some("label"), Some("matrix"));
    check_cases(
        Location::Path,
        "/p/{color}",
        &[
            // simple (the default; explode defaults to false)
            (None, None, string(), "/p/blue"),
            (None, None, array(), "/p/blue,black,brown"),
            (None, None, object(), "/p/R,100,G,200,B,150"),
            (s, f, string(), "/p/blue"),
            (s, f, array(), "/p/blue,black,brown"),
            (s, f, object(), "/p/R,100,G,200,B,150"),
            (s, t, string(), "/p/blue"),
            (s, t, array(), "/p/blue,black,brown"),
            (s, t, object(), "/p/R=100,G=200,B=150"),
            // label
            (label, None, array(), "/p/.blue,black,brown"),
            (label, f, string(), "/p/.blue"),
            (label, f, array(), "/p/.blue,black,brown"),
            (label, f, object(), "/p/.R,100,G,200,B,150"),
            (label, t, string(), "/p/.blue"),
            (label, t, array(), "/p/.blue.black.brown"),
            (label, t, object(), "/p/.R=100.G=200.B=150"),
            // matrix
            (matrix, None, array(), "/p/;color=blue,black,brown"),
            (matrix, f, string(), "/p/;color=blue"),
            (matrix, f, array(), "/p/;color=blue,black,brown"),
            (matrix, f, object(), "/p/;color=R,100,G,200,B,150"),
            (matrix, t, string(), "/p/;color=blue"),
            (matrix, t, array(), "/p/;color=blue;color=black;color=brown"),
            (matrix, t, object(), "/p/;R=100;G=200;B=150"),
        ],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn path_numbers_booleans_and_empty_values() {
    let (f, t) = (Some(false), Some(true));
    let (label, matrix) = (Some("label"), Some("matrix"));
    check_cases(
        Location::Path,
        "/p/{color}/x",
        &[
            (None, None, json!(5), "/p/5/x"),
            (None, None, json!(1.5), "/p/1.5/x"),
            (None, None, json!(true), "/p/true/x"),
            (label, None, json!(5), "/p/.5/x"),
            (matrix, None, json!(false), "/p/;color=false/x"),
            (matrix, t, json!([3, 4]), "/p/;color=3;color=4/x"),
            // The "empty" column: the segment cannot be left out of a path.
            (None, None, json!([]), "/p//x"),
            (matrix, f, json!({}), "/p/;color/x"),
            // null items and properties are left out.
            (None, None, json!([3, null, 4]), "/p/3,4/x"),
            (matrix, t, json!({"a": 1, "b": null}), "/p/;a=1/x"),
        ],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn label_that_would_make_a_dot_segment_is_refused() {
    let server = Server::start().await;
    let upstream = server.upstream();
    // An empty `label` array is `.`: alone in a segment URL normalization would drop it.
    let alone = tool(
        "/p/{color}/x",
        vec![styled("color", Location::Path, Some("label"), None)],
    );
    for value in [json!([]), json!("."), json!({})] {
        let result = upstream
            .invoke(&alone, args(json!({ "color": value })))
            .await;
        assert_error_containing(&result, &["`color`", "URL normalization"]);
    }
    assert!(server.requests().is_empty());

    // Beside literal text it is an ordinary segment.
    let beside = tool(
        "/p/file{color}",
        vec![styled("color", Location::Path, Some("label"), None)],
    );
    let request = server.call(&upstream, &beside, json!({"color": []})).await;
    assert_eq!(request.target, "/p/file.");
    let request = server
        .call(&upstream, &beside, json!({"color": ["json", "gz"]}))
        .await;
    assert_eq!(request.target, "/p/file.json,gz");
}

#[tokio::test(flavor = "multi_thread")]
async fn path_values_percent_encode_reserved_and_non_ascii_characters() {
    let (f, t) = (Some(false), Some(true));
    let (label, matrix) = (Some("label"), Some("matrix"));
    let nasty = json!("a b/c?d#e%f");
    check_cases(
        Location::Path,
        "/p/{color}",
        &[
            (None, None, nasty.clone(), "/p/a%20b%2Fc%3Fd%23e%25f"),
            (None, None, json!("ü"), "/p/%C3%BC"),
            (None, None, json!("-._~"), "/p/-._~"),
            (
                None,
                None,
                json!(["a,b", "c;d", "e=f", "g.h"]),
                "/p/a%2Cb,c%3Bd,e%3Df,g.h",
            ),
            (label, t, json!(["a.b", "ü"]), "/p/.a.b.%C3%BC"),
            (label, f, nasty.clone(), "/p/.a%20b%2Fc%3Fd%23e%25f"),
            (matrix, f, json!(["x;y", "ü"]), "/p/;color=x%3By,%C3%BC"),
            (
                matrix,
                t,
                json!({"k y": "v=w", "ü": "&"}),
                "/p/;k%20y=v%3Dw;%C3%BC=%26",
            ),
            (None, t, json!({"a=b": "c,d"}), "/p/a%3Db=c%2Cd"),
        ],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn matrix_parameter_name_is_percent_encoded() {
    let server = Server::start().await;
    let tool = tool(
        "/p/{the id}",
        vec![styled("the id", Location::Path, Some("matrix"), None)],
    );
    let request = server
        .call(&server.upstream(), &tool, json!({"the id": 5}))
        .await;
    assert_eq!(request.target, "/p/;the%20id=5");
}

// ---------------------------------------------------------------------------------------------
// Query.

#[tokio::test(flavor = "multi_thread")]
async fn query_form_matches_the_style_examples() {
    let (form, f, t) = (Some("form"), Some(false), Some(true));
    check_cases(
        Location::Query,
        "/q",
        &[
            // form (the default; explode defaults to true)
            (None, None, string(), "/q?color=blue"),
            (None, None, array(), "/q?color=blue&color=black&color=brown"),
            (None, None, object(), "/q?R=100&G=200&B=150"),
            (form, t, string(), "/q?color=blue"),
            (form, t, array(), "/q?color=blue&color=black&color=brown"),
            (form, t, object(), "/q?R=100&G=200&B=150"),
            (form, f, string(), "/q?color=blue"),
            (form, f, array(), "/q?color=blue,black,brown"),
            (form, f, object(), "/q?color=R,100,G,200,B,150"),
            (None, f, array(), "/q?color=blue,black,brown"),
        ],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn query_space_and_pipe_delimited_match_the_style_examples() {
    let (space, pipe) = (Some("spaceDelimited"), Some("pipeDelimited"));
    let (f, t) = (Some(false), Some(true));
    check_cases(
        Location::Query,
        "/q",
        &[
            (space, None, array(), "/q?color=blue%20black%20brown"),
            (space, f, array(), "/q?color=blue%20black%20brown"),
            (space, f, object(), "/q?color=R%20100%20G%20200%20B%20150"),
            (space, f, string(), "/q?color=blue"),
            (space, t, array(), "/q?color=blue&color=black&color=brown"),
            // `|` is sent percent-encoded.
            (pipe, None, array(), "/q?color=blue%7Cblack%7Cbrown"),
            (pipe, f, array(), "/q?color=blue%7Cblack%7Cbrown"),
            (pipe, f, object(), "/q?color=R%7C100%7CG%7C200%7CB%7C150"),
            (pipe, f, string(), "/q?color=blue"),
            (pipe, t, array(), "/q?color=blue&color=black&color=brown"),
            // A delimiter inside a value is encoded, so it stays distinguishable.
            (pipe, f, json!(["a|b", "c d"]), "/q?color=a%7Cb%7Cc%20d"),
            (space, f, json!(["a b", "c|d"]), "/q?color=a%20b%20c%7Cd"),
        ],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn query_deep_object_uses_encoded_brackets() {
    let deep = Some("deepObject");
    check_cases(
        Location::Query,
        "/q",
        &[
            (
                deep,
                Some(true),
                object(),
                "/q?color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150",
            ),
            (
                deep,
                None,
                object(),
                "/q?color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150",
            ),
            // Nesting continues the bracket convention; array items are indexed.
            (
                deep,
                Some(true),
                json!({"user": {"name": "Ann", "age": 3}, "tags": ["a", "b"], "skip": null}),
                "/q?color%5Buser%5D%5Bname%5D=Ann&color%5Buser%5D%5Bage%5D=3\
                 &color%5Btags%5D%5B0%5D=a&color%5Btags%5D%5B1%5D=b",
            ),
            // A top-level array is indexed too, with or without explode.
            (
                deep,
                Some(true),
                array(),
                "/q?color%5B0%5D=blue&color%5B1%5D=black&color%5B2%5D=brown",
            ),
            (
                deep,
                Some(false),
                array(),
                "/q?color%5B0%5D=blue&color%5B1%5D=black&color%5B2%5D=brown",
            ),
            // Reserved characters in keys and values are encoded.
            (
                deep,
                Some(true),
                json!({"a[b]": "c&d=e", "ü": "ü"}),
                "/q?color%5Ba%5Bb%5D%5D=c%26d%3De&color%5B%C3%BC%5D=%C3%BC",
            ),
            // A scalar has no brackets to add; it is written as form.
            (deep, Some(true), string(), "/q?color=blue"),
        ],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn query_values_percent_encode_reserved_and_non_ascii_characters() {
    let f = Some(false);
    check_cases(
        Location::Query,
        "/q",
        &[
            (
                None,
                None,
                json!("a b/c?d#e%f"),
                "/q?color=a%20b%2Fc%3Fd%23e%25f",
            ),
            (None, None, json!("ü"), "/q?color=%C3%BC"),
            (None, None, json!("x&y=z+1"), "/q?color=x%26y%3Dz%2B1"),
            (
                None,
                None,
                json!(["a,b", "ü"]),
                "/q?color=a%2Cb&color=%C3%BC",
            ),
            (None, f, json!(["a,b", "ü"]), "/q?color=a%2Cb,%C3%BC"),
            (None, None, json!({"k&": "v="}), "/q?k%26=v%3D"),
            (None, f, json!({"k,": "ü"}), "/q?color=k%2C,%C3%BC"),
        ],
    )
    .await;
}

/// `allowReserved: true` keeps RFC 3986 reserved characters literal in query values, except
/// `&` and `#` (which would end the value or the query) and `'` (which URL parsers encode in
/// http queries anyway); existing `%XX` triples pass through, a lone `%` is encoded.
#[tokio::test(flavor = "multi_thread")]
async fn query_allow_reserved_keeps_reserved_characters_literal() {
    let server = Server::start().await;
    let upstream = server.upstream();
    let reserved =
        |name: &'static str, style: Option<&'static str>, explode: Option<bool>| ArgBinding {
            allow_reserved: true,
            ..styled(name, Location::Query, style, explode)
        };
    let tool = tool(
        "/search",
        vec![
            reserved("q", None, None),
            arg("plain", Location::Query),
            reserved("ids", None, Some(false)),
            reserved("filter", Some("deepObject"), None),
        ],
    );
    let value = ":/?#[]@!$&'()*+,;= %41%zz ü";
    let request = server
        .call(
            &upstream,
            &tool,
            json!({
                "q": value,
                "plain": value,
                "ids": ["a/b", "c:d"],
                "filter": {"path[0]": "x/y?z"},
            }),
        )
        .await;
    assert_eq!(
        request.target,
        "/search?q=:/?%23[]@!$%26%27()*+,;=%20%41%25zz%20%C3%BC\
         &plain=%3A%2F%3F%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D%20%2541%25zz%20%C3%BC\
         &ids=a/b,c:d\
         &filter%5Bpath%5B0%5D%5D=x/y?z"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn query_numbers_booleans_null_and_empty_values() {
    let server = Server::start().await;
    let upstream = server.upstream();
    let tool = tool(
        "/q",
        vec![
            arg("n", Location::Query),
            arg("b", Location::Query),
            arg("gone", Location::Query),
            arg("none", Location::Query),
            styled("none2", Location::Query, Some("form"), Some(false)),
            styled("none3", Location::Query, Some("pipeDelimited"), None),
            styled("none4", Location::Query, Some("deepObject"), None),
            arg("holes", Location::Query),
        ],
    );
    let request = server
        .call(
            &upstream,
            &tool,
            json!({
                "n": 1.5,
                "b": false,
                "gone": null,
                "none": [],
                "none2": [],
                "none3": [],
                "none4": {},
                "holes": [1, null, 2],
            }),
        )
        .await;
    assert_eq!(request.target, "/q?n=1.5&b=false&holes=1&holes=2");

    // With nothing to send there is no `?` at all.
    let request = server
        .call(&upstream, &tool, json!({"none": [], "gone": null}))
        .await;
    assert_eq!(request.target, "/q");
}

#[tokio::test(flavor = "multi_thread")]
async fn query_name_is_percent_encoded() {
    let server = Server::start().await;
    let tool = tool(
        "/q",
        vec![ArgBinding {
            wire: "filter[name]",
            ..arg("filter_name", Location::Query)
        }],
    );
    let request = server
        .call(&server.upstream(), &tool, json!({"filter_name": "ü x"}))
        .await;
    assert_eq!(request.target, "/q?filter%5Bname%5D=%C3%BC%20x");
}

#[tokio::test(flavor = "multi_thread")]
async fn path_and_query_together() {
    let server = Server::start().await;
    let tool = tool(
        "/users/{id}/posts{sel}",
        vec![
            styled("id", Location::Path, Some("label"), Some(true)),
            styled("sel", Location::Path, Some("matrix"), Some(true)),
            styled("tags", Location::Query, Some("pipeDelimited"), None),
            styled("page", Location::Query, Some("deepObject"), None),
        ],
    );
    let request = server
        .call(
            &server.upstream(),
            &tool,
            json!({
                "id": [3, 4],
                "sel": {"year": 2024},
                "tags": ["x", "y"],
                "page": {"size": 10},
            }),
        )
        .await;
    assert_eq!(
        request.target,
        "/users/.3.4/posts;year=2024?tags=x%7Cy&page%5Bsize%5D=10"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn styles_outside_their_location_are_errors_and_send_nothing() {
    let server = Server::start().await;
    let upstream = server.upstream();
    for (binding, needles) in [
        (
            styled("color", Location::Query, Some("matrix"), None),
            &["`color`", "`matrix`", "query"][..],
        ),
        (
            styled("color", Location::Path, Some("form"), None),
            &["`color`", "`form`", "path"][..],
        ),
        (
            styled("color", Location::Header, Some("label"), None),
            &["`color`", "`label`", "header"][..],
        ),
        (
            styled("color", Location::Cookie, Some("deepObject"), None),
            &["`color`", "`deepObject`", "cookie"][..],
        ),
        (
            styled("color", Location::Query, Some("fancy"), None),
            &["`color`", "`fancy`", "not an OpenAPI style"][..],
        ),
    ] {
        let path = if binding.location == Location::Path {
            "/p/{color}"
        } else {
            "/p"
        };
        let tool = tool(path, vec![binding]);
        let result = upstream.invoke(&tool, args(json!({"color": "x"}))).await;
        assert_error_containing(&result, needles);
    }
    assert!(server.requests().is_empty());
}

// ---------------------------------------------------------------------------------------------
// Header.

#[tokio::test(flavor = "multi_thread")]
async fn header_simple_matches_the_style_examples() {
    let server = Server::start().await;
    let upstream = server.upstream();
    let (s, f, t) = (Some("simple"), Some(false), Some(true));
    for (style, explode, value, expected) in [
        (None, None, string(), Some("blue")),
        (None, None, array(), Some("blue,black,brown")),
        (None, None, object(), Some("R,100,G,200,B,150")),
        (s, f, array(), Some("blue,black,brown")),
        (s, f, object(), Some("R,100,G,200,B,150")),
        (s, t, array(), Some("blue,black,brown")),
        (s, t, object(), Some("R=100,G=200,B=150")),
        (None, None, json!(42), Some("42")),
        (None, None, json!(true), Some("true")),
        // Header values are not percent-encoded.
        (None, None, json!("a b/c?d#e%f"), Some("a b/c?d#e%f")),
        // An empty array sends no header.
        (None, None, json!([]), None),
    ] {
        let tool = tool(
            "/h",
            vec![ArgBinding {
                arg: "color",
                wire: "X-Color",
                ..styled("", Location::Header, style, explode)
            }],
        );
        let request = server
            .call(&upstream, &tool, json!({ "color": value }))
            .await;
        assert_eq!(
            request.header("x-color"),
            expected,
            "style {style:?}, explode {explode:?}, value {value}"
        );
        assert_eq!(
            request.header_all("x-color").len(),
            usize::from(expected.is_some())
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn non_ascii_header_value_is_an_error() {
    let server = Server::start().await;
    let tool = tool(
        "/h",
        vec![ArgBinding {
            wire: "X-Name",
            ..arg("name", Location::Header)
        }],
    );
    let result = server
        .upstream()
        .invoke(&tool, args(json!({"name": "ü"})))
        .await;
    assert_error_containing(&result, &["`name`", "X-Name", "non-ASCII"]);
    assert!(server.requests().is_empty());
}

// ---------------------------------------------------------------------------------------------
// Cookie.

fn cookie_tool() -> ToolDef {
    tool(
        "/c",
        vec![
            arg("session", Location::Cookie),
            styled("ids", Location::Cookie, Some("form"), Some(false)),
            arg("tags", Location::Cookie),
            styled("prefs", Location::Cookie, None, Some(false)),
            arg("flags", Location::Cookie),
            arg("empty", Location::Cookie),
            arg("gone", Location::Cookie),
        ],
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn cookies_are_one_form_style_cookie_header() {
    let server = Server::start().await;
    let request = server
        .call(
            &server.upstream(),
            &cookie_tool(),
            json!({
                "session": "a b;c,d=é",
                "ids": [3, 4],
                "tags": ["x", "y"],
                "prefs": {"R": 100, "G": 200},
                "flags": {"dark": true},
                "empty": [],
                "gone": null,
            }),
        )
        .await;
    assert_eq!(
        request.header_all("cookie"),
        vec![
            "session=a%20b%3Bc%2Cd%3D%C3%A9; ids=3,4; tags=x; tags=y; prefs=R,100,G,200; dark=true"
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn no_cookie_arguments_send_no_cookie_header() {
    let server = Server::start().await;
    let request = server
        .call(&server.upstream(), &cookie_tool(), json!({"empty": []}))
        .await;
    assert_eq!(request.header("cookie"), None);
}

#[tokio::test(flavor = "multi_thread")]
async fn cookie_arguments_merge_with_a_cookie_credential() {
    let server = Server::start().await;
    let upstream = Upstream::new(UpstreamConfig::new(&server.base).with_credential(
        Credential::Header {
            name: "Cookie".into(),
            value: "api_session=secret".into(),
        },
    ))
    .unwrap();
    let request = server
        .call(
            &upstream,
            &cookie_tool(),
            json!({"session": "s1", "ids": [1]}),
        )
        .await;
    assert_eq!(
        request.header_all("cookie"),
        vec!["session=s1; ids=1; api_session=secret"]
    );

    // Without cookie arguments the credential alone is sent.
    let request = server.call(&upstream, &cookie_tool(), json!({})).await;
    assert_eq!(request.header_all("cookie"), vec!["api_session=secret"]);
}

// ---------------------------------------------------------------------------------------------
// Preparing without sending.

/// `Upstream::prepare` builds exactly the request `invoke` sends, credentials included, and
/// sends nothing; arguments that cannot be placed give the message `invoke` would give.
#[tokio::test(flavor = "multi_thread")]
async fn prepare_builds_the_request_invoke_sends_without_sending_it() {
    let server = Server::start().await;
    let upstream = Upstream::new(
        UpstreamConfig::new(&server.base).with_credential(Credential::Bearer("t0k".into())),
    )
    .unwrap();
    let tool = tool(
        "/items/{id}",
        vec![
            styled("id", Location::Path, None, None),
            arg("tags", Location::Query),
            ArgBinding {
                wire: "X-Trace",
                ..arg("trace", Location::Header)
            },
        ],
    );
    let arguments = json!({"id": "a/b", "tags": ["x", "y"], "trace": "t-1"});
    let prepared = upstream.prepare(&tool, &args(arguments.clone())).unwrap();
    assert!(server.requests().is_empty(), "prepare sent a request");
    assert_eq!(prepared.method, "GET");
    assert_eq!(
        prepared.url,
        format!("{}/items/a%2Fb?tags=x&tags=y", server.base)
    );
    assert_eq!(
        prepared.headers,
        [
            ("x-trace".to_owned(), "t-1".to_owned()),
            ("authorization".to_owned(), "Bearer t0k".to_owned()),
        ]
    );
    assert_eq!(prepared.content_type, None);
    assert_eq!(prepared.body, None);
    let debug = format!("{prepared:?}");
    assert!(
        !debug.contains("t0k") && !debug.contains("tags=x"),
        "{debug}"
    );

    let sent = server.call(&upstream, &tool, arguments).await;
    assert_eq!(format!("{}{}", server.base, sent.target), prepared.url);
    assert_eq!(sent.header("x-trace"), Some("t-1"));
    assert_eq!(sent.header("authorization"), Some("Bearer t0k"));

    let problem = upstream.prepare(&tool, &args(json!({}))).unwrap_err();
    assert_eq!(
        problem,
        "cannot call GET /items/{id}: missing required argument `id` (path parameter `id`)"
    );
    let mut no_http = tool;
    no_http.http = None;
    let problem = upstream.prepare(&no_http, &Map::new()).unwrap_err();
    assert!(problem.contains("has no HTTP binding"), "{problem}");
    assert_eq!(server.requests().len(), 1);
}

/// A Stripe-shaped list call: `created[gt]` and `expand` as the `deepObject` query parameters
/// Stripe's spec declares, next to a plain `limit`. Brackets are `%5B`/`%5D` in a query (RFC
/// 3986 does not allow them unencoded there; Stripe decodes both spellings). `null` and an
/// empty array send nothing.
#[tokio::test(flavor = "multi_thread")]
async fn stripe_list_query_uses_indexed_brackets() {
    let server = Server::start().await;
    let upstream = server.upstream();
    let tool = tool(
        "/v1/customers",
        vec![
            styled("created", Location::Query, Some("deepObject"), Some(true)),
            styled("expand", Location::Query, Some("deepObject"), Some(true)),
            arg("limit", Location::Query),
            arg("starting_after", Location::Query),
        ],
    );
    let request = server
        .call(
            &upstream,
            &tool,
            json!({
                "created": {"gt": 1700000000, "lte": null},
                "expand": ["data.default_source", "data.tax"],
                "limit": 3,
                "starting_after": null,
            }),
        )
        .await;
    assert_eq!(request.method, "GET");
    assert_eq!(
        request.target,
        "/v1/customers?created%5Bgt%5D=1700000000\
         &expand%5B0%5D=data.default_source&expand%5B1%5D=data.tax&limit=3"
    );

    let request = server
        .call(
            &upstream,
            &tool,
            json!({"created": {"gt": 1, "lt": 2}, "expand": [], "limit": null}),
        )
        .await;
    assert_eq!(
        request.target,
        "/v1/customers?created%5Bgt%5D=1&created%5Blt%5D=2"
    );
}
