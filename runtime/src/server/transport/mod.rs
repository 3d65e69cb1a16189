//! The wire: Streamable HTTP (with the stateless fast path), legacy HTTP+SSE and stdio, the
//! routes of mounted catalogs and server cards, readiness and shutdown. Connections are
//! accepted by [`crate::listener`].

#[cfg(feature = "http")]
pub(crate) mod card;
#[cfg(feature = "http")]
pub(crate) mod catalog_routes;
#[cfg(feature = "http")]
pub(crate) mod fast_path;
#[cfg(feature = "http")]
pub(crate) mod http;
#[cfg(all(feature = "http", feature = "otel"))]
pub(crate) mod http_trace;
#[cfg(feature = "http")]
pub(crate) mod malformed;
#[cfg(not(feature = "http"))]
pub(crate) mod no_http;
#[cfg(feature = "http")]
pub(crate) mod ready;
#[cfg(feature = "http")]
pub(crate) mod replica;
#[cfg(feature = "http")]
pub(crate) mod session;
#[cfg(feature = "http")]
pub(crate) mod shared_service;
pub(crate) mod shutdown;
#[cfg(feature = "legacy-sse")]
pub(crate) mod sse;
#[cfg(all(feature = "legacy-sse", feature = "redis"))]
mod sse_relay;
#[cfg(feature = "stdio")]
pub(crate) mod stdio;
#[cfg(feature = "http")]
pub(crate) mod tasks_2025;
