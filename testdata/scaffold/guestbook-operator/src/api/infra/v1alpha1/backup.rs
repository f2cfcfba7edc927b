//! `infra.example.com/v1alpha1`, kind Backup. `cargo xtask manifests` turns these types into
//! `config/crd/bases/infra.example.com_backups.yaml`; edit them, then run it again.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use operator_derive::{CustomResource, Schema};
use serde::{Deserialize, Serialize};

/// Backup is the Schema for the backups API.
#[derive(CustomResource, Clone, Debug, PartialEq)]
#[resource(
    group = "infra.example.com",
    version = "v1alpha1",
    kind = "Backup",
    scope = "Cluster",
    storage
)]
#[subresource(status)]
#[printcolumn(
    name = "Ready",
    type = "string",
    json_path = ".status.conditions[?(@.type==\"Ready\")].status"
)]
#[printcolumn(name = "Age", type = "date", json_path = ".metadata.creationTimestamp")]
pub struct Backup {
    pub metadata: ObjectMeta,
    pub spec: BackupSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<BackupStatus>,
}

/// BackupSpec defines the desired state of Backup.
#[derive(Schema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BackupSpec {
    /// Foo is an example field of Backup: replace it with the fields of your API.
    /// Doc comments become the CRD's descriptions; markers such as
    /// `#[validation(max_length = 63)]` become its validation.
    #[validation(max_length = 63)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foo: Option<String>,
}

/// BackupStatus defines the observed state of Backup.
#[derive(Schema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BackupStatus {
    /// ObservedGeneration is the generation of the spec the last reconcile acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,

    /// Conditions tell how the Backup is doing. Ready is True once it is reconciled.
    #[schema(list_type = "map", list_map_keys = "type")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}
