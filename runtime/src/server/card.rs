//! Server cards: what a client can learn about the server before connecting.
//!
//! - `GET /.well-known/mcp.json`: `{name, version, description, endpoint, transports, auth}`.
//! - `GET /mcp/server-card`: the same facts in the draft MCP Server Card shape (SEP-2127,
//!   `experimental-ext-server-card`, schema `v2`): `$schema`, a reverse-DNS `name`,
//!   `version`, `description` (at most 100 characters), `title`, and `remotes` (one per
//!   transport, with absolute URLs, the auth header and the supported protocol versions).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};

use super::state::Inner;

/// The `$schema` of the draft server card.
pub(crate) const SERVER_CARD_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json";

/// Longest description the draft card allows.
const CARD_DESCRIPTION_MAX: usize = 100;

fn auth_kind(inner: &Inner) -> &'static str {
    #[cfg(feature = "oauth")]
    if inner.resource.oauth.is_some() {
        return "oauth2";
    }
    if inner.auth.is_some() {
        "api-key"
    } else {
        "none"
    }
}

fn description(inner: &Inner) -> String {
    inner
        .description
        .clone()
        .unwrap_or_else(|| format!("{} MCP server", inner.name))
}

/// `GET /.well-known/mcp.json`.
pub(crate) async fn well_known(State(inner): State<Arc<Inner>>) -> Json<Value> {
    Json(json!({
        "name": inner.name,
        "version": inner.version,
        "description": description(&inner),
        "endpoint": "/mcp",
        "transports": ["streamable-http", "sse"],
        "auth": auth_kind(&inner),
    }))
}

/// The card name: as configured, else `mcpgen.local/<name>` with characters outside the
/// allowed set replaced by `-`.
fn card_name(inner: &Inner) -> String {
    if let Some(name) = &inner.card_name {
        return name.clone();
    }
    let server: String = inner
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    let server = if server.is_empty() {
        "server".to_owned()
    } else {
        server
    };
    format!("mcpgen.local/{server}")
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        let mut s: String = text.chars().take(max - 1).collect();
        s.push('…');
        s
    }
}

/// The base URL the client reached: the `Host` header, and `https` when a proxy says so.
pub(crate) fn base_url(headers: &HeaderMap) -> String {
    let host = headers
        .get(axum::http::header::HOST)
        .and_then(|v| v.to_str().ok())
        .filter(|h| axum::http::uri::Authority::try_from(*h).is_ok())
        .unwrap_or("localhost");
    let scheme = match headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
    {
        Some(p) if p.eq_ignore_ascii_case("https") => "https",
        _ => "http",
    };
    format!("{scheme}://{host}")
}

/// What the `Authorization` header of the card carries.
fn auth_header_description(inner: &Inner) -> &'static str {
    #[cfg(feature = "oauth")]
    if inner.resource.oauth.is_some() {
        return "`Bearer <OAuth access token>` (see /.well-known/oauth-protected-resource), an API \
                key or a signed token; an API key may instead be sent as `X-API-Key`";
    }
    let _ = inner;
    "`Bearer <API key or token>`; an API key may instead be sent as `X-API-Key`"
}

/// `GET /mcp/server-card`.
pub(crate) async fn server_card(
    State(inner): State<Arc<Inner>>,
    headers: HeaderMap,
) -> Json<Value> {
    let base = base_url(&headers);
    let versions: Vec<&str> = ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .map(ProtocolVersion::as_str)
        .collect();
    let auth_headers = inner.auth.is_some().then(|| {
        json!([{
            "name": "Authorization",
            "description": auth_header_description(&inner),
            "isRequired": true,
            "isSecret": true,
        }])
    });
    let remote = |kind: &str, path: &str| {
        let mut remote = json!({
            "type": kind,
            "url": format!("{base}{path}"),
            "supportedProtocolVersions": versions,
        });
        if let (Some(headers), Some(obj)) = (&auth_headers, remote.as_object_mut()) {
            obj.insert("headers".to_owned(), headers.clone());
        }
        remote
    };
    let mut card = json!({
        "$schema": SERVER_CARD_SCHEMA,
        "name": card_name(&inner),
        "version": inner.version,
        "description": truncate(&description(&inner), CARD_DESCRIPTION_MAX),
        "remotes": [remote("streamable-http", "/mcp"), remote("sse", "/sse")],
    });
    if let (Some(title), Some(obj)) = (&inner.title, card.as_object_mut()) {
        obj.insert(
            "title".to_owned(),
            Value::String(truncate(title, CARD_DESCRIPTION_MAX)),
        );
    }
    Json(card)
}
