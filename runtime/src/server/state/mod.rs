//! What a built server shares: [`server::Server`], the handle users hold, the state of each
//! catalog every connection and call reads, and where the server sits behind a proxy.

#[cfg(feature = "http")]
pub(crate) mod placement;
#[cfg(feature = "http")]
pub(crate) mod resource_site;
pub(crate) mod server;
