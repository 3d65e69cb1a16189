//! The macros' integration tests, one binary: each file is a module, `support` what they share.
//!
//! The compile failures are checked apart, by trybuild, in the package `tests/macros_ui`.

mod support;

mod context;
mod param_headers;
mod schema_options;
mod tools;
mod views;
