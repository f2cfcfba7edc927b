//! The API of the `batch.tutorial.kubebuilder.io` group.

pub mod v1;
