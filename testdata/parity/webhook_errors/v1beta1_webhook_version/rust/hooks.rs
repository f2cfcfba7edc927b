//! controller-gen: "unsupported webhook version: v1beta1".

#[webhook(path = "/p", mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "mfoo.example.com", admission_review_versions = "v1", webhook_versions = "v1beta1")]
pub struct Hook0;
