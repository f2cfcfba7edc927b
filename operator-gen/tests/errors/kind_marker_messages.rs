use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// Each mistake is named as what it is: a second #[resource] is a duplicate (not a resource
/// without a group), `status` takes no value, and a scale path without its leading dot is
/// that, not a missing path.
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
#[resource(plural = "things")]
#[subresource(status = "yes")]
#[subresource(scale(spec_path = "spec.replicas", status_path = ".status.replicas"))]
pub struct Thing {
    pub metadata: ObjectMeta,
    pub spec: ThingSpec,
    pub status: Option<ThingStatus>,
}

#[derive(Schema)]
pub struct ThingSpec {
    pub replicas: i32,
}

#[derive(Schema)]
pub struct ThingStatus {
    pub replicas: i32,
}
