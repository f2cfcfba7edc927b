//! `backup.example.com/v1`: the hub and storage version.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::{CustomResource, Schema};
use serde::{Deserialize, Serialize};

/// Backup copies a volume on a schedule, within a time window.
#[derive(CustomResource, Clone, Debug, PartialEq)]
#[resource(
    group = "backup.example.com",
    version = "v1",
    kind = "Backup",
    namespaced,
    storage
)]
#[subresource(status)]
#[printcolumn(name = "Window", type = "string", json_path = ".spec.window")]
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
    /// Window is when copies may run, as "HH:MM-HH:MM" in UTC.
    #[validation(pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]-([01][0-9]|2[0-3]):[0-5][0-9]$")]
    pub window: String,
    /// Keep is how many copies are kept.
    #[validation(minimum = 1)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep: Option<i32>,
}

/// BackupStatus is what the last copy did.
#[derive(Schema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BackupStatus {
    /// LastCopy is when the last copy finished (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_copy: Option<String>,
}
