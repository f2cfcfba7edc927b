//! controller-gen writes the operation Patch; the API server refuses it.

#[webhook(path = "/p", mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create;Patch", versions = "v1", name = "mfoo.example.com", admission_review_versions = "v1")]
pub struct Hook0;
