use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::CustomResource;

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1", scope = "Global", plural = "Things_")]
#[resource(group = "test.example.com", version = "v1", namespaced = false, scope = "Namespaced")]
#[subresource(scale(spec_path = ".spec.replicas"))]
#[subresource(scale(spec_path = "spec.replicas", status_path = ".status.replicas"))]
#[printcolumn(name = "Size", type = "integer", json_path = ".spec.size", format = "weird")]
#[printcolumn(name = "Size", type = "integer", json_path = ".spec.size", priority = 3000000000)]
#[printcolumn(type = "integer")]
pub struct Thing {
    pub metadata: ObjectMeta,
    pub spec: String,
}

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1", namespaced = false, scope = "Namespaced")]
pub struct Other {
    pub metadata: ObjectMeta,
    pub spec: String,
}

fn main() {}
