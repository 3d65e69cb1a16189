//! A tool's schemas: their text parsed and checked at start-up, full schemas put together
//! from a generated crate's shared definitions, and the validators of arguments and outputs.

pub(crate) mod full_schema;
pub(crate) mod parse;
pub(crate) mod validate;
