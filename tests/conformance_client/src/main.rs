//! `mcpgen-conformance-client URL`: what the conformance suite's client scenarios ask of a
//! client, done with `mcpgen-client`. The suite names the scenario in
//! `MCP_CONFORMANCE_SCENARIO` and passes credentials in `MCP_CONFORMANCE_CONTEXT` (JSON); the
//! client connects (signing in with OAuth when the server asks), lists the tools and calls
//! the ones the scenario expects. Sign-in is headless: the authorization URL is fetched and
//! its redirect followed to the loopback callback, as a browser would.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use mcpgen_client::answer::{ClientAnswers, ElicitAnswer, ElicitRequest, Elicitor};
use mcpgen_client::oauth::{Browser, ClientKey, IdentityProvider, OAuthOptions};
use mcpgen_client::{McpConfig, Session};
use mcpgen_core::BoxFuture;
use serde_json::{Map, Value, json};

/// The client id the suite's CIMD scenario expects (its metadata document URL).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// Accepts every form with the defaults its schema gives.
struct Defaults;

impl Elicitor for Defaults {
    fn elicit<'a>(&'a self, request: &'a ElicitRequest) -> BoxFuture<'a, ElicitAnswer> {
        Box::pin(async move {
            let mut answer = Map::new();
            for (name, field) in request.fields() {
                if let Some(default) = field.get("default") {
                    answer.insert(name.to_owned(), default.clone());
                }
            }
            ElicitAnswer::Accept(answer)
        })
    }
}

/// Fetches the authorization URL and follows its redirects until one reaches the loopback
/// callback, which ends the sign-in.
struct Headless;

impl Browser for Headless {
    fn open<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            let client = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|e| e.to_string())?;
            let mut next = url.to_owned();
            for _ in 0..10 {
                let answer = client
                    .get(&next)
                    .send()
                    .await
                    .map_err(|e| format!("GET {next}: {e}"))?;
                let Some(location) = answer
                    .headers()
                    .get("location")
                    .and_then(|v| v.to_str().ok())
                else {
                    return Ok(());
                };
                let base = reqwest::Url::parse(&next).map_err(|e| e.to_string())?;
                next = base.join(location).map_err(|e| e.to_string())?.to_string();
            }
            Err("too many redirects during sign-in".to_owned())
        })
    }
}

fn context_str(context: &Value, key: &str) -> Option<String> {
    context.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// The OAuth settings for `scenario`.
fn oauth(scenario: &str, context: &Value) -> OAuthOptions {
    let id = context_str(context, "client_id");
    let secret = context_str(context, "client_secret");
    let key = context_str(context, "private_key_pem");
    let idp = match (
        context_str(context, "idp_issuer"),
        context_str(context, "idp_token_endpoint"),
        context_str(context, "idp_client_id"),
        context_str(context, "idp_id_token"),
    ) {
        (Some(issuer), Some(token_endpoint), Some(client_id), Some(id_token)) => {
            Some(IdentityProvider {
                issuer,
                token_endpoint,
                client_id,
                id_token,
            })
        }
        _ => None,
    };
    let credentials = scenario.contains("client-credentials");
    let mut options = match (id, secret, idp, key) {
        (Some(id), Some(secret), Some(idp), _) => OAuthOptions::enterprise_managed(idp, id, secret),
        (Some(id), _, None, Some(pem)) if credentials => OAuthOptions::client_credentials_with_key(
            id,
            ClientKey {
                pem: pem.into_bytes(),
                algorithm: context_str(context, "signing_algorithm")
                    .unwrap_or_else(|| "ES256".to_owned()),
            },
        ),
        (Some(id), Some(secret), None, None) if credentials => {
            OAuthOptions::client_credentials(id, secret)
        }
        (Some(id), secret, _, _) => OAuthOptions::new().with_client(id, secret),
        _ => OAuthOptions::new(),
    };
    options = options
        .with_client_metadata_url(CLIENT_METADATA_URL)
        .with_token_dir(None)
        .with_browser(Arc::new(Headless));
    options.sign_in_timeout = Duration::from_secs(20);
    options
}

/// The lifecycle for the protocol revision the suite tests (`MCP_CONFORMANCE_PROTOCOL_VERSION`):
/// `server/discover` from 2026-07-28 on, the `initialize` handshake before.
fn lifecycle(version: &str) -> &'static str {
    if version >= "2026-07-28" {
        "discover"
    } else {
        "initialize"
    }
}

async fn run(url: &str, scenario: &str, context: &Value, version: &str) -> Result<(), String> {
    let config = McpConfig::from_json_str(
        &json!({"mcpServers": {"conformance": {
            "url": url, "allow_private": true, "timeout_ms": 60000,
            "lifecycle": lifecycle(version)
        }}})
        .to_string(),
    )
    .map_err(|e| e.to_string())?;
    let server = config
        .servers
        .get("conformance")
        .ok_or("the configuration has no server")?;
    let answers = ClientAnswers::new().with_elicitor(Arc::new(Defaults));
    let session =
        Session::connect_with_oauth("conformance", server, &answers, &oauth(scenario, context))
            .await
            .map_err(|e| e.to_string())?;
    let tools = session.list_tools().await.map_err(|e| e.to_string())?;
    // The calls the suite names in its context (with their arguments), else every tool.
    let named: Option<Vec<(String, Value)>> = context
        .get("toolCalls")
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .filter_map(|c| {
                    let name = c.get("name")?.as_str()?.to_owned();
                    Some((name, c.get("arguments").cloned().unwrap_or(json!({}))))
                })
                .collect()
        });
    let calls: Vec<(String, Value)> = match (scenario, named) {
        ("initialize", _) => Vec::new(),
        (_, Some(named)) => named,
        ("tools_call", None) => vec![("add_numbers".into(), json!({"a": 5, "b": 3}))],
        _ => tools.iter().map(|t| (t.name.clone(), json!({}))).collect(),
    };
    for (tool, args) in calls {
        let args = args.as_object().cloned().unwrap_or_default();
        session
            .call_tool(&tool, args)
            .await
            .map_err(|e| format!("tools/call {tool}: {e}"))?;
    }
    session.shutdown().await.map_err(|e| e.to_string())
}

#[tokio::main]
async fn main() -> ExitCode {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: mcpgen-conformance-client URL (scenario in MCP_CONFORMANCE_SCENARIO)");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").unwrap_or_default();
    match run(&url, &scenario, &context, &version).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{scenario}: {e}");
            ExitCode::FAILURE
        }
    }
}
