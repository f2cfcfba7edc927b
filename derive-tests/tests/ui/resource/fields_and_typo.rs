use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::CustomResource;

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1", shortname = "t")]
pub struct Thing {
    pub spec: String,
    pub status: String,
}

fn main() {}
