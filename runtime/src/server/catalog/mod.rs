//! What a server serves, built at start-up (and again when its tools are replaced): the tool table of each catalog and its
//! schemas, the meta-tools, `describe_tools`, search mode, parameter headers, catalog settings
//! and mounts, prompts and resources.

pub(crate) mod catalog_config;
pub(crate) mod describe;
pub(crate) mod echo;
pub(crate) mod live;
pub(crate) mod meta_tool;
pub(crate) mod mount;
#[cfg(feature = "http")]
pub(crate) mod param_headers;
pub(crate) mod prompts;
pub(crate) mod resources;
pub(crate) mod schema;
#[cfg(feature = "search")]
pub(crate) mod search;
pub(crate) mod table;
