//! `#[schema(skip_descriptions)]`: the descriptions below a field go, the field's own stays,
//! through nested structs, list items, map values and an embedded Kubernetes type; the same
//! types used by a field without the marker keep every description.

use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;

/// Runner runs a pod template.
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1", kind = "Runner")]
pub struct Runner {
    pub metadata: ObjectMeta,
    pub spec: RunnerSpec,
}

/// RunnerSpec holds the fields with and without descriptions below them.
#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub struct RunnerSpec {
    /// The pod to run; its schema is large, so its descriptions are dropped.
    #[schema(skip_descriptions)]
    pub template: PodTemplateSpec,
    /// Settings without nested descriptions.
    #[schema(skip_descriptions)]
    #[validation(cel(rule = "self.level >= 0"))]
    pub quiet: Settings,
    /// The same settings, described.
    pub loud: Settings,
    /// A list of settings without nested descriptions.
    #[schema(skip_descriptions)]
    pub many: Vec<Settings>,
    /// A map of settings without nested descriptions.
    #[schema(skip_descriptions)]
    pub named: BTreeMap<String, Settings>,
}

/// Settings of one runner.
#[derive(Schema)]
pub struct Settings {
    /// How much to say.
    pub level: i32,
    /// Where to say it.
    pub target: Target,
}

/// Target names a destination.
#[derive(Schema)]
pub struct Target {
    /// The destination's name.
    pub name: String,
}
