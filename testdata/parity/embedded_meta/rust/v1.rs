//! The embedded_meta case: `ObjectMeta` below the root (a field of the API's own, and
//! inside Kubernetes types), with `embedded-object-meta = "generate-embedded"` (controller-gen's
//! `crd:generateEmbeddedObjectMeta=true`).

use k8s_openapi::api::batch::v1::JobTemplateSpec;
use k8s_openapi::api::core::v1::{PersistentVolumeClaimTemplate, PodTemplateSpec, Volume};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// AccountTemplate is what the operator's service accounts are made from.
#[derive(Schema)]
pub struct AccountTemplate {
    /// Metadata carries the account's labels and annotations (an IAM role, say).
    pub metadata: Option<ObjectMeta>,
}

/// StampSpec holds templates with metadata in them.
#[derive(Schema)]
pub struct StampSpec {
    /// Account is a template of the API's own.
    pub account: Option<AccountTemplate>,

    /// Pod is a pod template.
    pub pod: Option<PodTemplateSpec>,

    /// Claims are volume claim templates.
    pub claims: Option<Vec<PersistentVolumeClaimTemplate>>,

    /// Job is a job template, with a pod template inside it.
    pub job: Option<JobTemplateSpec>,

    /// Scratch is a volume, whose ephemeral claim template has metadata.
    pub scratch: Option<Volume>,
}

/// Stamp exercises embedded metadata.
#[derive(CustomResource)]
#[resource(group = "embeddedmeta.parity.example.com", version = "v1", kind = "Stamp")]
pub struct Stamp {
    pub metadata: ObjectMeta,
    pub spec: StampSpec,
}
