//! The `generate!` crate's tests, one binary: each file is a module.

mod rebuild;
mod tools_list;
