//! `mcpgen tools` and `mcpgen call`: list and call the tools of configured MCP servers.

use std::sync::Arc;

use mcpgen_client::formats::result_text;
use mcpgen_client::oauth::OAuthOptions;
use mcpgen_client::registry::{Registry, RegistryOptions};
use mcpgen_client::{ClientAnswers, McpConfig, Root, Session};

use crate::args::{CallArgs, ConfigArg, OAuthArgs, ToolsArgs};
use crate::ask::Terminal;
use mcpgen_runtime::{Content, ToolResult};
use serde_json::{Map, Value, json};

impl OAuthArgs {
    /// The client's OAuth settings.
    fn options(&self) -> Result<OAuthOptions, String> {
        let secret = match &self.client_secret_env {
            Some(var) => Some(std::env::var(var).map_err(|_| {
                format!("error: --client-secret-env: the environment variable {var} is not set")
            })?),
            None => None,
        };
        let mut options = OAuthOptions::new();
        if self.client_credentials {
            let (Some(id), Some(secret)) = (&self.client_id, secret.clone()) else {
                return Err(
                    "error: --client-credentials needs --client-id and --client-secret-env"
                        .to_owned(),
                );
            };
            options = OAuthOptions::client_credentials(id.clone(), secret);
        } else if let Some(id) = &self.client_id {
            options = options.with_client(id.clone(), secret);
        }
        if let Some(url) = &self.client_metadata_url {
            options = options.with_client_metadata_url(url.clone());
        }
        options.scopes = self.scopes.clone();
        options.redirect_port = self.redirect_port;
        if let Some(dir) = &self.token_dir {
            options.token_dir = Some(dir.clone());
        }
        Ok(options)
    }
}

impl ConfigArg {
    /// What the client answers when a server asks: questions on the terminal, and the
    /// `--root` folders.
    fn answers(&self) -> Result<ClientAnswers, String> {
        let mut answers = ClientAnswers::new().with_elicitor(Arc::new(Terminal::default()));
        if !self.roots.is_empty() {
            let mut roots = Vec::new();
            for dir in &self.roots {
                let absolute = std::path::absolute(dir)
                    .map_err(|e| format!("error: --root {}: {e}", dir.display()))?;
                roots.push(Root::from_path(&absolute).ok_or_else(|| {
                    format!("error: --root {}: not a usable folder path", dir.display())
                })?);
            }
            answers = answers.with_roots(roots);
        }
        Ok(answers)
    }
}

fn load(config: &ConfigArg) -> Result<McpConfig, String> {
    match &config.config {
        Some(path) => McpConfig::load(path),
        None => McpConfig::discover(),
    }
    .map_err(|e| format!("error: {e}"))
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("error: cannot start the async runtime: {e}"))
}

/// Runs `mcpgen tools`. Fails (after printing what it could) when a selected server failed.
pub fn tools(args: ToolsArgs) -> Result<(), String> {
    let mut config = load(&args.config)?;
    if !args.servers.is_empty() {
        let unknown: Vec<&str> = args
            .servers
            .iter()
            .filter(|s| !config.servers.contains_key(s.as_str()))
            .map(String::as_str)
            .collect();
        if !unknown.is_empty() {
            return Err(format!(
                "error: no server {} in the configuration (servers: {})",
                unknown
                    .iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                known(&config)
            ));
        }
        config.servers.retain(|name, _| args.servers.contains(name));
    }
    if config.enabled().next().is_none() {
        return Err(format!(
            "error: no enabled servers to list{}",
            if config.servers.is_empty() {
                " (the configuration has none)"
            } else {
                ""
            }
        ));
    }
    let answers = args.config.answers()?;
    let oauth = args.config.oauth.options()?;
    let rt = runtime()?;
    let (mut tools, failures) = rt.block_on(async {
        let options = RegistryOptions::default()
            .with_answers(answers)
            .with_oauth(oauth);
        let registry = Registry::connect_with(&config, options).await;
        let tools = registry.tools().await;
        let failures = registry.failures();
        // Failures to close are not worth failing a listing for.
        let _ = registry.shutdown().await;
        (tools, failures)
    });
    // Grouped by server, then by name.
    tools.sort_by(|a, b| (&a.server, &a.name).cmp(&(&b.server, &b.name)));
    if args.json {
        let out = json!({
            "tools": tools.iter().map(|t| json!({
                "name": t.name,
                "server": t.server,
                "tool": t.tool,
                "title": t.title,
                "description": t.description,
                "input_schema": t.input_schema,
            })).collect::<Vec<_>>(),
            "failures": failures.iter().map(|f| json!({
                "server": f.server,
                "error": f.error,
            })).collect::<Vec<_>>(),
        });
        println!("{out:#}");
    } else {
        let rows: Vec<[String; 3]> = tools
            .iter()
            .map(|t| {
                [
                    t.server.clone(),
                    t.name.clone(),
                    t.description.lines().next().unwrap_or_default().to_owned(),
                ]
            })
            .collect();
        crate::table::print_table(["SERVER", "TOOL", "DESCRIPTION"], &rows);
    }
    if failures.is_empty() {
        Ok(())
    } else {
        let lines: Vec<String> = failures
            .iter()
            .map(|f| format!("error: server `{}` failed: {}", f.server, f.error))
            .collect();
        Err(lines.join("\n"))
    }
}

