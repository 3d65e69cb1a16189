//! The transports the client drives itself, around rmcp's: stdio child processes and legacy
//! HTTP+SSE, both read through the size-capped framing of [`frame`]; and the start of a
//! Streamable HTTP session ([`listen`]).

pub(crate) mod frame;
pub(crate) mod listen;
pub(crate) mod sse;
pub(crate) mod stdio;
