//! One version of the multiple-versions case.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// CronTabSpec is the desired schedule.
#[derive(Schema)]
pub struct CronTabSpec {
    /// Schedule in cron syntax.
    pub schedule: String,
    /// Image to run.
    #[validation(min_length = 1)]
    pub image: String,
    /// Replicas of the job.
    pub replicas: Option<i32>,
}

/// CronTab runs a command on a schedule.
#[derive(CustomResource)]
#[resource(group = "versions.parity.example.com", version = "v1", kind = "CronTab", shortnames = ["ct"], storage)]
#[printcolumn(name = "Schedule", type = "string", json_path = ".spec.schedule")]
pub struct CronTab {
    pub metadata: ObjectMeta,
    pub spec: CronTabSpec,
}
