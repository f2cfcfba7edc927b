//! One version of the multiple-versions case.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// CronTabSpec is the desired schedule.
#[derive(Schema)]
pub struct CronTabSpec {
    /// Schedule in cron syntax.
    pub schedule: String,
}

/// CronTab runs a command on a schedule.
#[derive(CustomResource)]
#[resource(group = "versions.parity.example.com", version = "v1alpha1", kind = "CronTab", shortnames = ["ct"], served = false, deprecated)]
pub struct CronTab {
    pub metadata: ObjectMeta,
    pub spec: CronTabSpec,
}
