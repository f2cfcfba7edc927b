//! `webapp.example.com/v1`, kind Guestbook. `cargo xtask manifests` turns these types into
//! `config/crd/bases/webapp.example.com_guestbooks.yaml`; edit them, then run it again.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use operator_derive::{CustomResource, Schema};
use serde::{Deserialize, Serialize};

/// Guestbook is the Schema for the guestbooks API.
#[derive(CustomResource, Clone, Debug, PartialEq)]
#[resource(
    group = "webapp.example.com",
    version = "v1",
    kind = "Guestbook",
    namespaced,
    storage
)]
#[subresource(status)]
#[printcolumn(
    name = "Ready",
    type = "string",
    json_path = ".status.conditions[?(@.type==\"Ready\")].status"
)]
#[printcolumn(name = "Age", type = "date", json_path = ".metadata.creationTimestamp")]
pub struct Guestbook {
    pub metadata: ObjectMeta,
    pub spec: GuestbookSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<GuestbookStatus>,
}

/// GuestbookSpec defines the desired state of Guestbook.
#[derive(Schema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GuestbookSpec {
    /// Foo is an example field of Guestbook: replace it with the fields of your API.
    /// Doc comments become the CRD's descriptions; markers such as
    /// `#[validation(max_length = 63)]` become its validation.
    #[validation(max_length = 63)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foo: Option<String>,
}

/// GuestbookStatus defines the observed state of Guestbook.
#[derive(Schema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GuestbookStatus {
    /// ObservedGeneration is the generation of the spec the last reconcile acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,

    /// Conditions tell how the Guestbook is doing. Ready is True once it is reconciled.
    #[schema(list_type = "map", list_map_keys = "type")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}
