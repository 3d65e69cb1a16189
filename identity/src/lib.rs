//! Who is calling an mcpgen server, and what they may call.
//!
//! - [`auth`]: credentials → [`Principal`]: API keys from a keys file (reloaded on change),
//!   HMAC-signed expiring tokens, the product's own key check (feature `key-check`), OAuth 2.1
//!   access tokens (feature `oauth`), and the [`Authenticator`](auth::Authenticator) trait and
//!   [`AuthChain`](auth::AuthChain) that combine them.
//! - [`principal`]: the [`Principal`] an authenticator yields and
//!   [`Principal::may_call`], which decides what it may see and call.
//!
//! The server runtime (`mcpgen-runtime`) re-exports both modules as `mcpgen_runtime::auth` and
//! `mcpgen_runtime::principal`; this crate knows nothing of transports, MCP or audit.
#![deny(missing_docs)]

pub mod auth;
pub mod principal;

pub use principal::Principal;
