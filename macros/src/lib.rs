//! Procedural macros for mcpgen. Thin: they parse their input and call the generator library.
#![deny(missing_docs)]
