//! controller-gen: sideEffects should not be `Some`.

#[webhook(path = "/p", mutating = true, failure_policy = "fail", side_effects = "Some", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "mfoo.example.com", admission_review_versions = "v1")]
pub struct Hook0;
