//! The engine's integration tests, one binary: each file is a module. The snapshots of generated
//! files are in `snapshots/`, named by insta after this binary and the module
//! (`codegen__snapshots__…`).

mod budget_order;
mod profile_budgets;
mod robustness;
mod schema_convert;
mod snapshots;
mod task_tools;
mod tool_lists;
