//! Accepting and serving an HTTP listener's connections (the MCP listener's and the
//! `/metrics` listener's) with hyper's connection builder, which (unlike `axum::serve`) can
//! bound the time a client takes to send a request's headers: a client that opens
//! connections and trickles its headers byte by byte (slowloris) has each connection closed
//! after the header read timeout, and never holds anything another client needs (every
//! connection is a task of its own; there is no connection cap for it to fill).
//!
//! [`serve`] resolves once `stop` is cancelled and every connection has closed: on `stop`,
//! the listener is closed at once and each connection finishes the requests it has (HTTP/1
//! keep-alive ends, HTTP/2 sends GOAWAY).
//!
//! Connections speak HTTP/1.1; with the `http2` feature, HTTP/2 with prior knowledge too
//! (hyper-util's automatic builder tells the two apart by the connection's first bytes).

use std::time::Duration;

use axum::Router;
#[cfg(not(feature = "http2"))]
use hyper::server::conn::http1::Builder;
#[cfg(feature = "http2")]
use hyper_util::rt::TokioExecutor;
use hyper_util::rt::{TokioIo, TokioTimer};
#[cfg(feature = "http2")]
use hyper_util::server::conn::auto::Builder;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// How long accepting pauses after an error that is not about one connection (e.g. too many
/// open files), so the loop does not spin.
const ACCEPT_PAUSE: Duration = Duration::from_secs(1);

/// Serves `router` on `listener` until `stop` is cancelled and the open connections have
/// closed. A client that has not sent a request's whole head within `header_read_timeout`
/// of starting it has its connection closed.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    header_read_timeout: Duration,
    stop: CancellationToken,
) -> std::io::Result<()> {
    let builder = builder(header_read_timeout);
    // Each connection task holds a receiver; once all are dropped, every connection closed.
    let (closed_tx, closed_rx) = watch::channel(());
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = stop.cancelled() => break,
        };
        let (tcp, remote) = match accepted {
            Ok(accepted) => accepted,
            Err(error) if is_connection_error(&error) => continue,
            Err(error) => {
                tracing::error!(%error, "cannot accept a connection; pausing");
                tokio::time::sleep(ACCEPT_PAUSE).await;
                continue;
            }
        };
        // A response streamed as SSE (session requests) goes out in several writes; with
        // Nagle's algorithm on, each later write waits for the client's delayed ACK (about
        // 40 ms on Linux).
        if let Err(error) = tcp.set_nodelay(true) {
            tracing::debug!(%error, "cannot set TCP_NODELAY on a connection");
        }
        let service = TowerToHyperService::new(router.clone());
        let builder = builder.clone();
        let stop = stop.clone();
        let closed_rx = closed_rx.clone();
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
            drop(closed_rx);
        });
    }
    drop(listener);
    drop(closed_rx);
    closed_tx.closed().await;
    Ok(())
}

/// The connection builder: HTTP/1.1 with a deadline for each request's head.
#[cfg(not(feature = "http2"))]
fn builder(header_read_timeout: Duration) -> Builder {
    let mut builder = Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout);
    builder
}

/// The connection builder: HTTP/1.1 with a deadline for each request's head, or HTTP/2.
#[cfg(feature = "http2")]
fn builder(header_read_timeout: Duration) -> Builder<TokioExecutor> {
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
