//! The runtime's integration tests, one binary: each file is a module, `support` what they share.
//!
//! Binaries of their own (`[[test]]` in `runtime/Cargo.toml`): `listener_http2` and
//! `server_code`, which need the runtime's `http2` and `code-mode` features, and
//! `server_upstream`, which captures everything its process logs (a process-wide trace
//! subscriber) and asserts that no secret is in it.

mod support;

mod asking;
mod audit;
mod auth;
mod auth_matrix;
mod context;
mod hostile_input;
mod oauth_bad_input;
mod prompts_resources;
mod replace_tools;
mod server_build;
mod server_describe;
mod server_http;
mod server_mounts;
mod server_no_output_schema;
mod server_search;
mod server_sessions;
mod server_sse;
mod server_stdio;
mod slow_clients;
mod stateless_calls;
mod task_polling;
mod tasks;
mod tools_list_bytes;
mod upstream;
mod upstream_bodies;
mod upstream_faults;
mod upstream_params;
mod upstream_results;
