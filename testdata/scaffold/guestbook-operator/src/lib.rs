//! The guestbook-operator operator:
//!
//! - [`api`]: its kinds, one module per group and version, with their markers;
//! - [`controllers`]: one reconciler per kind, and the list the manager runs.
//!
//! What every operator needs (leader election, metrics and probes, flags, logging, shutdown)
//! comes from `operator-runtime`.

pub mod api;
pub mod controllers;
pub mod webhooks;
// +operator:scaffold:modules
