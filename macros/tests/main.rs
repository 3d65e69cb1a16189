//! The macros' integration tests, one binary: each file is a module, `support` what they share.
//!
//! A binary of its own (`[[test]]` in `macros/Cargo.toml`): `ui`, the compile failures through
//! trybuild, which sets `MCPGEN_REPO` in its process's environment for the compilers it starts.

mod support;

mod context;
mod param_headers;
mod schema_options;
mod tools;
mod views;
