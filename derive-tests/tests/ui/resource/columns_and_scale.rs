use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::CustomResource;

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
#[printcolumn(name = "Size", type = "int", json_path = ".spec.size")]
#[printcolumn(name = "Age", json_path = "metadata.creationTimestamp", type = "date")]
#[subresource(scale(spec_path = ".status.x", status_path = ".status.y"))]
pub struct Thing {
    pub metadata: ObjectMeta,
    pub spec: String,
}

fn main() {}
