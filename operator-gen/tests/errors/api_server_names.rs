use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// Names the API server would refuse (or a print column it could not serve) are refused
/// here first, at the marker: a kind that is not an RFC 1035 label once lowercased, short
/// names and categories that are not RFC 1035 labels, an empty column name, an unbalanced
/// column path, a namespace that is not a DNS label.
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1", kind = "Wid_get", shortnames = ["w_x", "All Things", ""], categories = ["bad cat"])]
#[printcolumn(name = "", type = "integer", json_path = ".spec.size")]
#[printcolumn(name = "Size", type = "integer", json_path = ".spec[size")]
pub struct Widget {
    pub metadata: ObjectMeta,
    pub spec: WidgetSpec,
}

#[derive(Schema)]
pub struct WidgetSpec {
    pub size: i32,
}

#[rbac(groups = "apps", resources = "deployments", verbs = "get", namespace = "Bad_NS")]
pub fn reconcile() {}
