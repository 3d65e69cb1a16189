//! What the audit tests share.

pub mod postgres;
