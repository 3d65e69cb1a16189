//! Starting a Streamable HTTP session: the lifecycle its server entry asks for, and a
//! session that is handed out only once the stream on which the server sends its own
//! requests (the GET stream) is open.
//!
//! A server may send an elicitation or sampling request on that stream rather than on the
//! stream of the call that caused it; a server that finds the stream not yet open drops the
//! request, and the call then waits forever. rmcp opens the stream in the background right
//! after the handshake, so without waiting a first call can overtake it.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpClientTransportConfig, StreamableHttpError,
    StreamableHttpPostResponse,
};
use rmcp::{RoleClient, ServiceExt};
use tokio::sync::watch;

use crate::answer::Answerer;
use crate::config::Lifecycle;

/// Longest wait for the server's GET stream after the handshake; a server that takes longer
/// gets its session anyway (and may miss the race this module closes).
const LISTEN_WAIT: Duration = Duration::from_secs(10);

/// Why a Streamable HTTP session did not start.
pub(crate) enum ServeError {
    /// The handshake failed; the error and its causes.
    Handshake(String),
    /// The handshake took longer than the server entry's timeout.
    TimedOut,
}

/// An HTTP client that reports when the session's GET stream is open, refused, or known
/// not to come (a server without sessions).
#[derive(Clone)]
pub(crate) struct Listening<C> {
    inner: C,
    ready: Arc<watch::Sender<bool>>,
}

impl<C> Listening<C> {
    fn new(inner: C) -> (Self, watch::Receiver<bool>) {
        let (ready, listening) = watch::channel(false);
        let client = Self {
            inner,
            ready: Arc::new(ready),
        };
        (client, listening)
    }
}

/// Whether `message` starts a lifecycle (`initialize`, or `server/discover`).
fn starts_lifecycle(message: &ClientJsonRpcMessage) -> bool {
    matches!(
        message,
        ClientJsonRpcMessage::Request(r) if matches!(
            r.request,
            ClientRequest::InitializeRequest(_) | ClientRequest::DiscoverRequest(_)
        )
    )
}

impl<C: StreamableHttpClient + Sync> Listening<C> {
    /// After a lifecycle request: a server that gave no session id opens no GET stream.
    fn note_post(
        &self,
        starting: bool,
        answer: &Result<StreamableHttpPostResponse, StreamableHttpError<C::Error>>,
    ) {
        let sessionless = matches!(
            answer,
            Ok(StreamableHttpPostResponse::Json(_, None)
                | StreamableHttpPostResponse::Sse(_, None))
        );
        if starting && sessionless {
            self.ready.send_replace(true);
        }
    }
}

impl<C: StreamableHttpClient + Sync> StreamableHttpClient for Listening<C> {
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let starting = starts_lifecycle(&message);
        let answer = self
            .inner
            .post_message(uri, message, session_id, auth_header, custom_headers)
            .await;
        self.note_post(starting, &answer);
        answer
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let starting = starts_lifecycle(&message);
        let answer = self
            .inner
            .post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        self.note_post(starting, &answer);
        answer
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<
        BoxStream<'static, Result<sse_stream::Sse, SseError>>,
        StreamableHttpError<Self::Error>,
    > {
        let first = last_event_id.is_none();
        let stream = self
            .inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await;
        if first {
            self.ready.send_replace(true);
        }
        stream
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<
        BoxStream<'static, Result<sse_stream::Sse, SseError>>,
        StreamableHttpError<Self::Error>,
    > {
        let first = last_event_id.is_none();
        let stream = self
            .inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        if first {
            self.ready.send_replace(true);
        }
        stream
    }
}

/// rmcp's lifecycle mode for `lifecycle`.
fn mode(lifecycle: Lifecycle) -> ClientLifecycleMode {
    let modern = vec![ProtocolVersion::V_2026_07_28];
    match lifecycle {
        Lifecycle::Initialize => ClientLifecycleMode::Initialize,
        Lifecycle::Discover => ClientLifecycleMode::Discover {
            preferred_versions: modern,
        },
        Lifecycle::Auto => ClientLifecycleMode::Auto {
            preferred_versions: modern,
            legacy_version: None,
        },
    }
}

/// Connects `handler` over Streamable HTTP through `client` with `lifecycle`, within
/// `timeout`, and returns once the server can reach the client on its GET stream.
pub(crate) async fn serve_http<C>(
    handler: Answerer,
    client: C,
    config: StreamableHttpClientTransportConfig,
    lifecycle: Lifecycle,
    timeout: Duration,
) -> Result<RunningService<RoleClient, Answerer>, ServeError>
where
    C: StreamableHttpClient + Sync,
{
    let (client, mut listening) = Listening::new(client);
    let transport = StreamableHttpClientTransport::with_client(client, config);
    let start = async {
        match lifecycle {
            Lifecycle::Initialize => handler.serve(transport).await,
            other => handler.serve_with_lifecycle(transport, mode(other)).await,
        }
    };
    let service = tokio::time::timeout(timeout, start)
        .await
        .map_err(|_| ServeError::TimedOut)?
        .map_err(|e| ServeError::Handshake(crate::error_chain(&e)))?;
    if tokio::time::timeout(timeout.min(LISTEN_WAIT), listening.wait_for(|open| *open))
        .await
        .is_err()
    {
        tracing::debug!("the server's GET stream did not open in time; going on without it");
    }
    Ok(service)
}
