//! `batch.tutorial.kubebuilder.io/v1`: the CronJob kind. Its CRD is
//! `config/crd/bases/batch.tutorial.kubebuilder.io_cronjobs.yaml`, generated from these types.

use k8s_openapi::api::batch::v1::JobTemplateSpec;
use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use operator_derive::{CustomResource, Schema};
use serde::{Deserialize, Serialize};

/// CronJob runs a Job on a cron schedule.
#[derive(CustomResource, Clone, Debug, PartialEq)]
#[resource(
    group = "batch.tutorial.kubebuilder.io",
    version = "v1",
    kind = "CronJob",
    namespaced,
    shortnames = "cj"
)]
#[subresource(status)]
#[printcolumn(name = "Schedule", type = "string", json_path = ".spec.schedule")]
#[printcolumn(name = "Suspend", type = "boolean", json_path = ".spec.suspend")]
#[printcolumn(
    name = "Last Schedule",
    type = "date",
    json_path = ".status.lastScheduleTime"
)]
pub struct CronJob {
    pub metadata: ObjectMeta,
    pub spec: CronJobSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<CronJobStatus>,
}

/// CronJobSpec is what the CronJob should do.
#[derive(Schema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CronJobSpec {
    /// Schedule in cron format (minute, hour, day of month, month, day of week), in UTC;
    /// `@hourly`, `@daily`, `@weekly`, `@monthly` and `@yearly` too.
    #[validation(min_length = 1)]
    pub schedule: String,

    /// StartingDeadlineSeconds is how late a run may still start; a run missed by more is
    /// skipped. Without it, a missed run starts however late.
    #[validation(minimum = 0)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starting_deadline_seconds: Option<i64>,

    /// ConcurrencyPolicy says what happens when a run is due while the last one still runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency_policy: Option<ConcurrencyPolicy>,

    /// Suspend stops later runs; a run already started goes on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,

    /// JobTemplate is the Job each run creates.
    pub job_template: JobTemplateSpec,

    /// SuccessfulJobsHistoryLimit is how many succeeded Jobs are kept (3 when unset).
    #[validation(minimum = 0)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub successful_jobs_history_limit: Option<i32>,

    /// FailedJobsHistoryLimit is how many failed Jobs are kept (1 when unset).
    #[validation(minimum = 0)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_jobs_history_limit: Option<i32>,
}

/// ConcurrencyPolicy: what a due run does while an earlier one still runs.
#[derive(Schema, Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConcurrencyPolicy {
    /// Start it anyway; runs overlap.
    #[default]
    Allow,
    /// Skip it.
    Forbid,
    /// Stop the running ones and start it.
    Replace,
}

/// CronJobStatus is what the controller last saw.
#[derive(Schema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CronJobStatus {
    /// Active lists the Jobs that run now.
    #[schema(list_type = "atomic")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub active: Vec<ObjectReference>,

    /// LastScheduleTime is when the last run was due.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_schedule_time: Option<Time>,
}
