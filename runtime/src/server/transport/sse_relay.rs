//! The legacy SSE transport across replicas (`--state-redis`): a stream's replica records
//! itself as its holder and listens on its relay; a message POSTed to another replica is
//! checked against the owner the store names and relayed to the holder, which hands it to
//! the session as if it had been POSTed there (see [`mcpgen_state::relay`]).

use std::sync::Arc;

use axum::body::Bytes;
use axum::http::{HeaderName, HeaderValue, Method, Request};
use mcpgen_contract::toolset::{CallerCredential, OAuthAccessToken};
use mcpgen_identity::principal::Principal;
use mcpgen_state::relay::{HOLD, Holder};
use mcpgen_state::{Relay, Relayed};
use tokio_util::sync::CancellationToken;

/// The relay of the catalog whose message endpoint is `message_path`, listening until
/// `shutdown` and handing what it receives to `deliver`; `None` without a store.
pub(super) fn start(
    inner: &crate::server::state::inner::Inner,
    message_path: &str,
    shutdown: &CancellationToken,
    deliver: impl Fn(Relayed) + Send + 'static,
) -> Option<Relay> {
    let relay = inner
        .shared
        .as_ref()?
        .relay(&format!("{}:{message_path}", inner.name));
    let mut received = relay.listen(shutdown.clone());
    tokio::spawn(async move {
        while let Some(relayed) = received.recv().await {
            deliver(relayed);
        }
    });
    Some(relay)
}

/// The request parts of the POST a relayed message came in, with its principal and
/// credential as the authentication layer had put them.
pub(super) fn parts_of(relayed: &Relayed, principal: Principal) -> Option<http::request::Parts> {
    let mut request = Request::builder()
        .method(Method::POST)
        .uri(relayed.uri.as_str())
        .body(())
        .ok()?;
    for (name, value) in &relayed.headers {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(value),
        ) {
            request.headers_mut().append(name, value);
        }
    }
    let extensions = request.extensions_mut();
    extensions.insert(principal);
    match (&relayed.credential, relayed.oauth) {
        (Some(credential), false) => {
            extensions.insert(CallerCredential::new(credential.as_str()));
        }
        (Some(credential), true) => {
            extensions.insert(OAuthAccessToken(CallerCredential::new(credential.as_str())));
        }
        (None, _) => {}
    }
    Some(request.into_parts().0)
}

/// The message POSTed in `parts` and `body` for the session `id`, as it is relayed.
pub(super) fn relayed(id: &str, parts: &http::request::Parts, body: &Bytes) -> Option<Relayed> {
    let body = std::str::from_utf8(body).ok()?.to_owned();
    let headers = parts
        .headers
        .iter()
        .filter_map(|(name, value)| Some((name.to_string(), value.to_str().ok()?.to_owned())))
        .collect();
    let oauth = parts.extensions.get::<OAuthAccessToken>();
    let credential = match oauth {
        Some(token) => Some(token.0.expose().to_owned()),
        None => parts
            .extensions
            .get::<CallerCredential>()
            .map(|c| c.expose().to_owned()),
    };
    Some(Relayed {
        session: id.to_owned(),
        uri: parts.uri.to_string(),
        headers,
        body,
        credential,
        oauth: oauth.is_some(),
    })
}

/// Records `relay` as the holder of the stream `id` of `principal`, renewing the record until
/// `closed`, then forgetting it.
pub(super) fn hold(relay: &Relay, id: Arc<str>, principal: &Principal, closed: CancellationToken) {
    let (relay, owner) = (relay.clone(), principal.id.clone());
    tokio::spawn(async move {
        if let Err(error) = relay.hold(&id, &owner).await {
            tracing::warn!(session = %id, %error, "the stream's holder is not recorded: its messages must reach this replica");
        }
        let mut renew = tokio::time::interval(HOLD / 3);
        renew.tick().await;
        loop {
            tokio::select! {
                _ = renew.tick() => {
                    if let Err(error) = relay.renew(&id).await {
                        tracing::warn!(session = %id, %error, "the stream's holder record is not renewed");
                    }
                }
                () = closed.cancelled() => break,
            }
        }
        if let Err(error) = relay.release(&id).await {
            tracing::debug!(session = %id, %error, "the stream's holder record is left to expire");
        }
    });
}

/// Who holds the stream `id`, by the store; `None` when nobody does or the store is away.
pub(super) async fn holder(relay: &Relay, id: &str) -> Option<Holder> {
    match relay.holder(id).await {
        Ok(holder) => holder,
        Err(error) => {
            tracing::warn!(session = %id, %error, "the stream's holder cannot be read from the store");
            None
        }
    }
}
