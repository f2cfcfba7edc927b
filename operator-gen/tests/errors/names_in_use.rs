use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// Names another kind of the group already claims: the API server takes such a CRD but
/// never establishes it. Found by the generative test (a short name equal to another kind's
/// plural).
#[derive(CustomResource)]
#[resource(group = "names.example.com", version = "v1", shortnames = ["delta"])]
pub struct Node {
    pub metadata: ObjectMeta,
    pub spec: Empty,
}

#[derive(CustomResource)]
#[resource(group = "names.example.com", version = "v1")]
pub struct Delta {
    pub metadata: ObjectMeta,
    pub spec: Empty,
}

#[derive(CustomResource)]
#[resource(group = "names.example.com", version = "v1")]
pub struct Gizmo {
    pub metadata: ObjectMeta,
    pub spec: Empty,
}

#[derive(CustomResource)]
#[resource(group = "names.example.com", version = "v1", plural = "gizmolists2")]
pub struct GizmoList {
    pub metadata: ObjectMeta,
    pub spec: Empty,
}

#[derive(Schema)]
pub struct Empty {}
