use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::CustomResource;

#[derive(CustomResource)]
pub struct Thing {
    pub metadata: ObjectMeta,
    pub spec: String,
}

fn main() {}
