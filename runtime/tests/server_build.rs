//! Building a server: what `build` and `serve_http` refuse, and what they say.

use crate::support::*;
use mcpgen_runtime::server::{ConfigProblem, Server, ServerError};
use mcpgen_runtime::{ToolAnnotations, ToolDef};

fn tool(name: &'static str, input_schema: &'static str) -> ToolDef {
    ToolDef {
        name,
        title: None,
        description: "a tool",
        input_schema,
        output_schema: None,
        full_input_schema: None,
        full_output_schema: None,
        full_defs: None,
        documented_output_schema: None,
        wrap_output: false,
        access: mcpgen_runtime::Access::Write,
        annotations: ToolAnnotations::default(),
        confirm: false,
        required_scope: None,
        plugin: None,
        http: None,
        declaration: None,
        view: None,
    }
}

static OTHER_SET: &[ToolDef] = &[ToolDef {
    name: "list_notes",
    title: None,
    description: "a second list_notes",
    input_schema: r#"{"type":"object"}"#,
    output_schema: None,
    full_input_schema: None,
    full_output_schema: None,
    full_defs: None,
    documented_output_schema: None,
    wrap_output: false,
    access: mcpgen_runtime::Access::Read,
    annotations: ToolAnnotations {
        read_only_hint: Some(true),
        destructive_hint: None,
        idempotent_hint: None,
        open_world_hint: None,
    },
    confirm: false,
    required_scope: None,
    plugin: None,
    http: None,
    declaration: None,
    view: None,
}];

fn problems(err: ServerError) -> Vec<ConfigProblem> {
    match err {
        ServerError::Config(problems) => problems,
        other => panic!("expected a configuration error, got {other}"),
    }
}

#[test]
fn duplicate_tool_names_across_sets_are_a_build_error_naming_the_tool() {
    let err = Server::builder("notes", "0.1.0")
        .tool_set(Notes::default())
        .tool_set(Notes {
            tools: Some(OTHER_SET),
            ..Notes::default()
        })
        .build()
        .unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("tool `list_notes` is defined twice"),
        "{message}"
    );
    assert!(message.contains("#1 and #2"), "{message}");
    assert_eq!(
        problems(err),
        [ConfigProblem::DuplicateTool {
            tool: "list_notes".into(),
            first_set: 1,
            second_set: 2,
        }]
    );
}

#[test]
fn every_problem_is_reported_at_once() {
    let broken: &'static [ToolDef] = Box::leak(Box::new([
        tool("not_json", "{"),
        tool("not_object", "[1]"),
        tool(
            "bad_keyword",
            r#"{"type":"object","properties":{"a":{"type":12}}}"#,
        ),
    ]));
    let err = Server::builder("notes", "0.1.0")
        .tool_set(Notes {
            tools: Some(broken),
            ..Notes::default()
        })
        .rate_limit(Some(0.0))
        .allowed_hosts(vec!["https://mcp.example.com/".into()])
        .allowed_origins(vec!["app.example.com".into()])
        .build()
        .unwrap_err();
    let message = err.to_string();
    for needle in [
        "tool `not_json`: the input schema is unusable",
        "tool `not_object`",
        "tool `bad_keyword`",
        "rate limit 0 is invalid",
        "allowed host `https://mcp.example.com/`",
        "allowed origin `app.example.com`",
    ] {
        assert!(
            message.contains(needle),
            "missing {needle:?} in:\n{message}"
        );
    }
    assert_eq!(problems(err).len(), 6);
}

#[test]
fn an_output_schema_that_does_not_parse_is_a_build_error() {
    let broken: &'static [ToolDef] = Box::leak(Box::new([ToolDef {
        output_schema: Some("nope"),
        ..tool("out", r#"{"type":"object"}"#)
    }]));
    let err = Server::builder("notes", "0.1.0")
        .tool_set(Notes {
            tools: Some(broken),
            ..Notes::default()
        })
        .build()
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("tool `out`: the output schema is unusable"),
        "{err}"
    );
}

#[tokio::test]
async fn serving_on_a_public_address_without_auth_is_refused() {
    let server = Server::builder("notes", "0.1.0")
        .tool_set(Notes::default())
        .no_auth()
        .build()
        .unwrap();
    let err = server
        .serve_http("0.0.0.0:0".parse().unwrap(), async {})
        .await
        .unwrap_err();
    assert!(matches!(err, ServerError::InsecureNoAuth { .. }), "{err}");
    assert!(err.to_string().contains("--insecure-no-auth"), "{err}");
}

#[tokio::test]
async fn insecure_no_auth_allows_a_public_address() {
    let server = Server::builder("notes", "0.1.0")
        .tool_set(Notes::default())
        .no_auth()
        .insecure_no_auth(true)
        .build()
        .unwrap();
    // Shut down at once: the point is that it starts.
    server
        .serve_http("0.0.0.0:0".parse().unwrap(), async {})
        .await
        .unwrap();
}

#[tokio::test]
async fn an_authenticated_server_may_listen_on_a_public_address() {
    let server = Server::builder("notes", "0.1.0")
        .tool_set(Notes::default())
        .authenticator(FixedKeys::new())
        .build()
        .unwrap();
    server
        .serve_http("0.0.0.0:0".parse().unwrap(), async {})
        .await
        .unwrap();
}

#[test]
fn tools_for_a_principal_follow_its_scopes() {
    let server = Server::builder("notes", "0.1.0")
        .tool_set(Notes::default())
        .build()
        .unwrap();
    assert_eq!(server.tools().len(), 5);
    let reader: Vec<&str> = server
        .tools_for(&FixedKeys::principal("reader-key"))
        .iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(reader, ["list_notes", "remote_status", "slow"]);
}

#[cfg(not(feature = "code-mode"))]
#[test]
fn code_mode_without_the_feature_stops_the_build_naming_the_feature() {
    let built = Server::builder("notes", "0.1.0")
        .tool_set(Notes::default())
        .tool_mode(mcpgen_runtime::server::ToolMode::Code)
        .build();
    let Err(ServerError::Config(problems)) = built else {
        panic!("code mode without the feature must not build");
    };
    assert!(
        matches!(problems.as_slice(), [ConfigProblem::CodeModeNotBuilt]),
        "{problems:?}"
    );
    let message = problems[0].to_string();
    assert!(
        message.contains("`code-mode` feature") && message.contains("--tool-mode code"),
        "{message}"
    );
}
