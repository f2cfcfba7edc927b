use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::{CustomResource, Schema};
use serde::{Deserialize, Serialize};

// Kind-level markers on the kind's fields: the derive declares them, so the compiler lets
// them through there, and the derive refuses them where they are written.
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Gadget {
    pub metadata: ObjectMeta,
    #[subresource(status)]
    pub spec: GadgetSpec,
    #[resource(plural = "gizmos")]
    pub status: Option<GadgetSpec>,
}

#[derive(Schema, Clone, Debug, Default, Serialize, Deserialize)]
pub struct GadgetSpec {
    pub size: i32,
}

fn main() {}
