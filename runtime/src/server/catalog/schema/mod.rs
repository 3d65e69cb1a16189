//! A tool's schemas: full schemas put together from a generated crate's shared definitions,
//! and the validators of arguments and outputs.

pub(crate) mod full_schema;
pub(crate) mod validate;
