//! The workspace's end-to-end tests, one binary: each file is a module, `support` what the
//! audit tests share. They start the workspace's binaries (`cargo build --workspace --bins` first;
//! `scripts/test.sh` builds them).

mod support;

mod app_crate;
mod architecture;
mod audit_db;
mod audit_metrics;
mod audit_spool;
mod book_links;
mod client_answers;
mod client_cli;
mod client_guards;
mod client_peers;
mod client_registry;
mod client_tasks;
mod confirm;
mod conformance;
mod conformance_client;
mod declarations;
mod key_check;
mod keys_reload;
mod kubernetes;
mod lifecycle;
mod mcp_bundle;
mod oauth;
mod official_clients_drift;
mod placement;
mod registry_entry;
mod replicas;
mod rooms;
mod rooms_live;
mod scale_out;
mod scale_out_tasks;
mod shared_limits;
mod synaplan_code;
mod synaplan_dispatch;
mod synaplan_plugins;
mod synaplan_search;
mod synaplan_server;
mod task_operations;
mod token_exchange;
mod token_rotation;
mod tools_json;
mod traces;
mod views;
mod walkthrough;
