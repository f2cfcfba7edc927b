//! controller-gen writes it; the API server wants DNS-subdomain path segments.

#[webhook(path = "/mutate_foo", mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "mfoo.example.com", admission_review_versions = "v1")]
pub struct Hook0;
