//! The CronJob reconciler and its controller. The `#[rbac]` markers are the permissions the
//! operator's ServiceAccount gets (`config/rbac/role.yaml`): exactly the calls made here, which
//! the cluster tests prove by running the controller under that role.
//!
//! A reconcile reads the CronJob's Jobs from the watch cache, reports the running ones and the
//! last run in the status, deletes finished Jobs beyond the history limits, and starts the run
//! that is due, if one is, as the concurrency policy allows. Then it comes back when the next
//! run is due.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, DeleteParams, PostParams};
use kube::runtime::controller::Action;
use kube::runtime::events::EventType;
use kube::runtime::watcher;
use kube::{Client, Resource, ResourceExt};
use operator_derive::rbac;
use operator_runtime::Runtime;
use operator_runtime::controller::{self, Controller};

use crate::api::v1::{ConcurrencyPolicy, CronJob, CronJobStatus};
use crate::schedule::Schedule;

/// Name of the controller in metrics, logs and events.
pub const CONTROLLER_NAME: &str = "cronjob";
/// Field manager of the Jobs it creates and the status it writes.
pub const FIELD_MANAGER: &str = "cronjob-operator";
/// The annotation on each Job: when its run was due (RFC 3339).
pub const SCHEDULED_AT: &str = "batch.tutorial.kubebuilder.io/scheduled-at";
/// More runs due than this since the last one means the clock jumped or the controller was
/// down for long: the reconcile fails instead of guessing (as the tutorial's does).
const MISSED_LIMIT: usize = 100;

/// Now, as the controller sees it. The tests use a clock of their own to make runs due.
pub type Clock = Arc<dyn Fn() -> Timestamp + Send + Sync>;

/// What the reconciles share besides the runtime's parts.
pub struct Data {
    pub clock: Clock,
}

impl std::fmt::Debug for Data {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Data").finish_non_exhaustive()
    }
}

/// The reconciles' context.
pub type Context = controller::Context<Data>;

/// Why a reconcile failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("Kubernetes API error: {0}")]
    Kube(#[from] kube::Error),
    #[error("CronJob {0} has no namespace; the kind is namespaced")]
    NoNamespace(String),
    #[error(
        "more than {MISSED_LIMIT} runs of CronJob {0} were due since {1}: check the clock, or set \
         spec.startingDeadlineSeconds"
    )]
    TooManyMissed(String, Timestamp),
}

/// Runs one CronJob: status, history, and the run that is due.
#[rbac(
    groups = "batch.tutorial.kubebuilder.io",
    resources = "cronjobs",
    verbs = "list;watch"
)]
#[rbac(
    groups = "batch.tutorial.kubebuilder.io",
    resources = "cronjobs/status",
    verbs = "patch"
)]
// Owner references with `blockOwnerDeletion` need `update` on the owner's finalizers where
// the OwnerReferencesPermissionEnforcement admission plugin is on.
#[rbac(
    groups = "batch.tutorial.kubebuilder.io",
    resources = "cronjobs/finalizers",
    verbs = "update"
)]
#[rbac(
    groups = "batch",
    resources = "jobs",
    verbs = "list;watch;create;delete"
)]
#[rbac(groups = "events.k8s.io", resources = "events", verbs = "create;patch")]
pub async fn reconcile(cj: Arc<CronJob>, ctx: Arc<Context>) -> Result<Action, Error> {
    let ns = cj
        .namespace()
        .ok_or_else(|| Error::NoNamespace(cj.name_any()))?;
    let now = (ctx.data().clock)();
    let jobs = Jobs::of(ctx.related::<Job, _>(cj.as_ref()));

    let status = CronJobStatus {
        active: jobs.active.iter().map(|j| reference(j)).collect(),
        last_schedule_time: jobs.last_scheduled.map(Time),
    };
    ctx.write_status(cj.as_ref(), &status).await?;

    let api: Api<Job> = Api::namespaced(ctx.client().clone(), &ns);
    let keep = cj.spec.successful_jobs_history_limit.unwrap_or(3);
    delete_oldest(&api, &jobs.succeeded, keep).await?;
    let keep = cj.spec.failed_jobs_history_limit.unwrap_or(1);
    delete_oldest(&api, &jobs.failed, keep).await?;

    if cj.spec.suspend == Some(true) {
        return Ok(Action::await_change());
    }
    let schedule = match Schedule::parse(&cj.spec.schedule) {
        Ok(schedule) => schedule,
        Err(e) => {
            // The validating webhook refuses these; without it, say so once and wait for a fix.
            let (warning, reason) = (EventType::Warning, "InvalidSchedule");
            ctx.publish(cj.as_ref(), warning, reason, e.to_string())
                .await;
            return Ok(Action::await_change());
        }
    };

    // Runs are due from the last one (or the CronJob's creation) on; with a deadline, runs
    // older than it are too late to start anyway.
    let created = cj.metadata.creation_timestamp.as_ref().map(|t| t.0);
    let mut earliest = jobs.last_scheduled.or(created).unwrap_or(now);
    if let Some(deadline) = cj.spec.starting_deadline_seconds {
        earliest = earliest.max(Timestamp::from_second(now.as_second() - deadline).unwrap_or(now));
    }
    let due = schedule.due(earliest, now, MISSED_LIMIT);
    if due.count >= MISSED_LIMIT {
        return Err(Error::TooManyMissed(cj.name_any(), earliest));
    }
    let wait = match due.next {
        Some(next) => {
            let millis = next.as_millisecond() - now.as_millisecond();
            Action::requeue(Duration::from_millis(millis.max(0) as u64))
        }
        None => Action::await_change(),
    };
    let Some(run) = due.latest else {
        return Ok(wait);
    };

    match cj.spec.concurrency_policy.unwrap_or_default() {
        ConcurrencyPolicy::Forbid if !jobs.active.is_empty() => return Ok(wait),
        ConcurrencyPolicy::Replace => {
            for job in &jobs.active {
                delete(&api, job).await?;
            }
        }
        _ => {}
    }
    let job = job_for(&cj, run);
    let name = job.name_any();
    let params = PostParams {
        field_manager: Some(ctx.field_manager().to_string()),
        ..PostParams::default()
    };
    match api.create(&params, &job).await {
        Ok(_) => {
            let note = format!("Created Job {name} for the run due at {run}");
            ctx.publish(cj.as_ref(), EventType::Normal, "SuccessfulCreate", note)
                .await;
        }
        // An earlier reconcile made it and the cache has not seen it yet.
        Err(kube::Error::Api(e)) if e.code == 409 => {}
        Err(e) => return Err(e.into()),
    }
    Ok(wait)
}

