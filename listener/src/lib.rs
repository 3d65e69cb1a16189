//! Accepting and serving an HTTP listener's connections (the MCP listener's and the
//! `/metrics` listener's) with hyper's connection builder, which (unlike `axum::serve`) can
//! bound the time a client takes to send a request's headers: a client that opens
//! connections and trickles its headers byte by byte (slowloris) has each connection closed
//! after the header read timeout.
//!
//! At most [`Serving::max_connections`] connections are served at once: past it the listener
//! stops accepting, so new connections wait in the kernel's listen backlog (and are refused by
//! the kernel once it is full) until a served one ends. Every connection is a task of its own.
//! Each request carries the [`HeadReceived`] instant in its extensions, from which the body
//! read deadline of every request counts, before authentication as after it.
//!
//! [`serve`] resolves once `stop` is cancelled and every connection has closed: on `stop`,
//! the listener is closed at once and each connection finishes the requests it has (HTTP/1
//! keep-alive ends, HTTP/2 sends GOAWAY).
//!
//! Connections speak HTTP/1.1; with the `http2` feature, HTTP/2 with prior knowledge too
//! (hyper-util's automatic builder tells the two apart by the connection's first bytes).
#![deny(missing_docs)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use futures::FutureExt;
#[cfg(not(feature = "http2"))]
use hyper::server::conn::http1::Builder;
#[cfg(feature = "http2")]
use hyper_util::rt::TokioExecutor;
use hyper_util::rt::{TokioIo, TokioTimer};
#[cfg(feature = "http2")]
use hyper_util::server::conn::auto::Builder;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};
use tokio_util::sync::CancellationToken;

/// How long accepting pauses after an error that is not about one connection (e.g. too many
/// open files), so the loop does not spin.
const ACCEPT_PAUSE: Duration = Duration::from_secs(1);

/// When a request's head had arrived (put into every request's extensions by [`serve`]):
/// the body read timeout counts from here, whatever layer reads the body.
#[derive(Debug, Clone, Copy)]
pub struct HeadReceived(pub Instant);

impl HeadReceived {
    /// The instant by which `extensions`' request must have sent its body, `timeout` after its
    /// head arrived (after now, for a request served without [`serve`]).
    pub fn body_deadline(extensions: &http::Extensions, timeout: Duration) -> Instant {
        let start = extensions
            .get::<HeadReceived>()
            .map_or_else(Instant::now, |head| head.0);
        start + timeout
    }
}

/// What happened to a connection, for the metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectionEvent {
    /// A connection is being served.
    Opened,
    /// A served connection ended.
    Closed,
    /// A connection waited in the listen backlog because the cap was reached.
    Waited,
}

/// Told of each [`ConnectionEvent`].
pub type ConnectionWatch = Arc<dyn Fn(ConnectionEvent) + Send + Sync>;

/// How a listener serves its connections.
#[derive(Clone)]
pub struct Serving {
    /// A client that has not sent a request's whole head within it has its connection closed.
    pub header_read_timeout: Duration,
    /// Connections served at once (at least one).
    pub max_connections: usize,
    /// Told of connections opened, closed and kept waiting.
    pub watch: Option<ConnectionWatch>,
}

impl Serving {
    fn tell(&self, event: ConnectionEvent) {
        if let Some(watch) = &self.watch {
            watch(event);
        }
    }
}

/// Serves `router` on `listener` until `stop` is cancelled and the open connections have
/// closed, within the limits of `serving`.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    serving: Serving,
    stop: CancellationToken,
) -> std::io::Result<()> {
    let builder = builder(serving.header_read_timeout);
    let slots = Arc::new(Semaphore::new(serving.max_connections.max(1)));
    // Each connection task holds a receiver; once all are dropped, every connection closed.
    let (closed_tx, closed_rx) = watch::channel(());
    loop {
        // A slot first: without one, nothing is accepted and new connections wait in the
        // listen backlog.
        let (slot, waited) = match slots.clone().try_acquire_owned() {
            Ok(slot) => (slot, None),
            Err(_) => {
                let slot = tokio::select! {
                    slot = slots.clone().acquire_owned() => slot,
                    () = stop.cancelled() => break,
                };
                let Ok(slot) = slot else { break };
                // A connection that is ready at once was waiting in the backlog.
                (slot, listener.accept().now_or_never())
            }
        };
        let accepted = match waited {
            Some(accepted) => {
                serving.tell(ConnectionEvent::Waited);
                accepted
            }
            None => tokio::select! {
                accepted = listener.accept() => accepted,
                () = stop.cancelled() => break,
            },
        };
        if let Some((tcp, remote)) = accepted_or_pause(accepted).await {
            let shared = (&router, &builder, &serving);
            spawn_connection(tcp, remote, shared, slot, (&stop, &closed_rx));
        }
    }
    drop(listener);
    drop(closed_rx);
    closed_tx.closed().await;
    Ok(())
}

