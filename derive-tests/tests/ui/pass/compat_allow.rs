// `#[compat(allow = ...)]` on a root kind compiles (the compatibility gate of
// `cargo xtask manifests` reads it) and changes nothing in the CRD.
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::CustomResource;

#[derive(CustomResource, Clone, Debug)]
#[resource(group = "test.example.com", version = "v1")]
#[compat(allow = "field-removed", path = ".spec.old", reason = "nothing ever set it")]
#[compat(allow = "scope-changed", reason = "no object existed yet")]
pub struct Thing {
    pub metadata: ObjectMeta,
    pub spec: String,
}

fn main() {
    let crd = Thing::crd();
    assert_eq!(crd.spec.versions.len(), 1);
}
