//! A kind served in two versions and converted by a webhook: the situation of kubebuilder's
//! multi-version tutorial (one field of the hub is split into parts in the other version),
//! here a `Backup` whose window is one `"HH:MM-HH:MM"` string in `v1` and a `start`/`end`
//! pair in `v2`.
//!
//! - [`v1`]: the hub and storage version;
//! - [`v2`]: the spoke, served beside it;
//! - [`conversion`]: the `From`/`TryFrom` impls between them and the [`Conversion`] the
//!   webhook server serves at `/convert`.
//!
//! The CRD (`config/crd/bases`) is generated from the types' markers, as for any kind; the
//! CRD patch in `config/crd/patches` switches its conversion to the webhook, as kubebuilder's
//! `create webhook --conversion` does. `tests/conversion.rs` proves the whole path against
//! the real API server.
//!
//! [`Conversion`]: operator_runtime::webhook::Conversion

pub mod conversion;
pub mod v1;
pub mod v2;
