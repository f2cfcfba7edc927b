//! The CronJob controller against the real API server, running as a service account bound to
//! the generated role, with a clock the test moves forward an hour at a time so that runs
//! fall due at once. The local plane's kwok runs a Job's pods to completion within
//! about a second, so a Job of an ordinary template succeeds quickly; a template with
//! `suspend: true` makes a Job that stays active.
//!
//! `the_generated_files_are_committed` runs in plain `cargo test`; the cluster tests need the
//! control plane (`cargo xtask test` provides it).

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use cronjob_example::api::v1::{ConcurrencyPolicy, CronJob, CronJobSpec};
use cronjob_example::controller::{self, CONTROLLER_NAME, Clock, SCHEDULED_AT, Settings};
use envtest::{TestEnv, wait_until};
use k8s_openapi::api::batch::v1::{Job, JobSpec, JobTemplateSpec};
use k8s_openapi::api::core::v1::{Container, PodSpec, PodTemplateSpec};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use kube::{Client, ResourceExt as _};
use operator_gen::ArtifactKind;
use operator_gen::output::{self, Layout};
use operator_runtime::manager::{Manager, ManagerError, ManagerOptions};
use operator_runtime::{Metrics, ReconcileSettings};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(60);

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_generated_files_are_committed() {
    let generated = operator_gen::generate(
        &[crate_dir().join("src")],
        &operator_gen::Options::default(),
    )
    .unwrap();
    let kinds: Vec<ArtifactKind> = operator_gen::GENERATORS
        .iter()
        .map(|g| ArtifactKind::of(*g))
        .collect();
    let layout = Layout::kubebuilder(&crate_dir().join("config"));
    let drift = output::check(&generated.artifacts(), &layout, &kinds);
    assert!(
        drift.is_empty(),
        "config/ is stale ({drift:?}): run `cargo run -p operator-gen -- all --paths \
         examples/cronjob/src --out examples/cronjob/config`"
    );
    // The derive's crd() is the same CRD.
    assert_eq!(
        serde_json::to_value(CronJob::crd()).unwrap(),
        serde_json::to_value(&generated.crds[0]).unwrap()
    );
}

/// A clock some seconds ahead of the real one, moved by the test.
#[derive(Clone, Default)]
struct TestClock(Arc<AtomicI64>);

impl TestClock {
    fn clock(&self) -> Clock {
        let ahead = self.0.clone();
        Arc::new(move || {
            let now = Timestamp::now().as_second() + ahead.load(Ordering::SeqCst);
            Timestamp::from_second(now).expect("a time in range")
        })
    }

    fn advance(&self, seconds: i64) {
        self.0.fetch_add(seconds, Ordering::SeqCst);
    }
}

/// The controller, running in this process as the generated role's service account.
struct Operator {
    stop: CancellationToken,
    task: JoinHandle<Result<(), ManagerError>>,
    metrics: Arc<Metrics>,
    _bound: envtest::testing::Bound,
}

impl Operator {
    /// Installs the CRD (the committed one) and starts the controller, watching `ns`.
    async fn start(env: &TestEnv, ns: &str, clock: &TestClock) -> Self {
        envtest::crds::install_dir(&env.client(), &crate_dir().join("config/crd/bases"), WAIT)
            .await
            .unwrap();
        let role = std::fs::read_to_string(crate_dir().join("config/rbac/role.yaml")).unwrap();
        let (config, bound) = env
            .operator_config(ns, "cronjob-tests", &role)
            .await
            .unwrap();
        let metrics = Arc::new(Metrics::new());
        let client = operator_runtime::metrics::counting_client(config, metrics.clone()).unwrap();
        let options = ManagerOptions {
            name: "cronjob-test".into(),
            metrics_addr: None,
            health_addr: None,
            leader_election: None,
            reconcile: ReconcileSettings::immediate(),
        };
        let settings = Settings {
            namespace: Some(ns.to_string()),
            clock: clock.clock(),
        };
        let stop = CancellationToken::new();
        let task = tokio::spawn(
            Manager::new(client.clone(), metrics.clone(), options)
                .shutdown(stop.clone())
                .run(move |runtime| controller::start(client, settings, runtime)),
        );
        Self {
            stop,
            task,
            metrics,
            _bound: bound,
        }
    }

