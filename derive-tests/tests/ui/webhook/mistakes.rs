//! Each #[webhook] / #[webhook_configuration] mistake is one compile error at the argument
//! (the same cases as operator-gen's error golden webhook_mistakes).

use operator_derive::{webhook, webhook_configuration};

#[webhook(mutating = true, failurepolicy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a01.example.com", path = "/a01", admission_review_versions = "v1")]
pub struct MisspeltArgument;

#[webhook(mutating = true, failure_policy = "sometimes", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a02.example.com", path = "/a02", admission_review_versions = "v1")]
pub struct UnknownFailurePolicy;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "Some", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a03.example.com", path = "/a03", admission_review_versions = "v1")]
pub struct SideEffectsSome;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "nothing", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a04.example.com", path = "/a04", admission_review_versions = "v1")]
pub struct UnknownSideEffects;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create;patch", versions = "v1", name = "a05.example.com", path = "/a05", admission_review_versions = "v1")]
pub struct PatchIsNoOperation;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "*;create", versions = "v1", name = "a06.example.com", path = "/a06", admission_review_versions = "v1")]
pub struct WildcardVerbNotAlone;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "*;apps", resources = "foos", verbs = "create", versions = "v1", name = "a07.example.com", path = "/a07", admission_review_versions = "v1")]
pub struct WildcardGroupNotAlone;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "*;foos", verbs = "create", versions = "v1", name = "a08.example.com", path = "/a08", admission_review_versions = "v1")]
pub struct WildcardResourceNotAlone;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos/*;foos/status", verbs = "create", versions = "v1", name = "a09.example.com", path = "/a09", admission_review_versions = "v1")]
pub struct SubresourceCoveredTwice;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "*;v1", name = "a10.example.com", path = "/a10", admission_review_versions = "v1")]
pub struct WildcardVersionNotAlone;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a11.io", path = "/a11", admission_review_versions = "v1")]
pub struct NameOfTwoSegments;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "A12.Example.com", path = "/a12", admission_review_versions = "v1")]
pub struct NameNotLowercase;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a13.example.com", path = "/mutate_a13", admission_review_versions = "v1")]
pub struct PathSegmentNotDns;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a14.example.com", path = "a14", admission_review_versions = "v1")]
pub struct RelativePath;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a15.example.com", url = "http://hooks.example.com/a15", admission_review_versions = "v1")]
pub struct PlainHttpUrl;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a16.example.com", url = "https://hooks.example.com/a16?debug=1", admission_review_versions = "v1")]
pub struct UrlWithQuery;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a17.example.com", path = "/a17", admission_review_versions = "v1", timeout_seconds = 31)]
pub struct TimeoutTooLong;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a18.example.com", path = "/a18", admission_review_versions = "v1", service_port = 70000)]
pub struct PortOutOfRange;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a19.example.com", path = "/a19", admission_review_versions = "v1", service_name = "Webhook_Service")]
pub struct ServiceNameNotDns;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a20.example.com", path = "/a20", admission_review_versions = "v1", service_namespace = "System")]
pub struct ServiceNamespaceNotDns;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a21.example.com", path = "/a21", admission_review_versions = "v1", webhook_versions = "v1beta1")]
pub struct OldWebhookVersion;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a22.example.com", path = "/a22", admission_review_versions = "v2")]
pub struct ReviewVersionUnknown;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a23.example.com", path = "/a23", admission_review_versions = "v1;v1")]
pub struct ReviewVersionTwice;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a24.example.com", path = "/a24", admission_review_versions = "v1", match_policy = "loose")]
pub struct UnknownMatchPolicy;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a25.example.com", path = "/a25", admission_review_versions = "v1", reinvocation_policy = "sometimes")]
pub struct UnknownReinvocationPolicy;

#[webhook(mutating = false, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a26.example.com", path = "/a26", admission_review_versions = "v1", reinvocation_policy = "IfNeeded")]
pub struct ValidatingReinvoked;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a27.example.com", path = "/a27", url = "https://hooks.example.com/a27", admission_review_versions = "v1")]
pub struct PathAndUrl;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a28.example.com", admission_review_versions = "v1")]
pub struct NeitherPathNorUrl;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a29.example.com", url = "https://hooks.example.com/a29", admission_review_versions = "v1", service_port = 8443)]
pub struct UrlWithServicePort;

#[webhook(mutating = true, path = "/a30", name = "a30.example.com")]
pub struct MissingArguments;

#[webhook(mutating = "yes", failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a31.example.com", path = "/a31", admission_review_versions = "v1")]
pub struct MutatingNotABool;

#[webhook(mutating = true, failure_policy = "fail", side_effects = "None", groups = "example.com", resources = "foos", verbs = "create", versions = "v1", name = "a32.example.com", path = "/a32", admission_review_versions = "v1", timeout_seconds = "5")]
pub struct TimeoutAsString;

#[webhook_configuration(name = "hooks")]
pub struct ConfigurationOfNoKind;

#[webhook_configuration(mutating = true, name = "Hooks_Mutating")]
pub struct ConfigurationNameNotDns;

fn main() {}
