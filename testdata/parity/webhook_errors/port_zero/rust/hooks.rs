//! controller-gen writes port: 0; the API server refuses it.

#[webhook(path = "/p", mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "mfoo.example.com", admission_review_versions = "v1", service_port = 0)]
pub struct Hook0;