    fn reconciles(&self) -> u64 {
        self.metrics.reconciles(CONTROLLER_NAME)
    }

    async fn stop(self) {
        self.stop.cancel();
        tokio::time::timeout(WAIT, self.task)
            .await
            .expect("the operator stops")
            .unwrap()
            .expect("a clean shutdown");
    }
}

/// A test's world: its namespace, the administrator's APIs, a clock an hour ahead (so the
/// first reconcile finds a run due) and the controller running as the generated role.
struct Scene {
    _ns: envtest::TestNamespace,
    cronjobs: Api<CronJob>,
    jobs: Api<Job>,
    clock: TestClock,
    operator: Operator,
}

impl Scene {
    async fn new(env: &TestEnv, prefix: &str) -> Self {
        let ns = env.namespace(prefix).await.unwrap();
        let admin: Client = env.client();
        let clock = TestClock::default();
        clock.advance(3601);
        Scene {
            cronjobs: Api::namespaced(admin.clone(), ns.name()),
            jobs: Api::namespaced(admin, ns.name()),
            operator: Operator::start(env, ns.name(), &clock).await,
            clock,
            _ns: ns,
        }
    }
}

/// A CronJob running every hour; `hold` makes its Jobs suspended, so they stay active. The
/// test's clock moves an hour at a time: one run falls due each time, and the next is an
/// hour of the test's time away, so no run starts while the test looks.
fn hourly(name: &str, hold: bool) -> CronJob {
    CronJob::new(
        name,
        CronJobSpec {
            schedule: "0 * * * *".into(),
            job_template: JobTemplateSpec {
                metadata: None,
                spec: Some(JobSpec {
                    suspend: hold.then_some(true),
                    template: PodTemplateSpec {
                        metadata: None,
                        spec: Some(PodSpec {
                            containers: vec![Container {
                                name: "hello".into(),
                                image: Some("busybox:1.36".into()),
                                command: Some(vec!["date".into()]),
                                ..Container::default()
                            }],
                            restart_policy: Some("OnFailure".into()),
                            ..PodSpec::default()
                        }),
                    },
                    ..JobSpec::default()
                }),
            },
            ..CronJobSpec::default()
        },
    )
}

/// The CronJob's Jobs, oldest run first, as (name, succeeded).
async fn jobs_of(jobs: &Api<Job>, cronjob: &str) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = jobs
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|j| j.owner_references().iter().any(|o| o.name == cronjob))
        .filter(|j| j.metadata.deletion_timestamp.is_none())
        .map(|j| {
            let done = j
                .status
                .as_ref()
                .and_then(|s| s.conditions.as_ref())
                .is_some_and(|cs| {
                    cs.iter()
                        .any(|c| c.type_ == "Complete" && c.status == "True")
                });
            (j.name_any(), done)
        })
        .collect();
    out.sort();
    out
}

