//! controller-gen writes both webhooks; the API server refuses the duplicate name.

#[webhook(path = "/p", mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "mfoo.example.com", admission_review_versions = "v1")]
pub struct Hook0;

#[webhook(path = "/q", mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "update", versions = "v1", name = "mfoo.example.com", admission_review_versions = "v1")]
pub struct Hook1;
