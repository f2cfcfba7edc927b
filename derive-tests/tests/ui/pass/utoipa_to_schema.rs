//! A type that derives utoipa's ToSchema beside Schema: utoipa claims `#[schema(...)]` and
//! refuses the keys only the CRD knows, so they are written `#[crd_schema(...)]`, which
//! both derives let through and the CRD reads as `#[schema(...)]`.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::{CustomResource, Schema};
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Clone, Debug)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Pipeline {
    pub metadata: ObjectMeta,
    pub spec: PipelineSpec,
}

/// A pipeline, documented in the operator's OpenAPI by utoipa too.
#[derive(Schema, utoipa::ToSchema, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PipelineSpec {
    /// Kept as it is, whatever its fields.
    #[crd_schema(schemaless, preserve_unknown_fields)]
    #[validation(type = "object")]
    pub settings: serde_json::Value,
    /// Each stage once.
    #[crd_schema(list_type = "set")]
    #[validation(max_items = 8)]
    pub stages: Vec<String>,
}

fn main() {
    let crd = Pipeline::crd();
    let schema = serde_json::to_value(&crd.spec.versions[0].schema).unwrap();
    let spec = &schema["openAPIV3Schema"]["properties"]["spec"]["properties"];
    assert_eq!(spec["settings"]["x-kubernetes-preserve-unknown-fields"], true);
    assert_eq!(spec["settings"]["type"], "object");
    assert_eq!(spec["stages"]["x-kubernetes-list-type"], "set");
    assert_eq!(spec["stages"]["maxItems"], 8);

    // utoipa's schema of the same type, from its own derive.
    let openapi = serde_json::to_value(<PipelineSpec as utoipa::PartialSchema>::schema()).unwrap();
    assert!(openapi["properties"]["settings"].is_object(), "{openapi}");
    assert_eq!(openapi["properties"]["stages"]["type"], "array", "{openapi}");
}
