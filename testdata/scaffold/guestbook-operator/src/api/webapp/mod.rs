//! The `webapp.example.com` API group.

pub mod v1;
pub mod v2;
// +operator:scaffold:versions
