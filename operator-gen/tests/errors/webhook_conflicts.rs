//! Markers that are each fine but contradict each other: two webhooks of one configuration
//! with one name (controller-gen writes both and the API server refuses the object), and
//! two names for one configuration (controller-gen keeps the last package's).

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "mfoo.example.com", path = "/mutate-foo", admission_review_versions = "v1")]
pub struct FooDefaulter;

// The same name on a validating webhook is fine: it sits in the other configuration.
#[webhook(mutating = false, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "mfoo.example.com", path = "/validate-foo", admission_review_versions = "v1")]
pub struct FooValidator;

mod other {
    #[webhook(mutating = true, failure_policy = "ignore", side_effects = "None", groups = "example.com", resources = "bars", verbs = "update", versions = "v1", name = "mfoo.example.com", path = "/mutate-bar", admission_review_versions = "v1")]
    pub fn bar_defaulter() {}
}

#[webhook_configuration(mutating = true, name = "foo-mutating")]
#[webhook_configuration(mutating = false, name = "foo-validating")]
pub struct Configurations;

#[webhook_configuration(mutating = true, name = "another-mutating")]
pub struct SecondName;
