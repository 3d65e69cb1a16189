//! The log level of a session kept in the store (`--state-redis`): written when the client
//! sets it, read back when another replica rebuilds the session, so that the client's
//! `logging/setLevel` holds on every replica.

// `logging/setLevel` is deprecated by SEP-2577 but still in the protocol.
#![allow(deprecated)]

use mcpgen_contract::notify::{LogLevel, SessionLogLevel};
use mcpgen_state::Sessions;
use rmcp::RoleServer;
use rmcp::model::LoggingLevel;
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::SessionRestoreMarker;

/// The header that carries a Streamable HTTP session id.
const SESSION_HEADER: &str = "mcp-session-id";

/// The id of the session the request belongs to, as rmcp knows it.
fn session_of(context: &RequestContext<RoleServer>) -> Option<String> {
    let parts = context.extensions.get::<http::request::Parts>()?;
    let id = parts.headers.get(SESSION_HEADER)?.to_str().ok()?;
    Some(id.to_owned())
}

/// Records `level` as the level of the request's session.
pub(super) async fn remember(
    shared: Option<&Sessions>,
    context: &RequestContext<RoleServer>,
    level: LoggingLevel,
) {
    let (Some(shared), Some(id)) = (shared, session_of(context)) else {
        return;
    };
    let Ok(serde_json::Value::String(name)) = serde_json::to_value(level) else {
        return;
    };
    if let Err(error) = shared.set_level(&id, &name).await {
        tracing::warn!(session = %id, %error, "the session's log level is not kept for the other replicas");
    }
}

/// When `context` is the `initialize` rmcp replays to rebuild a session from the store, sets
/// `level` to the level the session set.
pub(super) async fn restore(
    shared: Option<&Sessions>,
    context: &RequestContext<RoleServer>,
    level: &SessionLogLevel,
) {
    let (Some(shared), Some(marker)) = (shared, context.extensions.get::<SessionRestoreMarker>())
    else {
        return;
    };
    let id = marker.id.to_string();
    match shared.record(&id).await {
        Ok(Some(record)) => {
            let wire = record
                .level
                .and_then(|name| serde_json::from_value::<LoggingLevel>(name.into()).ok());
            if let Some(wire) = wire {
                level.set(LogLevel::from_wire(wire));
            }
        }
        Ok(None) => {}
        Err(error) => {
            tracing::warn!(session = %id, %error, "the session's log level cannot be read back");
        }
    }
}
