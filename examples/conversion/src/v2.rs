//! `backup.example.com/v2`: the window split into its two ends.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::{CustomResource, Schema};
use serde::{Deserialize, Serialize};

pub use crate::v1::BackupStatus;

/// Backup copies a volume on a schedule, within a time window.
// Clippy's duplicated_attributes takes the two columns' equal `type = "string"` for one
// attribute written twice (a false positive on helper attributes with arguments).
#[allow(clippy::duplicated_attributes)]
#[derive(CustomResource, Clone, Debug, PartialEq)]
#[resource(
    group = "backup.example.com",
    version = "v2",
    kind = "Backup",
    namespaced
)]
#[subresource(status)]
#[printcolumn(name = "From", type = "string", json_path = ".spec.window.start")]
#[printcolumn(name = "To", type = "string", json_path = ".spec.window.end")]
pub struct Backup {
    pub metadata: ObjectMeta,
    pub spec: BackupSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<BackupStatus>,
}

/// BackupSpec says what is copied and when.
#[derive(Schema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BackupSpec {
    /// Source is the PersistentVolumeClaim copied.
    #[validation(min_length = 1)]
    pub source: String,
    /// Window is when copies may run, in UTC.
    pub window: Window,
    /// Keep is how many copies are kept.
    #[validation(minimum = 1)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep: Option<i32>,
}

/// Window is a span of the day.
#[derive(Schema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Window {
    /// Start is when the window opens, "HH:MM".
    #[validation(pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$")]
    pub start: String,
    /// End is when it closes, "HH:MM".
    #[validation(pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$")]
    pub end: String,
}
