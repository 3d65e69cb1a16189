//! The upstream request encoders: path, query, header and cookie parameters in every style
//! (`simple`, `label`, `matrix`, `form`, `spaceDelimited`, `pipeDelimited`, `deepObject`,
//! explode or not, `allowReserved`), and JSON, form-urlencoded, multipart and text bodies.
//! The first byte picks a tool; the rest is its arguments as JSON. A request that is built
//! must have a URL on the configured base with the path template filled.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpgen_runtime::{
    ArgBinding as Arg, BodyBinding as BodyB, HttpBinding as Http, Location as L, PropertyEncoding,
    ToolDef, Upstream, UpstreamConfig,
};
use serde_json::{Map, Value};

const SCHEMA: &str = r#"{"type":"object"}"#;

const PATH_ARGS: &[Arg] = &[
    Arg::new("a", L::Path).required(),
    Arg::new("b", L::Path)
        .style("label")
        .explode(true)
        .required(),
    Arg::new("c", L::Path).style("matrix").required(),
    Arg::new("d", L::Query).style("deepObject").explode(true),
    Arg::new("e", L::Query)
        .style("spaceDelimited")
        .explode(false),
    Arg::new("f", L::Query)
        .style("pipeDelimited")
        .explode(false),
];
const QUERY_ARGS: &[Arg] = &[
    Arg::new("a", L::Query).explode(false),
    Arg::new("b", L::Query).allow_reserved(),
    Arg::new("c", L::Header).explode(true),
    Arg::new("d", L::Cookie).explode(false),
    Arg::new("e", L::Cookie),
    Arg::new("f", L::Header),
];
const FORM_ARGS: &[Arg] = &[
    Arg::new("a", L::BodyField),
    Arg::new("b", L::BodyField),
    Arg::new("c", L::BodyField),
    Arg::new("d", L::Query).style("form").explode(true),
];
const FORM_ENCODING: &[PropertyEncoding] = &[
    PropertyEncoding {
        property: "a",
        content_type: None,
        style: Some("deepObject"),
        explode: Some(true),
        allow_reserved: false,
    },
    PropertyEncoding {
        property: "b",
        content_type: None,
        style: Some("form"),
        explode: Some(false),
        allow_reserved: true,
    },
];
const MULTIPART_ENCODING: &[PropertyEncoding] = &[PropertyEncoding {
    property: "a",
    content_type: Some("image/png, application/octet-stream"),
    style: None,
    explode: None,
    allow_reserved: false,
}];
const BODY_ARGS: &[Arg] = &[Arg::new("body", L::Body).required()];

static TOOLS: &[ToolDef] = &[
    ToolDef::new("path", "", SCHEMA)
        .http(Http::new("GET", "/items/{a}/{b}{c}", "path").args(PATH_ARGS)),
    ToolDef::new("query", "", SCHEMA).http(Http::new("GET", "/items", "query").args(QUERY_ARGS)),
    ToolDef::new("form", "", SCHEMA).http(
        Http::new("POST", "/form", "form")
            .args(FORM_ARGS)
            .body(BodyB::new("application/x-www-form-urlencoded").encoding(FORM_ENCODING)),
    ),
    ToolDef::new("multipart", "", SCHEMA).http(
        Http::new("POST", "/upload", "multipart")
            .args(FORM_ARGS)
            .body(BodyB::new("multipart/form-data").encoding(MULTIPART_ENCODING)),
    ),
    ToolDef::new("json", "", SCHEMA).http(
        Http::new("PUT", "/json/{a}", "json")
            .args(BODY_ARGS)
            .body(BodyB::new("application/json").required()),
    ),
    ToolDef::new("text", "", SCHEMA).http(
        Http::new("POST", "/text", "text")
            .args(BODY_ARGS)
            .body(BodyB::new("text/plain")),
    ),
];

const BASE: &str = "http://127.0.0.1:9/api";

fn upstream() -> &'static Upstream {
    static UPSTREAM: std::sync::OnceLock<Upstream> = std::sync::OnceLock::new();
    UPSTREAM.get_or_init(|| Upstream::new(UpstreamConfig::new(BASE)).expect("an upstream"))
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let Ok(args) = serde_json::from_slice::<Map<String, Value>>(rest) else {
        return;
    };
    // The fixed tools above, then the real tables of two generated servers.
    let all: Vec<&ToolDef> = TOOLS
        .iter()
        .chain(synaplan_mcp::TOOLS.iter())
        .chain(library2_mcp::TOOLS.iter())
        .collect();
    let tool = all[usize::from(which) % all.len()];
    let Ok(prepared) = upstream().prepare(tool, &args) else {
        return;
    };
    let url = url::Url::parse(&prepared.url).expect("the URL parses");
    let base = tool.http.and_then(|h| h.server_url).unwrap_or(BASE);
    assert!(
        prepared.url.starts_with(base.trim_end_matches('/')),
        "{}",
        prepared.url
    );
    assert!(
        !url.path().contains('{'),
        "a path template left unfilled: {}",
        url.path()
    );
    assert_eq!(prepared.body.is_some(), prepared.content_type.is_some());
});
