//! The stateless fast path: stateless 2026-07-28 `tools/call`, `tools/list` and read
//! requests answered by the runtime's own handler, without rmcp's per-request machinery.

pub(crate) mod call_request;
pub(crate) mod stateless;
pub(crate) mod stateless_reads;
pub(crate) mod tools_list;
