//! The rules an mcpgen server holds a request to besides authentication, each configured once
//! at start-up:
//!
//! - [`rate`]: rate limits per principal and per tool, kept in this process, or with the `redis`
//!   feature shared by every replica through Redis or Valkey (`shared_rate`);
//! - [`rebinding`]: the `Host` and `Origin` checks of the HTTP transports against DNS
//!   rebinding and cross-origin requests;
//! - [`sessions`]: the table of a catalog's sessions and the admission of new ones under the
//!   caps per principal and per catalog.
//!
//! Servers use these through `mcpgen_runtime`'s builder and command line. The crate depends on
//! nothing of the server but the principal of `mcpgen-identity` and the per-tool limits of
//! `mcpgen-contract`, so a limit or a check can be read, and tested, without a transport.
#![deny(missing_docs)]

pub mod rate;
pub mod rebinding;
pub mod sessions;
#[cfg(feature = "redis")]
pub mod shared_rate;
