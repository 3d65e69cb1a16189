//! The official Python and TypeScript SDK clients against the generated Synaplan server whose
//! upstream drifts from its document: a prompt without the required `shortDescription`,
//! `null` for the documented string `prompt`, and fields the document does not have. Both
//! clients validate `structuredContent` against the advertised `outputSchema`; by default
//! they must accept the result and receive the data, and under `--output-check strict` they
//! must receive `isError: true` naming the field. Over stdio and Streamable HTTP.

use mcpgen_tests::{
    StandIn, node_bin, node_file, python_bin, repo_root, start_synaplan_http, workspace_binary,
};
use serde_json::{Value, json};

const DRIFTED: &str = r#"{"prompts":[{"id":7,"topic":"general","prompt":null,"language":"en","addedLater":{"by":"api v2"}}],"total":1}"#;

async fn drifted_upstream() -> StandIn {
    StandIn::start(vec![(
        "GET /api/v1/prompts",
        (200, "application/json", DRIFTED.to_owned()),
    )])
    .await
    .expect("stand-in starts")
}

#[derive(Clone, Copy, Debug)]
enum Sdk {
    Python,
    TypeScript,
}

/// Runs one official client: `target` is `["stdio", "--", cmd, args…]` or `["http", url, headers…]`.
async fn run_client(sdk: Sdk, transport: &str, target: &[String]) -> Value {
    let args = json!({"language": "en"});
    let mut cmd = match sdk {
        Sdk::Python => {
            let mut c = tokio::process::Command::new(python_bin("python"));
            c.arg(repo_root().join("tests/python/call_tool.py"));
            c.args([transport, "synaplan_list_prompts", &args.to_string()]);
            c
        }
        Sdk::TypeScript => {
            let calls = json!([{"name": "synaplan_list_prompts", "arguments": args}]);
            let mut c = tokio::process::Command::new(node_bin("node"));
            c.arg(node_file("list-and-call.mjs"));
            c.args([transport, &calls.to_string()]);
            c
        }
    };
    cmd.args(target).env("RUST_LOG", "error").kill_on_drop(true);
    let out = tokio::time::timeout(std::time::Duration::from_secs(60), cmd.output())
        .await
        .expect("client finishes within 60 s")
        .expect("client runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    let printed: Value = serde_json::from_str(line).unwrap_or_else(|_| {
        panic!(
            "{sdk:?} client printed no JSON line (status {}):\nstdout: {stdout}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    });
    // The TypeScript script reports a list of calls; this test makes one.
    match sdk {
        Sdk::TypeScript if printed["ok"] == json!(true) => printed["results"][0].clone(),
        _ => printed,
    }
}

/// The targets to test: stdio (the client starts the server) and Streamable HTTP.
async fn outcomes(upstream: &str, extra: &[&str]) -> Vec<(String, Value)> {
    let mut stdio = vec![
        "--".to_owned(),
        workspace_binary("synaplan-mcp").display().to_string(),
        "--no-auth".to_owned(),
        "--upstream-url".to_owned(),
        upstream.to_owned(),
    ];
    stdio.extend(extra.iter().map(|s| s.to_string()));
    let mut http_flags = vec!["--no-auth"];
    http_flags.extend_from_slice(extra);
    let (_server, url) = start_synaplan_http(upstream, &http_flags).await;
    let http = vec![format!("{url}/mcp")];
    let mut out = Vec::new();
    for sdk in [Sdk::Python, Sdk::TypeScript] {
        out.push((
            format!("{sdk:?} over stdio"),
            run_client(sdk, "stdio", &stdio).await,
        ));
        out.push((
            format!("{sdk:?} over HTTP"),
            run_client(sdk, "http", &http).await,
        ));
    }
    out
}

#[tokio::test]
async fn official_clients_receive_drifted_data_by_default() {
    let upstream = drifted_upstream().await;
    for (case, outcome) in outcomes(&upstream.url, &[]).await {
        assert_eq!(
            outcome["ok"],
            json!(true),
            "{case}: the client rejected the result: {outcome}"
        );
        assert_eq!(outcome["isError"], json!(false), "{case}: {outcome}");
        let prompt = &outcome["structuredContent"]["prompts"][0];
        assert_eq!(prompt["id"], json!(7), "{case}: {outcome}");
        assert_eq!(prompt["prompt"], Value::Null, "{case}: {outcome}");
        assert_eq!(
            prompt["addedLater"],
            json!({"by": "api v2"}),
            "{case}: {outcome}"
        );
        assert_eq!(
            outcome["structuredContent"]["total"],
            json!(1),
            "{case}: {outcome}"
        );
        let text = outcome["text"].to_string();
        assert!(
            text.contains("general"),
            "{case}: the text block carries the data: {outcome}"
        );
    }
}

#[tokio::test]
async fn official_clients_receive_an_error_naming_the_field_in_strict_mode() {
    let upstream = drifted_upstream().await;
    for (case, outcome) in outcomes(&upstream.url, &["--output-check", "strict"]).await {
        assert_eq!(
            outcome["ok"],
            json!(true),
            "{case}: the client rejected the result: {outcome}"
        );
        assert_eq!(outcome["isError"], json!(true), "{case}: {outcome}");
        let text = outcome["text"].to_string();
        assert!(
            text.contains("shortDescription") || text.contains("/prompts/0/prompt"),
            "{case}: the error names the field: {outcome}"
        );
    }
}

#[tokio::test]
async fn typed_client_stubs_decode_drifted_results() {
    let upstream = drifted_upstream().await;
    let config = mcpgen_runtime::UpstreamConfig::new(&upstream.url);
    let tools = synaplan_mcp::tool_set(mcpgen_runtime::Upstream::new(config).expect("upstream"));
    let connection = mcpgen_runtime::LocalConnection(tools);
    let client = synaplan_mcp::client::Client::new(&connection);
    let listed = client
        .synaplan_list_prompts(&synaplan_mcp::types::input::SynaplanListPromptsArgs {
            language: Some("en".into()),
        })
        .await
        .expect("a drifted result decodes");
    let prompts = listed.prompts.expect("prompts");
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].id, Some(7));
    assert_eq!(prompts[0].short_description, None, "left out upstream");
    assert_eq!(prompts[0].prompt, None, "null upstream");
    assert_eq!(prompts[0].topic.as_deref(), Some("general"));
}
