//! Server cards: what a client can learn about the server before connecting.
//!
//! - `GET /.well-known/mcp.json`: `{name, version, description, endpoint, transports, auth,
//!   catalogs}`: `endpoint` and `transports` describe the server's own catalog (no
//!   `endpoint` and no transports when only mounts serve), `catalogs` lists each mount's
//!   name, endpoint and transports.
//! - `GET /mcp/server-card`: the same facts in the draft MCP Server Card shape (SEP-2127,
//!   `experimental-ext-server-card`, schema `v2`): `$schema`, a reverse-DNS `name`,
//!   `version`, `description` (at most 100 characters), `title`, and `remotes` (one per
//!   transport really served, the server's own catalog first, then each mount's, with
//!   absolute URLs, the auth header and the supported protocol versions).
//!
//! Both move under the base path, and announce the public URL when one is configured (see
//! [`Placement`](crate::server::Placement)); otherwise URLs are built from `Host` and
//! `X-Forwarded-Proto`.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};

use crate::server::state::inner::Inner;
use crate::server::state::mounts::MountTable;
use crate::server::state::server::Server;

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
        .filter(|d| !d.trim().is_empty())
        .unwrap_or_else(|| format!("{} MCP server", inner.name))
}

/// What the cards describe: the server's own catalog (when served) and its mounts.
#[derive(Clone)]
pub(crate) struct CardState {
    inner: Arc<Inner>,
    /// Whether the server's own catalog is served at the MCP endpoint.
    serve_root: bool,
    /// The mounted catalogs, read on each request (they change while serving).
    mounts: Arc<MountTable>,
}

impl CardState {
    pub(crate) fn of(server: &Server) -> Self {
        Self {
            inner: server.inner.clone(),
            serve_root: server.serve_root,
            mounts: server.mounts.clone(),
        }
    }
}

/// The transports served at one catalog: Streamable HTTP at `base`, and legacy SSE at
/// `sse_base` + `/sse` when built in.
fn transports(base: &str, sse_base: &str) -> Vec<(&'static str, String)> {
    let mut served = vec![("streamable-http", base.to_owned())];
    if cfg!(feature = "legacy-sse") {
        served.push(("sse", format!("{sse_base}/sse")));
    }
    served
}

fn kinds(served: &[(&'static str, String)]) -> Value {
    served.iter().map(|(kind, _)| json!(kind)).collect()
}

/// `GET /.well-known/mcp.json`.
pub(crate) async fn well_known(State(state): State<CardState>) -> Json<Value> {
    let inner = &state.inner;
    let placement = &inner.placement;
    let announced = |path: &str| placement.public(path).unwrap_or_else(|| path.to_owned());
    let mut card = json!({
        "name": inner.name,
        "version": inner.version,
        "description": description(inner),
        "auth": auth_kind(inner),
    });
    let Some(obj) = card.as_object_mut() else {
        return Json(card);
    };
    if state.serve_root {
        let mcp = placement.mcp_path();
        obj.insert("endpoint".to_owned(), json!(announced(&mcp)));
        obj.insert(
            "transports".to_owned(),
            kinds(&transports(&mcp, &placement.base_path)),
        );
    } else {
        obj.insert("transports".to_owned(), json!([]));
    }
    let mounts = state.mounts.snapshot();
    if !mounts.is_empty() {
        let catalogs: Vec<Value> = mounts
            .iter()
            .map(|mount| {
                let name = &mount.name;
                let path = placement.mount_path(name);
                json!({
                    "name": name,
                    "endpoint": announced(&path),
                    "transports": kinds(&transports(&path, &path)),
                })
            })
            .collect();
        obj.insert("catalogs".to_owned(), Value::Array(catalogs));
    }
    Json(card)
}

/// The card name: as configured, else `mcpgen.local/<name>` with characters outside the
/// allowed set replaced by `-`.
fn card_name(inner: &Inner) -> String {
    if let Some(name) = &inner.card_name {
        return name.clone();
    }
    mcpgen_core::registry_name(&inner.name)
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

/// `GET /mcp/server-card`: one remote per transport served, the server's own catalog first,
/// then each mounted catalog's.
pub(crate) async fn server_card(State(state): State<CardState>, headers: HeaderMap) -> Json<Value> {
    let inner = &state.inner;
    let placement = &inner.placement;
    let versions: Vec<&str> = ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .map(ProtocolVersion::as_str)
        .collect();
    let auth_headers = json!([{
        "name": "Authorization",
        "description": auth_header_description(inner),
        "isRequired": true,
        "isSecret": true,
    }]);
    let remote = |kind: &str, path: &str, authenticated: bool| {
        let mut remote = json!({
            "type": kind,
            "url": placement.absolute(path, &headers),
            "supportedProtocolVersions": versions,
        });
        if let (true, Some(obj)) = (authenticated, remote.as_object_mut()) {
            obj.insert("headers".to_owned(), auth_headers.clone());
        }
        remote
    };
    let mut remotes = Vec::new();
    if state.serve_root {
        for (kind, path) in transports(&placement.mcp_path(), &placement.base_path) {
            remotes.push(remote(kind, &path, inner.auth.is_some()));
        }
    }
    for mount in state.mounts.snapshot() {
        let base = placement.mount_path(&mount.name);
        for (kind, path) in transports(&base, &base) {
            remotes.push(remote(kind, &path, mount.inner.auth.is_some()));
        }
    }
    let mut card = json!({
        "$schema": SERVER_CARD_SCHEMA,
        "name": card_name(inner),
        "version": inner.version,
        "description": truncate(&description(inner), CARD_DESCRIPTION_MAX),
        "remotes": remotes,
    });
    let title = inner.title.as_ref().filter(|t| !t.trim().is_empty());
    if let (Some(title), Some(obj)) = (title, card.as_object_mut()) {
        obj.insert(
            "title".to_owned(),
            Value::String(truncate(title, CARD_DESCRIPTION_MAX)),
        );
    }
    Json(card)
}
