//! The embedded case: whole Kubernetes objects from k8s-openapi inside a custom resource,
//! with the schemas and descriptions controller-gen gives their Go counterparts. The
//! `Known*` kinds have one field per type of a selection from operator-gen's table, so this
//! case also checks that the table is what controller-gen writes today (`cargo xtask
//! known-types` regenerates it).

use k8s_openapi::api::apps::v1 as appsv1;
use k8s_openapi::api::batch::v1::{CronJobSpec, JobTemplateSpec};
use k8s_openapi::api::core::v1::{
    Affinity, ConfigMapKeySelector, Container, ContainerPort, EnvFromSource, EnvVar, LocalObjectReference, ObjectReference, PersistentVolumeClaimSpec, PodSecurityContext, PodSpec, PodTemplateSpec, Probe, ResourceRequirements, SecretKeySelector, SecurityContext, ServicePort, Toleration, TopologySpreadConstraint, Volume, VolumeMount
};
use k8s_openapi::api::networking::v1::*;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};

/// KnownSpec has one field per Kubernetes type of a selection from operator-gen's table,
/// each named after its type and without a description of its own, so that its schema is
/// the type's own.
#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub struct KnownSpec {
    pub pod_template_spec: Option<PodTemplateSpec>,
    pub pod_spec: Option<PodSpec>,
    pub container: Option<Container>,
    pub container_port: Option<ContainerPort>,
    pub env_var: Option<EnvVar>,
    pub env_from_source: Option<EnvFromSource>,
    pub resource_requirements: Option<ResourceRequirements>,
    pub volume: Option<Volume>,
    pub volume_mount: Option<VolumeMount>,
    pub toleration: Option<Toleration>,
    pub affinity: Option<Affinity>,
    pub topology_spread_constraint: Option<TopologySpreadConstraint>,
    pub local_object_reference: Option<LocalObjectReference>,
    pub object_reference: Option<ObjectReference>,
    pub secret_key_selector: Option<SecretKeySelector>,
    pub config_map_key_selector: Option<ConfigMapKeySelector>,
    pub security_context: Option<SecurityContext>,
    pub pod_security_context: Option<PodSecurityContext>,
    pub probe: Option<Probe>,
    pub service_port: Option<ServicePort>,
    pub persistent_volume_claim_spec: Option<PersistentVolumeClaimSpec>,
    pub label_selector: Option<LabelSelector>,
}

/// Known carries the table of Kubernetes types.
#[derive(CustomResource)]
#[resource(group = "embedded.parity.example.com", version = "v1", kind = "Known", scope = "Cluster")]
pub struct Known {
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: KnownSpec,
}

/// KnownBatchSpec holds the selection's types of batch/v1, in a kind of their own to keep
/// each CRD well below the API server's size limit.
#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub struct KnownBatchSpec {
    pub job_template_spec: Option<JobTemplateSpec>,
    pub cron_job_spec: Option<CronJobSpec>,
}

/// KnownBatch carries the selection's batch/v1 types.
#[derive(CustomResource)]
#[resource(group = "embedded.parity.example.com", version = "v1", kind = "KnownBatch", scope = "Cluster")]
pub struct KnownBatch {
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: KnownBatchSpec,
}

/// KnownWorkloadSpec holds workload specs of apps/v1, each with a whole pod template.
#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub struct KnownWorkloadSpec {
    pub deployment_spec: Option<appsv1::DeploymentSpec>,
    pub stateful_set_spec: Option<appsv1::StatefulSetSpec>,
}

/// KnownWorkload carries the selection's apps/v1 types.
#[derive(CustomResource)]
#[resource(group = "embedded.parity.example.com", version = "v1", kind = "KnownWorkload", scope = "Cluster")]
pub struct KnownWorkload {
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: KnownWorkloadSpec,
}

/// KnownMiscSpec holds smaller types from several API groups.
#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub struct KnownMiscSpec {
    pub service_spec: Option<k8s_openapi::api::core::v1::ServiceSpec>,
    pub secret_reference: Option<k8s_openapi::api::core::v1::SecretReference>,
    pub typed_local_object_reference: Option<k8s_openapi::api::core::v1::TypedLocalObjectReference>,
    // IngressSpec and NetworkPolicySpec come from the glob import of networking/v1.
    pub ingress_spec: Option<IngressSpec>,
    pub network_policy_spec: Option<NetworkPolicySpec>,
    pub horizontal_pod_autoscaler_spec: Option<k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscalerSpec>,
    pub pod_disruption_budget_spec: Option<k8s_openapi::api::policy::v1::PodDisruptionBudgetSpec>,
    pub duration: Option<kube::core::Duration>,
}

/// KnownMisc carries the selection's smaller types.
#[derive(CustomResource)]
#[resource(group = "embedded.parity.example.com", version = "v1", kind = "KnownMisc", scope = "Cluster")]
pub struct KnownMisc {
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: KnownMiscSpec,
}

/// WorkloadSpec uses Kubernetes objects the way an operator's API does.
#[derive(Schema)]
pub struct WorkloadSpec {
    /// Template of the pods the workload runs.
    pub template: PodTemplateSpec,

    /// Resources of the sidecar.
    pub resources: Option<ResourceRequirements>,

    /// Selector of the pods, replaced as a whole.
    #[schema(struct_type = "atomic")]
    pub selector: Option<LabelSelector>,

    /// Env for every container.
    #[schema(list_type = "map", list_map_keys = ["name"])]
    #[validation(max_items = 8)]
    pub env: Option<Vec<EnvVar>>,

    /// Tolerations of the pods.
    pub tolerations: Option<Vec<Toleration>>,

    /// CredentialsRef names a secret key.
    #[serde(rename = "credentialsRef")]
    pub credentials_ref: Option<SecretKeySelector>,
}

/// Workload runs pods from an embedded template.
#[derive(CustomResource)]
#[resource(group = "embedded.parity.example.com", version = "v1", kind = "Workload")]
pub struct Workload {
    pub metadata: ObjectMeta,
    pub spec: WorkloadSpec,
}
