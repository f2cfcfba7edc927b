use operator_derive::{webhook, webhook_configuration};

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "mfoo.example.com", path = "/mutate-foo", admission_review_versions = "v1")]
pub enum NotAHandler {
    A,
}

#[webhook_configuration(mutating = true, name = "foo-mutating")]
pub const NAME: &str = "foo";

fn main() {}
