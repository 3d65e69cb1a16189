//! JSON Schema for application tools' types: schemars 1.x, whose items are all here, with its
//! `JsonSchema` derive replaced by one that names this module itself. `use
//! mcpgen::schemars::JsonSchema;` brings the trait and the derive, and `#[derive(JsonSchema)]`
//! then compiles without a `schemars` dependency or a `schemars` name in scope.

pub use mcpgen_runtime::schemars::*;

pub use mcpgen_macros::JsonSchema;