fn known(config: &McpConfig) -> String {
    if config.servers.is_empty() {
        "none".to_owned()
    } else {
        config
            .servers
            .keys()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The raw result as MCP's `CallToolResult` JSON.
fn result_json(result: &ToolResult) -> Value {
    let content: Vec<Value> = result
        .content
        .iter()
        .map(|c| match c {
            Content::Text(text) => json!({"type": "text", "text": text}),
            Content::Image { data, mime_type } => {
                json!({"type": "image", "data": data, "mimeType": mime_type})
            }
            Content::Audio { data, mime_type } => {
                json!({"type": "audio", "data": data, "mimeType": mime_type})
            }
            Content::Resource {
                uri,
                mime_type,
                blob,
            } => json!({
                "type": "resource",
                "resource": {"uri": uri, "mimeType": mime_type, "blob": blob}
            }),
            Content::TextResource {
                uri,
                mime_type,
                text,
            } => json!({
                "type": "resource",
                "resource": {"uri": uri, "mimeType": mime_type, "text": text}
            }),
        })
        .collect();
    let mut out = Map::new();
    out.insert("content".into(), Value::Array(content));
    if let Some(s) = &result.structured_content {
        out.insert("structuredContent".into(), s.clone());
    }
    out.insert("isError".into(), Value::Bool(result.is_error));
    Value::Object(out)
}

/// Runs `mcpgen call`. Fails when the server cannot be reached or the result has `isError`.
pub fn call(args: CallArgs) -> Result<(), String> {
    let tool_args: Map<String, Value> = match serde_json::from_str::<Value>(&args.args) {
        Ok(Value::Object(map)) => map,
        Ok(other) => {
            return Err(format!(
                "error: --args must be a JSON object, got {}",
                mcpgen_runtime::json_kind(&other)
            ));
        }
        Err(e) => return Err(format!("error: --args is not valid JSON: {e}")),
    };
    let config = load(&args.config)?;
    let Some(server) = config.servers.get(&args.server) else {
        return Err(format!(
            "error: no server `{}` in the configuration (servers: {})",
            args.server,
            known(&config)
        ));
    };
    if server.disabled {
        return Err(format!(
            "error: server `{}` is disabled in the configuration",
            args.server
        ));
    }
    let answers = args.config.answers()?;
    let oauth = args.config.oauth.options()?;
    let rt = runtime()?;
    let outcome = rt.block_on(async {
        let session = Session::connect_with_oauth(&args.server, server, &answers, &oauth).await?;
        let result = session.call_tool(&args.tool, tool_args).await;
        let _ = session.shutdown().await;
        result
    });
    let result = outcome.map_err(|e| format!("error: {e}"))?;
    if args.json {
        println!("{:#}", result_json(&result));
    } else if !result.is_error {
        println!("{}", result_text(&result));
    }
    if result.is_error {
        let text = result_text(&result);
        return Err(format!(
            "error: tool `{}` on server `{}` failed: {}",
            args.tool,
            args.server,
            text.strip_prefix("Error: ").unwrap_or(&text)
        ));
    }
    Ok(())
}
