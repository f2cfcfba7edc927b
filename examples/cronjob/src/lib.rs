//! A CronJob operator, the kubebuilder book's tutorial written again on operator-rs: a
//! `CronJob` kind (`batch.tutorial.kubebuilder.io/v1`) that runs a Job on a cron schedule,
//! keeps a bounded history of finished Jobs, and follows a concurrency policy when a run is
//! due while the last one still runs.
//!
//! - [`api::v1`]: the kind, with its markers.
//! - [`schedule`]: cron schedules, read by the croner crate, and the runs due between two times.
//! - [`controller`]: the reconciler and its controller.
//! - [`webhooks`]: defaulting and validation.

pub mod api;
pub mod controller;
pub mod schedule;
pub mod webhooks;
