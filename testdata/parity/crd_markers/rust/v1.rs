//! The CRD-markers case: resource names, scope, short names and categories, print columns,
//! status and scale subresources, selectable fields and CRD metadata, on a namespaced and a
//! cluster-scoped kind.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// PoolSpec is the desired pool.
#[derive(Schema)]
pub struct PoolSpec {
    /// Replicas wanted.
    #[validation(minimum = 0)]
    pub replicas: i32,
    /// Color of the pool, selectable with field selectors.
    pub color: Option<String>,
}

/// PoolStatus is the observed pool.
#[derive(Schema)]
pub struct PoolStatus {
    /// Replicas running.
    pub replicas: Option<i32>,
    /// Selector of the pods, for the scale subresource.
    pub selector: Option<String>,
    /// Phase of the pool.
    pub phase: Option<String>,
}

/// Pool is a scalable, namespaced kind with every CRD-level marker.
#[derive(CustomResource)]
#[resource(
    group = "crds.parity.example.com",
    version = "v1",
    kind = "Pool",
    plural = "poolz",
    singular = "pooly",
    shortnames = ["pl", "pz"],
    categories = ["parity", "all"],
    selectable_fields = [".spec.color"],
    annotations = ["parity.example.com/owner=team-a", "parity.example.com/reviewed=yes"],
    labels = ["parity.example.com/tier=gold"]
)]
#[subresource(status, scale(spec_path = ".spec.replicas", status_path = ".status.replicas", selector_path = ".status.selector"))]
#[printcolumn(name = "Replicas", type = "integer", json_path = ".spec.replicas", description = "Desired replicas", format = "int32")]
#[printcolumn(name = "Phase", type = "string", json_path = ".status.phase", priority = 1)]
#[printcolumn(name = "Age", type = "date", json_path = ".metadata.creationTimestamp")]
pub struct Pool {
    pub metadata: ObjectMeta,
    pub spec: PoolSpec,
    pub status: Option<PoolStatus>,
}

/// Policy is cluster-scoped; its plural is irregular.
#[derive(CustomResource)]
#[resource(group = "crds.parity.example.com", version = "v1", kind = "Policy", scope = "Cluster", shortnames = ["rg"])]
#[schema(external_docs(url = "https://example.com/docs/regions"))]
pub struct Policy {
    pub metadata: ObjectMeta,
    /// Rules are opaque words.
    pub rules: Option<Vec<String>>,
}
