// `#[subresource(status)]` on a kind that has no `status` field yet is accepted, as
// controller-gen accepts it: the CRD still serves the status subresource.
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::CustomResource;

#[derive(CustomResource, Clone, Debug)]
#[resource(group = "test.example.com", version = "v1")]
#[subresource(status)]
pub struct Thing {
    pub metadata: ObjectMeta,
    pub spec: String,
}

fn main() {
    let crd = Thing::crd();
    let version = &crd.spec.versions[0];
    assert!(version.subresources.as_ref().unwrap().status.is_some());
}