/// A CronJob's Jobs, sorted by when their run was due.
#[derive(Debug, Default)]
struct Jobs {
    active: Vec<Arc<Job>>,
    succeeded: Vec<Arc<Job>>,
    failed: Vec<Arc<Job>>,
    last_scheduled: Option<Timestamp>,
}

impl Jobs {
    fn of(mut jobs: Vec<Arc<Job>>) -> Self {
        jobs.retain(|j| j.metadata.deletion_timestamp.is_none());
        jobs.sort_by_key(|j| (scheduled_at(j), j.name_any()));
        let mut out = Jobs::default();
        for job in jobs {
            out.last_scheduled = out.last_scheduled.max(scheduled_at(&job));
            match finished(&job) {
                None => out.active.push(job),
                Some(true) => out.succeeded.push(job),
                Some(false) => out.failed.push(job),
            }
        }
        out
    }
}

/// When the Job's run was due, from its annotation.
fn scheduled_at(job: &Job) -> Option<Timestamp> {
    job.annotations().get(SCHEDULED_AT)?.parse().ok()
}

/// `Some(true)` when the Job succeeded, `Some(false)` when it failed, `None` while it runs.
fn finished(job: &Job) -> Option<bool> {
    let conditions = job.status.as_ref()?.conditions.as_ref()?;
    conditions
        .iter()
        .filter(|c| c.status == "True")
        .find_map(|c| match c.type_.as_str() {
            "Complete" => Some(true),
            "Failed" => Some(false),
            _ => None,
        })
}

fn reference(job: &Job) -> ObjectReference {
    ObjectReference {
        api_version: Some("batch/v1".into()),
        kind: Some("Job".into()),
        name: job.metadata.name.clone(),
        namespace: job.metadata.namespace.clone(),
        uid: job.metadata.uid.clone(),
        ..ObjectReference::default()
    }
}

/// Deletes the oldest of `jobs` (sorted oldest first) until `keep` are left.
async fn delete_oldest(api: &Api<Job>, jobs: &[Arc<Job>], keep: i32) -> Result<(), Error> {
    let surplus = jobs.len().saturating_sub(keep.max(0) as usize);
    for job in &jobs[..surplus] {
        delete(api, job).await?;
    }
    Ok(())
}

/// Deletes a Job and its pods; one already gone is fine.
async fn delete(api: &Api<Job>, job: &Job) -> Result<(), Error> {
    match api
        .delete(&job.name_any(), &DeleteParams::background())
        .await
    {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(e)) if e.code == 404 => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// The Job of the run due at `run`: named after the CronJob and the run's Unix time (so a
/// second attempt at the same run finds the first), from the template, owned by the CronJob.
pub fn job_for(cj: &CronJob, run: Timestamp) -> Job {
    let template = &cj.spec.job_template;
    let template_meta = template.metadata.clone().unwrap_or_default();
    let mut annotations = template_meta.annotations.unwrap_or_default();
    annotations.insert(SCHEDULED_AT.to_string(), run.to_string());
    Job {
        metadata: ObjectMeta {
            name: Some(format!("{}-{}", cj.name_any(), run.as_second())),
            namespace: cj.namespace(),
            labels: template_meta.labels,
            annotations: Some(annotations),
            owner_references: cj.controller_owner_ref(&()).map(|o| vec![o]),
            ..ObjectMeta::default()
        },
        spec: template.spec.clone(),
        ..Job::default()
    }
}

/// How the controller runs.
pub struct Settings {
    /// Watch only this namespace (all when `None`).
    pub namespace: Option<String>,
    pub clock: Clock,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("namespace", &self.namespace)
            .finish_non_exhaustive()
    }
}

impl Settings {
    /// Every namespace, the system clock.
    pub fn new(namespace: Option<String>) -> Self {
        Self {
            namespace,
            clock: Arc::new(Timestamp::now),
        }
    }
}

/// The controller as the manager starts it: CronJobs, and their Jobs, indexed by CronJob.
pub async fn start(client: Client, settings: Settings, runtime: Runtime) {
    Controller::<CronJob>::new(client, &runtime)
        .named(CONTROLLER_NAME)
        .field_manager(FIELD_MANAGER)
        .namespace(settings.namespace)
        .owns::<Job>(watcher::Config::default())
        .run(
            reconcile,
            Data {
                clock: settings.clock,
            },
        )
        .await
}
