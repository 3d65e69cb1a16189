//! One `tools/call`, whatever the transport: the rmcp handler, the pipeline every call goes
//! through (visibility, rate limit, validation, confirmation, dispatch, audit) and search
//! mode's meta-tool calls.

pub(crate) mod confirm;
pub(crate) mod handler;
pub(crate) mod pipeline;
mod record;
#[cfg(feature = "search")]
pub(crate) mod search_call;
#[cfg(all(feature = "http", feature = "redis"))]
mod shared_level;
pub(crate) mod task_call;