/// The accepted connection; `None` after an accept error (pausing when the listener, not the
/// one connection, is at fault).
async fn accepted_or_pause(
    accepted: std::io::Result<(tokio::net::TcpStream, std::net::SocketAddr)>,
) -> Option<(tokio::net::TcpStream, std::net::SocketAddr)> {
    match accepted {
        Ok(accepted) => Some(accepted),
        Err(error) if is_connection_error(&error) => None,
        Err(error) => {
            tracing::error!(%error, "cannot accept a connection; pausing");
            tokio::time::sleep(ACCEPT_PAUSE).await;
            None
        }
    }
}

#[cfg(not(feature = "http2"))]
type ConnBuilder = Builder;
#[cfg(feature = "http2")]
type ConnBuilder = Builder<TokioExecutor>;

/// Serves one connection in a task of its own, holding `slot` until it ends.
fn spawn_connection(
    tcp: tokio::net::TcpStream,
    remote: std::net::SocketAddr,
    (router, builder, serving): (&Router, &ConnBuilder, &Serving),
    slot: tokio::sync::OwnedSemaphorePermit,
    (stop, closed_rx): (&CancellationToken, &watch::Receiver<()>),
) {
    // A response streamed as SSE (session requests) goes out in several writes; with
    // Nagle's algorithm on, each later write waits for the client's delayed ACK (about
    // 40 ms on Linux).
    if let Err(error) = tcp.set_nodelay(true) {
        tracing::debug!(%error, "cannot set TCP_NODELAY on a connection");
    }
    let tower = TowerToHyperService::new(router.clone());
    let service =
        hyper::service::service_fn(move |mut request: hyper::Request<hyper::body::Incoming>| {
            request
                .extensions_mut()
                .insert(HeadReceived(Instant::now()));
            hyper::service::Service::call(&tower, request)
        });
    let builder = builder.clone();
    let stop = stop.clone();
    let closed_rx = closed_rx.clone();
    let serving = serving.clone();
    serving.tell(ConnectionEvent::Opened);
    tokio::spawn(async move {
        #[cfg(feature = "http2")]
        let conn = builder.serve_connection_with_upgrades(TokioIo::new(tcp), service);
        #[cfg(not(feature = "http2"))]
        let conn = builder
            .serve_connection(TokioIo::new(tcp), service)
            .with_upgrades();
        let mut conn = std::pin::pin!(conn);
        let result = tokio::select! {
            result = conn.as_mut() => result,
            () = stop.cancelled() => {
                conn.as_mut().graceful_shutdown();
                conn.await
            }
        };
        if let Err(error) = result {
            tracing::debug!(%remote, %error, "connection ended with an error");
        }
        serving.tell(ConnectionEvent::Closed);
        drop(slot);
        drop(closed_rx);
    });
}

/// The connection builder: HTTP/1.1 with a deadline for each request's head.
#[cfg(not(feature = "http2"))]
fn builder(header_read_timeout: Duration) -> ConnBuilder {
    let mut builder = Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout);
    builder
}

/// The connection builder: HTTP/1.1 with a deadline for each request's head, or HTTP/2.
#[cfg(feature = "http2")]
fn builder(header_read_timeout: Duration) -> ConnBuilder {
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout);
    builder
}

/// Whether an accept error is about the one connection (which is gone), not the listener.
fn is_connection_error(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::ConnectionReset
    )
}
