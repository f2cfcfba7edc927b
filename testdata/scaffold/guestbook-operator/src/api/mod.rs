//! The operator's API groups. `cargo operator create api` adds one module per group.

pub mod infra;
pub mod webapp;
// +operator:scaffold:groups
