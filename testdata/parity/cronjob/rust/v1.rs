//! The cronjob case: the CronJob API of the kubebuilder book and of controller-tools'
//! testdata, re-expressed: a schedule, a concurrency policy as a unit enum, history limits,
//! an embedded job template, active jobs as object references and the last schedule time.

use k8s_openapi::api::batch::v1::JobTemplateSpec;
use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta, Time};

/// ConcurrencyPolicy says what happens when a run is due while the last one still runs.
#[derive(Schema)]
pub enum ConcurrencyPolicy {
    Allow,
    Forbid,
    Replace,
}

/// CronJobSpec is the desired state of a CronJob.
#[derive(Schema)]
#[serde(rename_all = "camelCase")]
#[validation(cel(
    rule = "!has(self.startingDeadlineSeconds) || self.startingDeadlineSeconds >= 10",
    message = "a starting deadline under 10 seconds may miss every run"
))]
pub struct CronJobSpec {
    /// Schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.
    #[validation(min_length = 1)]
    pub schedule: String,

    /// TimeZone of the schedule; the controller's zone when unset.
    pub time_zone: Option<String>,

    /// StartingDeadlineSeconds is how late a run may start, in seconds, before it counts
    /// as missed.
    #[validation(minimum = 0)]
    pub starting_deadline_seconds: Option<i64>,

    /// ConcurrencyPolicy for overlapping runs.
    #[schema(default = "Allow")]
    pub concurrency_policy: Option<ConcurrencyPolicy>,

    /// Suspend stops later runs; running ones go on.
    pub suspend: Option<bool>,

    /// JobTemplate is the job each run creates.
    pub job_template: JobTemplateSpec,

    /// SuccessfulJobsHistoryLimit is how many finished jobs are kept.
    #[validation(minimum = 0)]
    #[schema(default = 3)]
    pub successful_jobs_history_limit: Option<i32>,

    /// FailedJobsHistoryLimit is how many failed jobs are kept.
    #[validation(minimum = 0)]
    #[schema(default = 1)]
    pub failed_jobs_history_limit: Option<i32>,
}

/// CronJobStatus is the observed state of a CronJob.
#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub struct CronJobStatus {
    /// Active lists the jobs that run now.
    #[schema(list_type = "atomic")]
    pub active: Option<Vec<ObjectReference>>,

    /// LastScheduleTime is when a job last started.
    pub last_schedule_time: Option<Time>,

    /// Conditions of the CronJob.
    #[schema(list_type = "map", list_map_keys = ["type"])]
    pub conditions: Option<Vec<Condition>>,
}

/// CronJob runs jobs on a schedule.
#[derive(CustomResource)]
#[resource(group = "batch.parity.example.com", version = "v1", kind = "CronJob", shortnames = "cj", categories = "all")]
#[subresource(status)]
#[printcolumn(name = "Schedule", type = "string", json_path = ".spec.schedule")]
#[printcolumn(name = "Suspend", type = "boolean", json_path = ".spec.suspend")]
#[printcolumn(name = "Last Schedule", type = "date", json_path = ".status.lastScheduleTime")]
#[printcolumn(name = "Age", type = "date", json_path = ".metadata.creationTimestamp")]
pub struct CronJob {
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: CronJobSpec,
    pub status: Option<CronJobStatus>,
}

#[rbac(groups = "batch.parity.example.com", resources = "cronjobs", verbs = "get;list;watch;create;update;patch;delete")]
#[rbac(groups = "batch.parity.example.com", resources = "cronjobs/status", verbs = "get;update;patch")]
#[rbac(groups = "batch.parity.example.com", resources = "cronjobs/finalizers", verbs = "update")]
#[rbac(groups = "batch", resources = "jobs", verbs = "get;list;watch;create;update;patch;delete")]
#[rbac(groups = "batch", resources = "jobs/status", verbs = "get")]
pub async fn reconcile() {}