/// Makes the controller look at the CronJob again now (an annotation is not a new
/// generation, but every change reconciles), and waits until it has.
async fn nudge(cronjobs: &Api<CronJob>, name: &str, operator: &Operator) {
    let before = operator.reconciles();
    let patch = serde_json::json!({
        "metadata": { "annotations": { "test/nudge": Timestamp::now().to_string() } }
    });
    cronjobs
        .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
    wait_until("a reconcile after the nudge", WAIT, || async {
        (operator.reconciles() > before).then_some(())
    })
    .await
    .unwrap();
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn due_runs_start_jobs_and_the_history_is_kept_to_its_limit() {
    let env = TestEnv::connect().await.expect("a cluster to test against");
    let Scene {
        _ns,
        cronjobs,
        jobs,
        clock,
        operator,
    } = Scene::new(&env, "cronjob-runs").await;

    let mut cj = hourly("report", false);
    cj.spec.successful_jobs_history_limit = Some(1);
    cronjobs.create(&PostParams::default(), &cj).await.unwrap();

    // The run due starts a Job, owned by the CronJob and annotated with its time; kwok runs
    // it to completion, and the status then lists no active Job and the run's time.
    let first = wait_until("the first Job to succeed", WAIT, || async {
        match jobs_of(&jobs, "report").await.as_slice() {
            [(name, true)] => Some(name.clone()),
            _ => None,
        }
    })
    .await
    .unwrap();
    let job = jobs.get(&first).await.unwrap();
    let scheduled = job.annotations()[SCHEDULED_AT].clone();
    assert_eq!(
        first,
        format!(
            "report-{}",
            scheduled.parse::<Timestamp>().unwrap().as_second()
        )
    );
    wait_until("the status to show the finished run", WAIT, || async {
        let status = cronjobs.get("report").await.ok()?.status?;
        let last = status.last_schedule_time?.0.to_string();
        (status.active.is_empty() && last == scheduled).then_some(())
    })
    .await
    .unwrap();

    // The next run: a second Job, and the first one goes (history limit 1).
    clock.advance(3600);
    nudge(&cronjobs, "report", &operator).await;
    let second = wait_until("the second Job alone, succeeded", WAIT, || async {
        match jobs_of(&jobs, "report").await.as_slice() {
            [(name, true)] if *name != first => Some(name.clone()),
            _ => None,
        }
    })
    .await
    .unwrap();
    assert!(second > first, "{second} comes after {first}");

    // Suspended, a due run starts nothing.
    let suspend = serde_json::json!({ "spec": { "suspend": true } });
    cronjobs
        .patch("report", &PatchParams::default(), &Patch::Merge(&suspend))
        .await
        .unwrap();
    clock.advance(3600);
    nudge(&cronjobs, "report", &operator).await;
    assert_eq!(jobs_of(&jobs, "report").await, [(second, true)]);

    operator.stop().await;
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn forbid_skips_a_run_while_one_is_active_and_replace_replaces_it() {
    let env = TestEnv::connect().await.expect("a cluster to test against");
    let Scene {
        _ns,
        cronjobs,
        jobs,
        clock,
        operator,
    } = Scene::new(&env, "cronjob-policy").await;

    // Its Jobs are suspended: they stay active.
    let mut cj = hourly("sync", true);
    cj.spec.concurrency_policy = Some(ConcurrencyPolicy::Forbid);
    cronjobs.create(&PostParams::default(), &cj).await.unwrap();
    let first = wait_until("the first Job, active", WAIT, || async {
        let status = cronjobs.get("sync").await.ok()?.status?;
        let active = status.active.first()?.name.clone()?;
        let listed = jobs_of(&jobs, "sync").await;
        (listed == [(active.clone(), false)]).then_some(active)
    })
    .await
    .unwrap();

    // Forbid: the next run is due, but the first Job still runs.
    clock.advance(3600);
    nudge(&cronjobs, "sync", &operator).await;
    assert_eq!(jobs_of(&jobs, "sync").await, [(first.clone(), false)]);

    // Replace: the running Job goes, the due run starts.
    let replace = serde_json::json!({ "spec": { "concurrencyPolicy": "Replace" } });
    cronjobs
        .patch("sync", &PatchParams::default(), &Patch::Merge(&replace))
        .await
        .unwrap();
    let second = wait_until("the first Job replaced", WAIT, || async {
        match jobs_of(&jobs, "sync").await.as_slice() {
            [(name, false)] if *name != first => Some(name.clone()),
            _ => None,
        }
    })
    .await
    .unwrap();
    wait_until("the status to list the new Job", WAIT, || async {
        let status = cronjobs.get("sync").await.ok()?.status?;
        let active: Vec<String> = status
            .active
            .iter()
            .filter_map(|r| r.name.clone())
            .collect();
        (active == [second.clone()]).then_some(())
    })
    .await
    .unwrap();

    operator.stop().await;
}
