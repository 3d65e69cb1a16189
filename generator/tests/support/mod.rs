//! Helpers shared by the generator's integration tests; each test uses some of them.

pub mod corpus;
pub mod preview;
pub mod standalone;
pub mod stdio_server;
