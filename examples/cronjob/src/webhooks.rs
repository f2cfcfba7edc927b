//! The CronJob admission webhooks: defaults for what the spec leaves out, and the checks a
//! schema cannot make (a schedule that parses, a name short enough for its Jobs'). Their
//! `#[webhook]` markers are what `operator-gen webhook` writes to
//! `config/webhook/manifests.yaml`.

use operator_derive::webhook;
use operator_runtime::webhook::{
    AdmissionContext, Defaulter, Denial, Outcome, Validator, Webhooks,
};

use crate::api::v1::{ConcurrencyPolicy, CronJob};
use crate::schedule::Schedule;

/// A Job's name is the CronJob's, a dash and up to 11 digits of Unix time, and must fit in
/// 63 characters.
pub const MAX_NAME_LENGTH: usize = 52;

/// Both webhooks, at the paths their markers name.
pub fn webhooks() -> Webhooks {
    Webhooks::new()
        .defaulter::<CronJob, _>(CronJobDefaulter)
        .validator::<CronJob, _>(CronJobValidator)
}

/// Fills in the concurrency policy, suspension and history limits.
#[webhook(
    mutating = true,
    failure_policy = "fail",
    side_effects = "None",
    groups = "batch.tutorial.kubebuilder.io",
    resources = "cronjobs",
    verbs = "create;update",
    versions = "v1",
    name = "mcronjob-v1.kb.io",
    path = "/mutate-batch-tutorial-kubebuilder-io-v1-cronjob",
    admission_review_versions = "v1"
)]
#[derive(Debug, Clone, Copy)]
pub struct CronJobDefaulter;

impl Defaulter<CronJob> for CronJobDefaulter {
    async fn set_defaults(&self, _ctx: &AdmissionContext, cj: &mut CronJob) -> Outcome {
        let spec = &mut cj.spec;
        spec.concurrency_policy
            .get_or_insert(ConcurrencyPolicy::Allow);
        spec.suspend.get_or_insert(false);
        spec.successful_jobs_history_limit.get_or_insert(3);
        spec.failed_jobs_history_limit.get_or_insert(1);
        Ok(Vec::new())
    }
}

/// Refuses a schedule that does not parse and a name too long for the Jobs.
#[webhook(
    mutating = false,
    failure_policy = "fail",
    side_effects = "None",
    groups = "batch.tutorial.kubebuilder.io",
    resources = "cronjobs",
    verbs = "create;update",
    versions = "v1",
    name = "vcronjob-v1.kb.io",
    path = "/validate-batch-tutorial-kubebuilder-io-v1-cronjob",
    admission_review_versions = "v1"
)]
#[derive(Debug, Clone, Copy)]
pub struct CronJobValidator;

impl CronJobValidator {
    fn check(&self, cj: &CronJob) -> Result<(), Denial> {
        let name = cj.metadata.name.as_deref().unwrap_or_default();
        if name.len() > MAX_NAME_LENGTH {
            return Err(Denial::invalid(format!(
                "metadata.name: {} characters is too long for a CronJob: its Jobs are named \
                 after it with a timestamp and may have 63 (at most {MAX_NAME_LENGTH})",
                name.len()
            )));
        }
        Schedule::parse(&cj.spec.schedule)
            .map_err(|e| Denial::invalid(format!("spec.schedule: {e}")))?;
        Ok(())
    }
}

impl Validator<CronJob> for CronJobValidator {
    async fn validate_create(&self, _ctx: &AdmissionContext, cj: &CronJob) -> Outcome {
        self.check(cj)?;
        Ok(Vec::new())
    }

    async fn validate_update(
        &self,
        _ctx: &AdmissionContext,
        _old: &CronJob,
        new: &CronJob,
    ) -> Outcome {
        self.check(new)?;
        Ok(Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::v1::CronJobSpec;

    fn cronjob(name: &str, schedule: &str) -> CronJob {
        CronJob::new(
            name,
            CronJobSpec {
                schedule: schedule.into(),
                ..CronJobSpec::default()
            },
        )
    }

    fn context() -> AdmissionContext {
        let group = "batch.tutorial.kubebuilder.io";
        AdmissionContext {
            uid: "0".into(),
            operation: kube::core::admission::Operation::Create,
            user_info: Default::default(),
            dry_run: false,
            name: "nightly".into(),
            namespace: Some("default".into()),
            kind: kube::core::GroupVersionKind::gvk(group, "v1", "CronJob"),
            resource: kube::core::GroupVersionResource::gvr(group, "v1", "cronjobs"),
            sub_resource: None,
            request_kind: None,
            request_resource: None,
            request_sub_resource: None,
            options: None,
        }
    }

    #[tokio::test]
    async fn the_defaults_fill_only_what_is_unset() {
        let mut cj = cronjob("nightly", "0 3 * * *");
        cj.spec.failed_jobs_history_limit = Some(5);
        CronJobDefaulter
            .set_defaults(&context(), &mut cj)
            .await
            .unwrap();
        assert_eq!(cj.spec.concurrency_policy, Some(ConcurrencyPolicy::Allow));
        assert_eq!(cj.spec.suspend, Some(false));
        assert_eq!(cj.spec.successful_jobs_history_limit, Some(3));
        assert_eq!(cj.spec.failed_jobs_history_limit, Some(5));
    }

    #[tokio::test]
    async fn a_bad_schedule_or_a_long_name_is_refused() {
        let ctx = context();
        assert!(
            CronJobValidator
                .validate_create(&ctx, &cronjob("nightly", "0 3 * * *"))
                .await
                .is_ok()
        );
        let bad = CronJobValidator
            .validate_create(&ctx, &cronjob("nightly", "0 25 * * *"))
            .await
            .unwrap_err();
        assert!(format!("{bad:?}").contains("(hour takes 0-23)"), "{bad:?}");
        let long = "a".repeat(MAX_NAME_LENGTH + 1);
        let refused = CronJobValidator
            .validate_create(&ctx, &cronjob(&long, "0 3 * * *"))
            .await
            .unwrap_err();
        assert!(format!("{refused:?}").contains("too long"), "{refused:?}");
    }
}
