//! controller-gen: missing argument "admissionReviewVersions".

#[webhook(path = "/p", mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "mfoo.example.com")]
pub struct Hook0;
