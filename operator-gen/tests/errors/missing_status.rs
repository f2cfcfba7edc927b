use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

#[derive(CustomResource)]
#[resource(group = "Test.Example.com", version = "1")]
#[subresource(status, scale(spec_path = ".spec.replicas", status_path = ".status.replicas"))]
#[printcolumn(name = "Size", type = "int", json_path = ".spec.size")]
pub struct Thing {
    pub metadata: ObjectMeta,
    pub spec: ThingSpec,
}

#[derive(Schema)]
pub struct ThingSpec {
    pub size: String,
}
