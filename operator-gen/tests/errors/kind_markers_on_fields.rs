use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// The kind-level markers belong on the kind's struct; on a field they are refused, each
/// where it is written, instead of being dropped without a word.
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Gadget {
    pub metadata: ObjectMeta,
    #[subresource(status)]
    pub spec: GadgetSpec,
    #[printcolumn(name = "Size", type = "integer", json_path = ".spec.size")]
    pub status: Option<GadgetStatus>,
}

#[derive(Schema)]
pub struct GadgetSpec {
    #[resource(plural = "gizmos")]
    pub size: i32,
}

#[derive(Schema)]
pub struct GadgetStatus {
    pub ready: bool,
}
