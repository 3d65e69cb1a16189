//! What the audit tests share.

#![allow(dead_code)]

pub mod postgres;
