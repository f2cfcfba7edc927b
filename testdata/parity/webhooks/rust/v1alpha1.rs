//! Webhooks from a second module, whose names sort between and around the first module's:
//! the result must not depend on the order the files are read in.

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "zoo.example.org", resources = "cages", verbs = "create;update", versions = "v1alpha1", name = "mcage-v1alpha1.kb.io", path = "/mutate-zoo-example-org-v1alpha1-cage", admission_review_versions = "v1")]
pub struct CageDefaulter;

#[webhook(mutating = false, failure_policy = "fail", side_effects = "None", groups = "zoo.example.org", resources = "cages;cages/scale", verbs = "create;update;delete", versions = "v1alpha1", name = "vcage-v1alpha1.kb.io", path = "/validate-zoo-example-org-v1alpha1-cage", admission_review_versions = "v1")]
pub struct CageValidator;

#[webhook(mutating = true, failure_policy = "ignore", side_effects = "None", groups = "", resources = "pods", verbs = "create", versions = "v1", name = "mpod-v1.kb.io", path = "/mutate--v1-pod", admission_review_versions = "v1")]
pub struct PodDefaulter;
