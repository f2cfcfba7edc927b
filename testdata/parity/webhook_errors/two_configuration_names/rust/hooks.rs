//! controller-gen: "duplicate mutating kubebuilder:webhookconfiguration".

#[webhook_configuration(mutating = true, name = "one")]
pub struct Configuration0;

#[webhook_configuration(mutating = true, name = "two")]
pub struct Configuration1;

#[webhook(path = "/p", mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "mfoo.example.com", admission_review_versions = "v1")]
pub struct Hook0;
