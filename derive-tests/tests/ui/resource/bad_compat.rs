use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::CustomResource;

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
#[compat(allow = "field-gone", reason = "typo in the check")]
#[compat(allow = "field-removed", path = "spec.old", reason = "a path without its dot")]
#[compat(allow = "field-removed", reason = "")]
#[compat(allow = "field-removed")]
pub struct Thing {
    pub metadata: ObjectMeta,
    pub spec: String,
}

fn main() {}
