use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::CustomResource;

#[derive(CustomResource)]
#[resource(group = "Test_Example", version = "V1", kind = "thing", shortnames = "t")]
pub struct Thing {
    pub metadata: ObjectMeta,
    pub spec: String,
}

fn main() {}
