//! controller-gen: "TimeoutSeconds must be between 1 and 30 seconds".

#[webhook(path = "/p", mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "mfoo.example.com", admission_review_versions = "v1", timeout_seconds = 31)]
pub struct Hook0;
