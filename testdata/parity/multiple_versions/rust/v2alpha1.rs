//! One version of the multiple-versions case.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// CronTabSpec is the desired schedule.
#[derive(Schema)]
pub struct CronTabSpec {
    /// Schedule in cron syntax.
    pub schedule: String,
    /// Command replaces image in the next API.
    pub command: Vec<String>,
}

/// CronTab runs a command on a schedule.
#[derive(CustomResource)]
#[resource(group = "versions.parity.example.com", version = "v2alpha1", kind = "CronTab", shortnames = ["ct"], skip)]
pub struct CronTab {
    pub metadata: ObjectMeta,
    pub spec: CronTabSpec,
}
