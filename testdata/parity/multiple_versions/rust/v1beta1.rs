//! One version of the multiple-versions case.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// CronTabSpec is the desired schedule.
#[derive(Schema)]
pub struct CronTabSpec {
    /// Schedule in cron syntax.
    pub schedule: String,
    /// Image to run.
    pub image: String,
}

/// CronTab runs a command on a schedule.
#[derive(CustomResource)]
#[resource(group = "versions.parity.example.com", version = "v1beta1", kind = "CronTab", shortnames = ["ct"], deprecated = "versions.parity.example.com/v1beta1 CronTab is deprecated; use v1")]
pub struct CronTab {
    pub metadata: ObjectMeta,
    pub spec: CronTabSpec,
}
