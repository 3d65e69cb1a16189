//! `mcpb/manifest.json`: the crate as an MCP Bundle for desktop hosts (MCPB manifest version
//! 0.3).
//!
//! The bundle runs the server binary (`server/<crate>`, `.exe` on Windows) over stdio with
//! `--no-auth`: a desktop host starts it for one local person. What the person configures on
//! installing it (`user_config`) reaches the server as the `MCPGEN_*` variables its flags read:
//! the upstream URL (with the spec's or allowlist's URL as the default) and one credential per
//! kind the API's security schemes take (an API key, a bearer token, a basic `USER:PASSWORD`),
//! each marked sensitive, and required when it is the only one (the server refuses to start
//! with a credential left empty or as an unfilled `${user_config.…}`, unless another one is
//! given). The manifest also lists the tools and the platforms.
//!
//! `mcpgen bundle` packs this manifest with a built binary; it narrows the platforms and the
//! entry point to the target it packs.

use serde_json::{Map, Value, json};

use crate::ir;

/// The MCPB manifest version written.
pub const MANIFEST_VERSION: &str = "0.3";

/// The arguments the bundle starts the server with.
const ARGS: [&str; 3] = ["--transport", "stdio", "--no-auth"];

/// The platforms a crate builds for, as MCPB names them.
const PLATFORMS: [&str; 3] = ["darwin", "linux", "win32"];

/// One value the person installing the bundle configures, and the variable it is passed in.
struct Setting {
    key: &'static str,
    env: &'static str,
    entry: Value,
}

/// A credential the server sends upstream, for the security schemes it `takes`.
struct Credential {
    key: &'static str,
    env: &'static str,
    title: &'static str,
    what: &'static str,
    takes: fn(&ir::SecurityKind) -> bool,
}

/// The credentials a generated server can be given, one per kind of security scheme.
const CREDENTIALS: [Credential; 3] = [
    Credential {
        key: "upstream_api_key",
        env: "MCPGEN_UPSTREAM_API_KEY",
        title: "API key",
        what: "API key sent to the REST API",
        takes: |k| {
            matches!(
                k,
                ir::SecurityKind::ApiKeyHeader(_)
                    | ir::SecurityKind::ApiKeyQuery(_)
                    | ir::SecurityKind::ApiKeyCookie(_)
            )
        },
    },
    Credential {
        key: "upstream_bearer",
        env: "MCPGEN_UPSTREAM_BEARER",
        title: "Bearer token",
        what: "Token sent to the REST API as `Authorization: Bearer`",
        takes: |k| matches!(k, ir::SecurityKind::Bearer | ir::SecurityKind::OAuth2),
    },
    Credential {
        key: "upstream_basic",
        env: "MCPGEN_UPSTREAM_BASIC",
        title: "User and password",
        what: "`USER:PASSWORD` sent to the REST API with HTTP basic authentication",
        takes: |k| matches!(k, ir::SecurityKind::Basic),
    },
];

/// The manifest of `server`'s bundle, as pretty JSON with a final newline.
pub(crate) fn manifest(server: &ir::Server) -> String {
    let binary = format!("{}-mcp", server.name);
    let settings = settings(server);
    let env: Map<String, Value> = settings
        .iter()
        .map(|s| {
            (
                s.env.to_owned(),
                json!(format!("${{user_config.{}}}", s.key)),
            )
        })
        .collect();
    let user_config: Map<String, Value> = settings
        .into_iter()
        .map(|s| (s.key.to_owned(), s.entry))
        .collect();
    let tools: Vec<Value> = server
        .tools
        .iter()
        .map(|t| {
            let summary = t.description.lines().next().unwrap_or_default().trim();
            if summary.is_empty() {
                json!({"name": t.name})
            } else {
                json!({"name": t.name, "description": summary})
            }
        })
        .collect();
    let title = server.title.trim();
    let shown = if title.is_empty() {
        &server.name
    } else {
        title
    };
    let description = if server.description.trim().is_empty() {
        format!("{} MCP server", server.name)
    } else {
        server.description.trim().to_owned()
    };
    let manifest = json!({
        "manifest_version": MANIFEST_VERSION,
        "name": server.name,
        "display_name": shown,
        "version": super::files::cargo_version(&server.version),
        "description": description,
        "author": {"name": shown},
        "server": {
            "type": "binary",
            "entry_point": format!("server/{binary}"),
            "mcp_config": {
                "command": format!("${{__dirname}}/server/{binary}"),
                "args": ARGS,
                "env": env,
                "platform_overrides": {
                    "win32": {"command": format!("${{__dirname}}/server/{binary}.exe")}
                }
            }
        },
        "tools": tools,
        "tools_generated": false,
        "compatibility": {"platforms": PLATFORMS},
        "user_config": user_config,
    });
    let mut text = serde_json::to_string_pretty(&manifest).unwrap_or_default();
    text.push('\n');
    text
}

/// What the person installing the bundle configures: the upstream URL, then one credential per
/// kind of security scheme the tools use.
fn settings(server: &ir::Server) -> Vec<Setting> {
    let mut url = json!({
        "type": "string",
        "title": "API URL",
        "description": "Base URL of the REST API the tools call",
    });
    match &server.upstream_url {
        Some(default) => {
            url["default"] = json!(default);
            url["required"] = json!(false);
        }
        None => url["required"] = json!(true),
    }
    let mut settings = vec![Setting {
        key: "upstream_url",
        env: "MCPGEN_UPSTREAM_URL",
        entry: url,
    }];
    for credential in CREDENTIALS {
        let schemes: Vec<String> = server
            .security_schemes
            .iter()
            .filter(|s| (credential.takes)(&s.kind))
            .map(|s| format!("`{}`{}", s.name, placement(&s.kind)))
            .collect();
        if schemes.is_empty() {
            continue;
        }
        settings.push(Setting {
            key: credential.key,
            env: credential.env,
            entry: json!({
                "type": "string",
                "title": credential.title,
                "description": format!("{} (security scheme {})", credential.what, schemes.join(", ")),
                "sensitive": true,
                "required": false,
            }),
        });
    }
    // The only credential is the one the person must fill in; of several, any one will do.
    let credentials = settings.len() - 1;
    if credentials == 1
        && let Some(only) = settings.last_mut()
    {
        only.entry["required"] = json!(true);
    }
    settings
}

/// Where an API key goes, for the description of its setting.
fn placement(kind: &ir::SecurityKind) -> String {
    match kind {
        ir::SecurityKind::ApiKeyHeader(name) => format!(", header `{name}`"),
        ir::SecurityKind::ApiKeyQuery(name) => format!(", query parameter `{name}`"),
        ir::SecurityKind::ApiKeyCookie(name) => format!(", cookie `{name}`"),
        _ => String::new(),
    }
}
