//! CRD-level markers: names, scope, subresources, print columns, defaults for plurals.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// Policy has a plural ending in -ies and the scale subresource.
#[derive(CustomResource)]
#[resource(group = "ops.example.com", version = "v2", shortnames = ["pol"], categories = "ops;all")]
#[subresource(status, scale(spec_path = ".spec.replicas", status_path = ".status.replicas", selector_path = ".status.selector"))]
#[printcolumn(name = "Replicas", type = "integer", json_path = ".spec.replicas", format = "int32")]
#[printcolumn(name = "Ready", type = "boolean", json_path = ".status.ready", priority = 1, description = "Whether all replicas are ready")]
pub struct Policy {
    pub metadata: ObjectMeta,
    pub spec: PolicySpec,
    pub status: Option<PolicyStatus>,
}

#[derive(Schema)]
pub struct PolicySpec {
    pub replicas: i32,
}

#[derive(Schema)]
pub struct PolicyStatus {
    pub replicas: i32,
    pub selector: Option<String>,
    pub ready: Option<bool>,
}

/// Box has explicit names.
#[derive(CustomResource)]
#[resource(group = "ops.example.com", version = "v1", kind = "Box", plural = "boxen", singular = "onebox", namespaced)]
pub struct BoxKind {
    pub metadata: ObjectMeta,
    /// Box has no spec; its fields sit at the top level, as in controller-gen's plural case.
    pub size: Option<i32>,
}
