//! The `mcpgen` command's integration tests, one binary: each file is a module, `support` what
//! they share. Most run the built `mcpgen` binary; the engine's own tests are in `codegen/tests`.

mod support;

mod access;
mod broken_operations;
mod budgets;
mod cli;
mod corpus;
mod corpus_documents;
mod corpus_sizes;
mod diff;
mod diff_url;
mod discriminator;
mod docker_context;
mod exclusions;
mod large_crate;
mod missing_features;
mod plugins;
mod profile_build;
mod profiles;
mod reference;
mod release_profile;
mod search_index;
mod sizes_code_mode;
mod spec_layer;
mod spec_url;
mod standalone_build;
mod views;
mod wire;
