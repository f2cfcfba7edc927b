//! The memcached operator of the kubebuilder and operator-sdk tutorials, on kube-rs:
//!
//! - [`api`]: the `cache.example.com/v1alpha1` Memcached kind, with its markers;
//! - [`resources`]: the Deployment and Service a Memcached owns, as pure functions;
//! - [`status`]: its status and conditions from what was observed, pure as well;
//! - [`controller`]: the reconciler (with the RBAC markers) and the controller around it;
//! - [`webhooks`]: the defaulting and validating admission webhooks (with their markers).
//!
//! What every operator needs (the manager: leader election, metrics and probes, flags,
//! logging, shutdown; the controller builder with its caches, applier, status writer and
//! events) comes from `operator-runtime`.

pub mod api;
pub mod controller;
pub mod resources;
pub mod status;
pub mod webhooks;
