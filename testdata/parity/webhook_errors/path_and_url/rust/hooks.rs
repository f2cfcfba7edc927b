//! controller-gen: "`url` or `path` markers are required and mutually exclusive".

#[webhook(path = "/p", mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "mfoo.example.com", admission_review_versions = "v1", url = "https://hooks.example.com/p")]
pub struct Hook0;
