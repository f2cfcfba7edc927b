//! The webhooks of a zoo's v1 API, declared out of name order on structs, impls, functions
//! and modules, with every optional argument, and the configurations' own names.

#[webhook_configuration(mutating = true, name = "zoo-mutating")]
#[webhook_configuration(mutating = false, name = "zoo-validating")]
pub struct Configurations;

#[webhook(mutating = false, failure_policy = "ignore", side_effects = "NoneOnDryRun", groups = "core;apps", resources = "pods;deployments/status", verbs = "delete;connect", versions = "v1;v1beta1", name = "zoo-keeper.example.org", path = "/validate-zoo", admission_review_versions = "v1;v1beta1", match_policy = "exact", timeout_seconds = 7, service_name = "hooks", service_namespace = "zoo-system", service_port = 8443)]
pub struct ZooValidator;

#[webhook(mutating = true, failure_policy = "Fail", side_effects = "none", groups = "*", resources = "*", verbs = "*", versions = "*", name = "lion.example.org", path = "/mutate-lion", admission_review_versions = "v1", match_policy = "Equivalent", timeout_seconds = 30, reinvocation_policy = "ifneeded", service_port = 443)]
pub struct LionDefaulter;

impl LionDefaulter {
    #[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "apps", resources = "deployments", verbs = "update", versions = "v1", name = "antelope.example.org", path = "/mutate-antelope", admission_review_versions = "v1", reinvocation_policy = "Never", webhook_versions = "v1")]
    pub fn antelope() {}
}

#[webhook(mutating = false, failure_policy = "fail", side_effects = "None", groups = "apps", resources = "deployments", verbs = "update", versions = "v1", name = "antelope.example.org", path = "/validate-antelope", admission_review_versions = "v1")]
pub fn validate_antelope() {}

#[webhook(mutating = false, failure_policy = "fail", side_effects = "None", groups = "zoo.example.org", resources = "cages", verbs = "create;update", versions = "v1", name = "cage.example.org", url = "https://hooks.example.org:9443/validate-cage", admission_review_versions = "v1")]
mod cages {}
