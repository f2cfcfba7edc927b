//! The `infra.example.com` API group.

pub mod v1alpha1;
// +operator:scaffold:versions
