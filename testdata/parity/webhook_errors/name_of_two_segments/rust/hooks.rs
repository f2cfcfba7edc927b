//! controller-gen writes it; the API server wants three segments.

#[webhook(path = "/p", mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "mfoo.io", admission_review_versions = "v1")]
pub struct Hook0;
