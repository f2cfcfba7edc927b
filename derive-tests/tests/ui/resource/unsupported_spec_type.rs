use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::CustomResource;

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Thing {
    pub metadata: ObjectMeta,
    pub spec: std::time::SystemTime,
}

fn main() {}
