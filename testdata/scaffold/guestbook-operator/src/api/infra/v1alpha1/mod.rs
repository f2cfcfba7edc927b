//! `infra.example.com/v1alpha1`: one module per kind.

mod backup;
pub use backup::*;
// +operator:scaffold:kinds
