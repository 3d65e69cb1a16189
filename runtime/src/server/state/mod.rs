//! What a built server shares: [`server::Server`], the handle users hold; [`inner::Inner`],
//! the state of one catalog that every connection and call reads; the table of mounted
//! catalogs; the count of calls in progress; and where the server sits behind a proxy.

pub(crate) mod inflight;
pub(crate) mod inner;
pub(crate) mod mounts;
#[cfg(feature = "http")]
pub(crate) mod placement;
#[cfg(feature = "http")]
pub(crate) mod resource_site;
pub(crate) mod server;
