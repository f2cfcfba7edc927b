//! The operator's API groups. `cargo operator create api` adds one module per group.

// +operator:scaffold:groups
