//! `{{api_group}}/{{version}}`, kind {{kind}}. `cargo xtask manifests` turns these types into
//! `config/crd/bases/{{api_group}}_{{plural}}.yaml`; edit them, then run it again.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use operator_derive::{CustomResource, Schema};
use serde::{Deserialize, Serialize};

/// {{kind}} is the Schema for the {{plural}} API.
#[derive(CustomResource, Clone, Debug, PartialEq)]
#[resource(
    group = "{{api_group}}",
    version = "{{version}}",
    kind = "{{kind}}"{{resource_flags}}
)]
#[subresource(status)]
#[printcolumn(
    name = "Ready",
    type = "string",
    json_path = ".status.conditions[?(@.type==\"Ready\")].status"
)]
#[printcolumn(name = "Age", type = "date", json_path = ".metadata.creationTimestamp")]
pub struct {{kind}} {
    pub metadata: ObjectMeta,
    pub spec: {{kind}}Spec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<{{kind}}Status>,
}

/// {{kind}}Spec defines the desired state of {{kind}}.
#[derive(Schema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct {{kind}}Spec {
    /// Foo is an example field of {{kind}}: replace it with the fields of your API.
    /// Doc comments become the CRD's descriptions; markers such as
    /// `#[validation(max_length = 63)]` become its validation.
    #[validation(max_length = 63)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foo: Option<String>,
}

/// {{kind}}Status defines the observed state of {{kind}}.
#[derive(Schema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct {{kind}}Status {
    /// ObservedGeneration is the generation of the spec the last reconcile acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,

    /// Conditions tell how the {{kind}} is doing. Ready is True once it is reconciled.
    #[schema(list_type = "map", list_map_keys = "type")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}
