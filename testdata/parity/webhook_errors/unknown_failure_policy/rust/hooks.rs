//! controller-gen writes failurePolicy: Sometimes; the API server refuses it.

#[webhook(path = "/p", mutating = true, failure_policy = "Sometimes", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "mfoo.example.com", admission_review_versions = "v1")]
pub struct Hook0;
