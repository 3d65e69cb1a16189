//! The HTTP side of the OAuth resource server: RFC 9728 metadata routes, the
//! `WWW-Authenticate` challenges of a 401 and of a 403 `insufficient_scope`, and the layer that
//! answers a `tools/call` beyond the token's scopes with that 403.

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use mcpgen_core::tool::{Access, ToolDef};
use mcpgen_identity::Principal;
use mcpgen_identity::auth::quoted_text;
use serde_json::{Value, json};

use super::reply::jsonrpc_error;
use crate::server::state::inner::Inner;
use crate::server::state::mounts::MountTable;
use crate::server::state::resource_site::{METADATA_PATH, ResourceSite};

/// JSON-RPC error code of a call refused for lack of scope.
const INSUFFICIENT_SCOPE_CODE: i64 = -32003;

/// The scopes a new client asks for: reading and writing tools.
const DEFAULT_CHALLENGE_SCOPES: &[&str] = &["mcp:read", "mcp:write"];

/// The `WWW-Authenticate` value of a 401 on `site`, or `None` without OAuth.
/// `presented`: a token was sent (and refused), which adds `error="invalid_token"`.
pub(crate) fn challenge(
    site: &ResourceSite,
    headers: &HeaderMap,
    presented: Option<&str>,
) -> Option<String> {
    let oauth = site.oauth.as_ref()?;
    let mut value = format!(
        "Bearer resource_metadata=\"{}\", scope=\"{}\"",
        site.metadata_url(headers),
        oauth.scope_param(DEFAULT_CHALLENGE_SCOPES)
    );
    if let Some(description) = presented {
        value.push_str(&format!(
            ", error=\"invalid_token\", error_description=\"{}\"",
            quoted_text(description)
        ));
    }
    Some(value)
}

/// `GET /.well-known/oauth-protected-resource[/mcp[/<name>]]`.
async fn metadata(State(inner): State<Arc<Inner>>, headers: HeaderMap) -> Response {
    let site = &inner.resource;
    let Some(oauth) = &site.oauth else {
        return StatusCode::NOT_FOUND.into_response();
    };
    Json(json!({
        "resource": site.resource_url(&headers),
        "authorization_servers": [oauth.issuer],
        "scopes_supported": oauth.scopes_supported,
        "bearer_methods_supported": ["header"],
        "resource_name": inner.name,
    }))
    .into_response()
}

/// The metadata routes of a server: RFC 9728's path-suffixed form for its own catalog's path
/// (and, for it, the bare well-known path) and for every catalog mounted now or later; with a
/// base path, the same under the base path too (`<base>/.well-known/oauth-protected-resource`
/// and `…/<name>`), for proxies that forward only the prefix.
pub(crate) fn metadata_routes(
    inner: &Arc<Inner>,
    mounts: &Arc<MountTable>,
    serve_root: bool,
) -> Router {
    let placement = &inner.placement;
    let mut root = Router::new();
    if serve_root && inner.resource.oauth.is_some() {
        root = root.route(METADATA_PATH, get(metadata)).route(
            &format!("{METADATA_PATH}{}", inner.resource.path),
            get(metadata),
        );
        if !placement.base_path.is_empty() {
            root = root.route(&placement.root_path(METADATA_PATH), get(metadata));
        }
    }
    let mut mounted = Router::new().route(
        &format!("{METADATA_PATH}{}", placement.mount_path("{name}")),
        get(mount_metadata),
    );
    if !placement.base_path.is_empty() {
        mounted = mounted.route(
            &format!("{}/{{name}}", placement.root_path(METADATA_PATH)),
            get(mount_metadata),
        );
    }
    root.with_state(inner.clone())
        .merge(mounted.with_state(mounts.clone()))
}

/// The metadata of the catalog mounted as `name`; 404 when none is, or it takes no OAuth.
async fn mount_metadata(
    State(mounts): State<Arc<MountTable>>,
    axum::extract::Path(name): axum::extract::Path<String>,
    headers: HeaderMap,
) -> Response {
    match mounts.get(&name) {
        Some(inner) => metadata(State(inner), headers).await,
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// The scope a tool needs: its own, else `mcp:read` or `mcp:write` by its access.
fn needed_scope(tool: &ToolDef) -> &'static str {
    match (tool.required_scope, tool.access) {
        (Some(scope), _) => scope,
        (None, Access::Read) => "mcp:read",
        (None, Access::Write) => "mcp:write",
    }
}

/// Whether `principal` has the plugin `tool` belongs to (scopes cannot grant a plugin).
fn has_plugin(principal: &Principal, tool: &ToolDef) -> bool {
    tool.plugin
        .is_none_or(|plugin| principal.plugins.iter().any(|p| p == "*" || p == plugin))
}

/// Answers an OAuth caller's `tools/call` of a tool its scopes do not reach with 403 and
/// `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`, so that an OAuth client
/// can ask for more (step-up). Calls of tools hidden by plugin go on and are answered like an
/// unknown tool.
pub(crate) async fn check_scope(
    State(inner): State<Arc<Inner>>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() != Method::POST || inner.resource.oauth.is_none() {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    // The body-size layer has already read the body into memory, within its limit.
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return jsonrpc_error(
            StatusCode::BAD_REQUEST,
            -32600,
            "the request body could not be read",
        );
    };
    let refused = serde_json::from_slice::<Value>(&bytes)
        .ok()
        .and_then(|message| {
            let principal = parts.extensions.get::<Principal>()?;
            refused_tool(&inner, &message, principal)
        });
    if let Some((tool, scope)) = refused {
        return insufficient_scope(&inner.resource, &parts.headers, &tool, scope);
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// The tool a `tools/call` names and the scope it needs, when the principal lacks it.
fn refused_tool(
    inner: &Inner,
    message: &Value,
    principal: &Principal,
) -> Option<(String, &'static str)> {
    if message.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    // Only a token can be stepped up; a key's hidden tools stay answered like unknown ones.
    let from_token = principal
        .key_id
        .as_deref()
        .is_some_and(|id| id.starts_with(mcpgen_identity::auth::oauth::OAUTH_KEY_ID_PREFIX));
    if !from_token {
        return None;
    }
    let name = message.pointer("/params/name").and_then(Value::as_str)?;
    let tool = inner.tools.load().catalog.get(name)?.def;
    (has_plugin(principal, tool) && !principal.may_call(tool))
        .then(|| (name.to_owned(), needed_scope(tool)))
}

fn insufficient_scope(
    site: &ResourceSite,
    headers: &HeaderMap,
    tool: &str,
    scope: &str,
) -> Response {
    let names = site
        .oauth
        .as_ref()
        .map_or_else(|| scope.to_owned(), |o| o.scope_param(&[scope]));
    let message = format!("the tool `{tool}` needs the scope `{names}`");
    let mut response = jsonrpc_error(StatusCode::FORBIDDEN, INSUFFICIENT_SCOPE_CODE, &message);
    let value = format!(
        "Bearer error=\"insufficient_scope\", scope=\"{names}\", resource_metadata=\"{}\", \
         error_description=\"{}\"",
        site.metadata_url(headers),
        quoted_text(&message)
    );
    if let Ok(value) = HeaderValue::from_str(&value) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}
