//! The memcached operator end to end on the local control plane, running in this process:
//! scaling, self-healing, finalizer and garbage collection, isolation between objects, a
//! steady state that writes nothing, the same lifecycle under the generated RBAC role, leader
//! election, an API server restart, and the metrics and probe endpoints.
//!
//! Each test owns a namespace and an operator that watches only it. They need the control plane:
//! `cargo xtask test` provides one (plain `cargo test` skips them).
//!
//! One file of about 800 lines on purpose: every file under `tests/` is a test binary of its
//! own that links kube, tokio and the operator (tens of seconds and hundreds of megabytes each),
//! and these scenarios share their set-up (the CRD install, the converge checks).

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use envtest::faults::{self, Relay};
use envtest::{TestEnv, audit, wait_until};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Pod, Service, ServiceAccount};
use k8s_openapi::api::events::v1::Event;
use kube::api::{Api, DeleteParams, ListParams, ObjectMeta, Patch, PatchParams, PostParams};
use kube::{Client, ResourceExt};
use memcached::api::v1alpha1::{Memcached, MemcachedSpec};
use memcached::controller::{self, CONTROLLER_NAME, FINALIZER, Settings};
use memcached::resources;
use memcached::status::{self, AVAILABLE};
use operator_runtime::manager::{
    LeaderElection, Manager, ManagerError, ManagerOptions, ReconcileSettings,
};
use operator_runtime::metrics::{Metrics, counting_client};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

const TIMEOUT: Duration = Duration::from_secs(60);

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

async fn env() -> TestEnv {
    let env = TestEnv::connect().await.expect("a cluster to test against");
    install_crds(&env.client()).await;
    env
}

async fn install_crds(client: &Client) {
    envtest::crds::install_dir(client, &workspace().join("config/crd/bases"), TIMEOUT)
        .await
        .unwrap();
}

/// The controller's settings in the tests: one namespace, two workers.
fn settings(namespace: &str) -> Settings {
    Settings {
        namespace: Some(namespace.to_string()),
        concurrency: 2,
        image: resources::DEFAULT_IMAGE.to_string(),
    }
}

/// The manager's options in the tests: no servers, no leader election, the default debounce
/// (what ships is what is tested) and no sync period.
fn options() -> ManagerOptions {
    ManagerOptions {
        name: controller::FIELD_MANAGER.into(),
        metrics_addr: None,
        health_addr: None,
        leader_election: None,
        reconcile: ReconcileSettings {
            sync_period: None,
            ..ReconcileSettings::default()
        },
    }
}

/// An operator running in this process.
struct Operator {
    elects_leader: bool,
    stop: CancellationToken,
    task: JoinHandle<Result<(), ManagerError>>,
    metrics: Arc<Metrics>,
}

impl Operator {
    fn start(
        config: kube::Config,
        namespace: &str,
        customise: impl FnOnce(&mut ManagerOptions),
    ) -> Self {
        let metrics = Arc::new(Metrics::new());
        let client = counting_client(config, metrics.clone()).unwrap();
        let mut options = options();
        customise(&mut options);
        let elects_leader = options.leader_election.is_some();
        let settings = settings(namespace);
        let stop = CancellationToken::new();
        let task = tokio::spawn(
            Manager::new(client.clone(), metrics.clone(), options)
                .shutdown(stop.clone())
                .run(move |runtime| controller::start(client, settings, runtime)),
        );
        Self {
            elects_leader,
            stop,
            task,
            metrics,
        }
    }

    /// Deletes every Memcached in `ns` while the operator still runs (their finalizers need it),
    /// then shuts it down. Otherwise the test namespace would hang in Terminating.
    async fn finish(self, client: &Client, ns: &str) {
        let mcs: Api<Memcached> = Api::namespaced(client.clone(), ns);
        mcs.delete_collection(&DeleteParams::background(), &ListParams::default())
            .await
            .unwrap();
        wait_until("every Memcached to be finalized", TIMEOUT, || {
            let mcs = mcs.clone();
            async move {
                mcs.list(&ListParams::default())
                    .await
                    .ok()?
                    .items
                    .is_empty()
                    .then_some(())
            }
        })
        .await
        .unwrap();
        self.shutdown().await;
    }

    async fn shutdown(self) {
        self.stop.cancel();
        tokio::time::timeout(TIMEOUT, self.task)
            .await
            .expect("the operator stops on shutdown")
            .unwrap()
            .expect("a clean shutdown");
    }
}

fn memcached(name: &str, size: i32) -> Memcached {
    Memcached::new(
        name,
        MemcachedSpec {
            size,
            ..Default::default()
        },
    )
}

fn running(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_none()
        && pod.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")
}

/// Waits until `name` has `size` Running pods, lists exactly them in status.nodes, and reports
/// Available=True for its current generation. Returns the converged object.
async fn converged(client: &Client, ns: &str, name: &str, size: usize) -> Memcached {
    converged_within(client, ns, name, size, TIMEOUT).await
}

async fn converged_within(
    client: &Client,
    ns: &str,
    name: &str,
    size: usize,
    timeout: Duration,
) -> Memcached {
    let mcs: Api<Memcached> = Api::namespaced(client.clone(), ns);
    let pods: Api<Pod> = Api::namespaced(client.clone(), ns);
    let what = format!("{name} to converge on {size} pods");
    wait_until(&what, timeout, || {
        let (mcs, pods) = (mcs.clone(), pods.clone());
        async move {
            let mc = mcs.get(name).await.ok()?;
            let status = mc.status.clone()?;
            let available = status::find(&status, AVAILABLE)?;
            if available.status != "True" || available.observed_generation != mc.metadata.generation
            {
                return None;
            }
            let selector = format!("{}={name}", resources::INSTANCE_LABEL);
            let list = pods
                .list(&ListParams::default().labels(&selector))
                .await
                .ok()?;
            let mut names: Vec<String> = list
                .items
                .iter()
                .filter(|p| running(p))
                .map(|p| p.name_any())
                .collect();
            names.sort();
            (names.len() == size && status.nodes == names).then_some(mc)
        }
    })
    .await
    .unwrap()
}

async fn deployment_replicas(client: &Client, ns: &str, name: &str) -> Option<i32> {
    let api: Api<Deployment> = Api::namespaced(client.clone(), ns);
    api.get_opt(name).await.ok()??.spec?.replicas
}

/// The lifecycle of the issue: create 3, scale 1 and 5, revert a hand edit, recreate a deleted
/// Deployment, a steady state that writes nothing, and deletion through the finalizer. `admin`
/// observes and edits; the operator runs with `operator_config`.
async fn lifecycle(env: &TestEnv, ns: &str, operator: &Operator) {
    let admin = env.client();
    let mcs: Api<Memcached> = Api::namespaced(admin.clone(), ns);
    let deployments: Api<Deployment> = Api::namespaced(admin.clone(), ns);
    let services: Api<Service> = Api::namespaced(admin.clone(), ns);

    mcs.create(&PostParams::default(), &memcached("cache", 3))
        .await
        .unwrap();
    let mc = converged(&admin, ns, "cache", 3).await;
    assert!(
        mc.finalizers().iter().any(|f| f == FINALIZER),
        "{:?}",
        mc.finalizers()
    );
    let deployment = deployments.get("cache").await.unwrap();
    let owner = &deployment.owner_references()[0];
    assert_eq!(
        (owner.kind.as_str(), owner.controller),
        ("Memcached", Some(true))
    );
    assert_eq!(owner.uid, mc.uid().unwrap());
    let service = services.get("cache").await.unwrap();
    assert_eq!(service.owner_references()[0].uid, mc.uid().unwrap());

    for size in [1, 5] {
        mcs.patch(
            "cache",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({"spec": {"size": size}})),
        )
        .await
        .unwrap();
        converged(&admin, ns, "cache", size as usize).await;
        assert_eq!(deployment_replicas(&admin, ns, "cache").await, Some(size));
    }
    // Creating and resizing are what the user asked for: the first availability is news (one
    // Normal event), the dips and returns of the resizes are not (the conditions tell them).
    let uid = mcs.get("cache").await.unwrap().uid();
    let events: Api<Event> = Api::namespaced(admin.clone(), ns);
    let reasons = || async {
        let list = events.list(&ListParams::default()).await.unwrap();
        list.items
            .into_iter()
            .filter(|e| e.regarding.as_ref().and_then(|r| r.uid.clone()) == uid)
            .map(|e| (e.reason.unwrap_or_default(), e.type_.unwrap_or_default()))
            .collect::<Vec<_>>()
    };
    wait_until("the Available event", TIMEOUT, || async {
        reasons()
            .await
            .contains(&("Available".to_string(), "Normal".to_string()))
            .then_some(())
    })
    .await
    .unwrap();
    assert_eq!(
        reasons().await,
        [("Available".to_string(), "Normal".to_string())],
        "creation and two resizes should publish one event"
    );

    // A hand edit of the replicas is reverted.
    deployments
        .patch(
            "cache",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({"spec": {"replicas": 2}})),
        )
        .await
        .unwrap();
    wait_until(
        "the hand-edited replicas to be reverted to 5",
        TIMEOUT,
        || {
            let admin = admin.clone();
            async move { (deployment_replicas(&admin, ns, "cache").await == Some(5)).then_some(()) }
        },
    )
    .await
    .unwrap();

    // A deleted Deployment is recreated.
    let old_uid = deployments.get("cache").await.unwrap().uid();
    deployments
        .delete("cache", &DeleteParams::background())
        .await
        .unwrap();
    wait_until("the deleted Deployment to be recreated", TIMEOUT, || {
        let deployments = deployments.clone();
        let old_uid = old_uid.clone();
        async move {
            let d = deployments.get_opt("cache").await.ok()??;
            (d.uid() != old_uid && d.spec?.replicas == Some(5)).then_some(())
        }
    })
    .await
    .unwrap();
    converged(&admin, ns, "cache", 5).await;

    // Steady state: another operator's reconcile and a few seconds of the running operator move no resourceVersion.
    let versions = || async {
        (
            mcs.get("cache").await.unwrap().resource_version(),
            deployments.get("cache").await.unwrap().resource_version(),
            services.get("cache").await.unwrap().resource_version(),
        )
    };
    // The Deployment controller keeps updating the Deployment's status for a moment after the
    // pods are ready; wait until nothing moves for three seconds, then measure.
    let mut before = versions().await;
    let mut quiet_since = std::time::Instant::now();
    let settling = std::time::Instant::now();
    while quiet_since.elapsed() < Duration::from_secs(3) {
        assert!(
            settling.elapsed() < TIMEOUT,
            "the objects never settled: {before:?}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
        let now = versions().await;
        if now != before {
            before = now;
            quiet_since = std::time::Instant::now();
        }
    }
    // A second operator, fresh (it remembers no apply), reconciles the converged object once:
    // its applies change nothing and its status is the one already written.
    let fresh = Operator::start(env.config().clone(), ns, |_| {});
    wait_until("the fresh operator's first reconcile", TIMEOUT, || async {
        (fresh.metrics.reconciles(CONTROLLER_NAME) > 0).then_some(())
    })
    .await
    .unwrap();
    fresh.shutdown().await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        versions().await,
        before,
        "a reconcile of a converged object changed something (Memcached, Deployment, Service)"
    );
    let reconciles = operator.metrics.reconciles(CONTROLLER_NAME);
    assert!(reconciles > 0);

    // The running operator, woken by its pods' events for a converged object, sends nothing:
    // no apply of the unchanged Deployment or Service, no status patch. (Checked where the
    // operator runs without leader election, whose lease renewals are requests too.)
    if !operator.elects_leader {
        let requests = operator.metrics.requests_total();
        let pod_api: Api<Pod> = Api::namespaced(admin.clone(), ns);
        let managed = ListParams::default().labels(&resources::managed_pods_selector());
        for pod in pod_api.list(&managed).await.unwrap() {
            pod_api
                .patch(
                    &pod.name_any(),
                    &PatchParams::default(),
                    &Patch::Merge(
                        serde_json::json!({"metadata": {"annotations": {"test/poke": "1"}}}),
                    ),
                )
                .await
                .unwrap();
        }
        wait_until("a reconcile woken by the pods", TIMEOUT, || async {
            (operator.metrics.reconciles(CONTROLLER_NAME) > reconciles).then_some(())
        })
        .await
        .unwrap();
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert_eq!(
            operator.metrics.requests_total(),
            requests,
            "reconciles of a converged object sent requests:\n{}",
            operator.metrics.encode()
        );
    }

    // Deletion: the finalizer records it (Warning event) and the children are collected.
    mcs.delete("cache", &DeleteParams::background())
        .await
        .unwrap();
    wait_until("the Memcached to be gone", TIMEOUT, || {
        let mcs = mcs.clone();
        async move { mcs.get_opt("cache").await.ok()?.is_none().then_some(()) }
    })
    .await
    .unwrap();
    let list = events.list(&ListParams::default()).await.unwrap();
    let deleting = list.items.iter().find(|e| {
        e.reason.as_deref() == Some("Deleting")
            && e.regarding.as_ref().and_then(|r| r.uid.clone()) == uid
    });
    let deleting = deleting.unwrap_or_else(|| {
        panic!(
            "no Deleting event among {:?}",
            list.items.iter().map(|e| &e.reason).collect::<Vec<_>>()
        )
    });
    assert_eq!(deleting.type_.as_deref(), Some("Warning"));
    // The deleted Deployment may have cost availability for a moment: a loss without an edit,
    // so a Warning if it was seen.
    let unavailable: Vec<_> = list
        .items
        .iter()
        .filter(|e| {
            e.reason.as_deref() == Some("Unavailable")
                && e.regarding.as_ref().and_then(|r| r.uid.clone()) == uid
        })
        .collect();
    assert!(
        unavailable
            .iter()
            .all(|e| e.type_.as_deref() == Some("Warning")),
        "a Normal among {unavailable:?}"
    );
    wait_until(
        "the Deployment, Service and pods to be garbage-collected",
        TIMEOUT,
        || {
            let (deployments, services, pods) = (
                deployments.clone(),
                services.clone(),
                Api::<Pod>::namespaced(admin.clone(), ns),
            );
            async move {
                let d = deployments.list(&ListParams::default()).await.ok()?;
                let s = services.list(&ListParams::default()).await.ok()?;
                let p = pods.list(&ListParams::default()).await.ok()?;
                (d.items.is_empty() && s.items.is_empty() && p.items.is_empty()).then_some(())
            }
        },
    )
    .await
    .unwrap();
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn lifecycle_as_admin() {
    let env = env().await;
    let ns = env.namespace("mc-lifecycle").await.unwrap();
    let operator = Operator::start(env.config().clone(), ns.name(), |_| {});
    lifecycle(&env, ns.name(), &operator).await;
    operator.shutdown().await;
}

/// A label edited by hand changes no generation, so no reconcile puts it back; the sync
/// period does (here 2 s instead of 10 h), and without it the edit stays.
#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn the_sync_period_puts_back_what_no_event_reports() {
    let env = env().await;
    let ns = env.namespace("memcached-sync").await.unwrap();
    let admin = env.client();
    let deployments: Api<Deployment> = Api::namespaced(admin.clone(), ns.name());
    let drop_name_label =
        serde_json::json!({"metadata": {"labels": {resources::NAME_LABEL: null}}});
    let has_name_label = |deployments: Api<Deployment>| async move {
        deployments
            .get("cache")
            .await
            .ok()?
            .labels()
            .contains_key(resources::NAME_LABEL)
            .then_some(())
    };
    for sync_period in [None, Some(Duration::from_secs(2))] {
        let settings = settings(ns.name());
        let options = ManagerOptions {
            reconcile: ReconcileSettings {
                sync_period,
                ..options().reconcile
            },
            ..options()
        };
        let metrics = Arc::new(Metrics::new());
        let client = counting_client(env.config().clone(), metrics.clone()).unwrap();
        let stop = CancellationToken::new();
        let task = tokio::spawn(
            Manager::new(client.clone(), metrics.clone(), options)
                .shutdown(stop.clone())
                .run(move |runtime| controller::start(client, settings, runtime)),
        );
        let operator = Operator {
            elects_leader: false,
            stop,
            task,
            metrics,
        };
        let mcs: Api<Memcached> = Api::namespaced(admin.clone(), ns.name());
        if mcs.get_opt("cache").await.unwrap().is_none() {
            mcs.create(&PostParams::default(), &memcached("cache", 1))
                .await
                .unwrap();
        }
        converged(&admin, ns.name(), "cache", 1).await;
        wait_until("the Deployment's labels", TIMEOUT, || {
            has_name_label(deployments.clone())
        })
        .await
        .unwrap();
        deployments
            .patch(
                "cache",
                &PatchParams::default(),
                &Patch::Merge(&drop_name_label),
            )
            .await
            .unwrap();
        match sync_period {
            None => {
                tokio::time::sleep(Duration::from_secs(4)).await;
                assert!(
                    has_name_label(deployments.clone()).await.is_none(),
                    "without a sync period nothing should have noticed the label"
                );
                // The Memcached stays for the next round; only this operator stops.
                operator.shutdown().await;
            }
            Some(_) => {
                wait_until(
                    "the sync period to put the label back",
                    Duration::from_secs(10),
                    || has_name_label(deployments.clone()),
                )
                .await
                .unwrap();
                operator.finish(&admin, ns.name()).await;
            }
        }
    }
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn two_memcacheds_in_one_namespace_stay_apart() {
    let env = env().await;
    let ns = env.namespace("mc-apart").await.unwrap();
    let operator = Operator::start(env.config().clone(), ns.name(), |_| {});
    let mcs: Api<Memcached> = Api::namespaced(env.client(), ns.name());
    mcs.create(&PostParams::default(), &memcached("left", 2))
        .await
        .unwrap();
    mcs.create(&PostParams::default(), &memcached("right", 1))
        .await
        .unwrap();
    let left = converged(&env.client(), ns.name(), "left", 2).await;
    let right = converged(&env.client(), ns.name(), "right", 1).await;
    let (l, r) = (left.status.unwrap().nodes, right.status.unwrap().nodes);
    assert!(l.iter().all(|n| n.starts_with("left-")), "{l:?}");
    assert!(r.iter().all(|n| n.starts_with("right-")), "{r:?}");
    // Scaling one leaves the other alone.
    mcs.patch(
        "left",
        &PatchParams::default(),
        &Patch::Merge(serde_json::json!({"spec": {"size": 0}})),
    )
    .await
    .unwrap();
    converged(&env.client(), ns.name(), "left", 0).await;
    let right_again = converged(&env.client(), ns.name(), "right", 1).await;
    assert_eq!(right_again.status.unwrap().nodes, r);
    operator.finish(&env.client(), ns.name()).await;
}

/// What the local control plane's audit log says the service account `sa` of `ns` asked,
/// laid against the roles of `role_yaml`; `None` on a cluster without our audit log.
fn audit_report(ns: &str, sa: &str, role_yaml: &str) -> Option<audit::Report> {
    let log = audit::current_log()?;
    let user = format!("system:serviceaccount:{ns}:{sa}");
    let requests = audit::read(&log, |u| u == user).unwrap();
    Some(audit::Report::new(
        &audit::grants(role_yaml).unwrap(),
        &requests,
    ))
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn lifecycle_as_the_service_account_with_the_generated_roles() {
    let env = env().await;
    let ns = env.namespace("mc-rbac").await.unwrap();
    let role_yaml = std::fs::read_to_string(workspace().join("config/rbac/role.yaml")).unwrap();
    // A token of the account, as its pod would have: the audit log records its requests
    // under its own name (impersonated ones would be recorded under the admin's).
    let (config, bound) = env
        .operator_config(ns.name(), "controller-manager", &role_yaml)
        .await
        .unwrap();
    // Leader election too, so the Lease rights of the generated Role are exercised.
    let namespace = ns.name().to_string();
    let operator = Operator::start(config, ns.name(), |o| {
        o.leader_election = Some(LeaderElection {
            namespace,
            lease_name: "memcached-operator".into(),
            identity: "rbac-test".into(),
            lease_duration: Duration::from_secs(15),
            renew_grace: Duration::from_secs(5),
        });
    });
    lifecycle(&env, ns.name(), &operator).await;
    assert!(operator.metrics.reconciles(CONTROLLER_NAME) > 0);
    operator.shutdown().await;
    drop(bound);
    match audit_report(ns.name(), "controller-manager", &role_yaml) {
        Some(report) => {
            eprintln!("RBAC from the audit log:\n{report}");
            assert!(report.refused.is_empty(), "requests refused:\n{report}");
            assert!(
                report.grants.iter().any(|(_, n)| *n > 0),
                "the audit log has none of the operator's requests:\n{report}"
            );
        }
        None => eprintln!("no audit log of the local control plane: the RBAC report is skipped"),
    }
}

/// The role made from memcached's sources with one `#[rbac]` marker taken out (services)
/// and one added that nothing uses (batch jobs): the operator is refused, the audit report
/// names the marker to add, and lists the grant nobody used.
#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn a_role_missing_a_marker_is_refused_and_the_report_names_the_marker() {
    let env = env().await;
    let Some(_) = audit::current_log() else {
        eprintln!("no audit log of the local control plane: skipped");
        return;
    };
    let ns = env.namespace("mc-rbac-less").await.unwrap();
    let src = tempfile::tempdir().unwrap();
    let controller =
        std::fs::read_to_string(workspace().join("memcached/src/controller.rs")).unwrap();
    let services = "#[rbac(\n    groups = \"core\",\n    resources = \"services\",\n    verbs = \"list;watch;create;patch\"\n)]\n";
    assert!(
        controller.contains(services),
        "memcached's services marker moved"
    );
    let controller = controller.replace(
        services,
        "#[rbac(groups = \"batch\", resources = \"jobs\", verbs = \"get\")]\n",
    );
    std::fs::write(src.path().join("controller.rs"), controller).unwrap();
    let rbac = operator_gen::ArtifactKind::named("rbac").unwrap();
    let generated = operator_gen::generate_with(
        &[src.path().to_path_buf()],
        &operator_gen::Options::default(),
        &[rbac],
    )
    .unwrap();
    let role_yaml = generated.files[0].contents.clone();
    let (config, bound) = env
        .operator_config(ns.name(), "reduced-manager", &role_yaml)
        .await
        .unwrap();
    let operator = Operator::start(config, ns.name(), |_| {});
    let mcs: Api<Memcached> = Api::namespaced(env.client(), ns.name());
    mcs.create(&PostParams::default(), &memcached("less", 1))
        .await
        .unwrap();
    let report = wait_until("a refused request in the audit log", TIMEOUT, || {
        let report = audit_report(ns.name(), "reduced-manager", &role_yaml);
        async move { report.filter(|r| !r.refused.is_empty()) }
    })
    .await
    .unwrap();
    operator.shutdown().await;
    drop(bound);
    let text = report.to_string();
    eprintln!("RBAC from the audit log:\n{text}");
    assert!(
        text.contains("REFUSED  list core/services")
            && text.contains(
                "add #[rbac(groups = \"core\", resources = \"services\", verbs = \"list\")] to the reconciler"
            ),
        "{text}"
    );
    assert!(
        text.contains("unused   get batch/jobs (all namespaces): granted, no test used it"),
        "{text}"
    );
}

/// Requests of `method` on `resource` an instance sent, from its metrics.
fn requests(metrics: &Metrics, method: &str, resource: &str) -> u64 {
    sample_sum(metrics, |m, r| m == method && r == resource)
}

/// Requests of `method` on any resource but `resource`.
fn requests_except(metrics: &Metrics, method: &str, resource: &str) -> u64 {
    sample_sum(metrics, |m, r| m == method && r != resource)
}

fn sample_sum(metrics: &Metrics, pick: impl Fn(&str, &str) -> bool) -> u64 {
    let label = |line: &str, name: &str| -> String {
        let at = format!("{name}=\"");
        line.split_once(&at)
            .and_then(|(_, rest)| rest.split_once('"'))
            .map(|(value, _)| value.to_string())
            .unwrap_or_default()
    };
    metrics
        .encode()
        .lines()
        .filter(|l| l.starts_with("operator_rest_client_requests_total{"))
        .filter(|l| pick(&label(l, "method"), &label(l, "resource")))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

fn election(namespace: &str, identity: &str, lease: Duration) -> LeaderElection {
    LeaderElection {
        namespace: namespace.to_string(),
        lease_name: "memcached-operator".into(),
        identity: identity.to_string(),
        lease_duration: lease,
        renew_grace: Duration::from_secs(2),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn with_leader_election_one_instance_reconciles_and_another_takes_over() {
    let env = env().await;
    let ns = env.namespace("mc-leader").await.unwrap();
    let lease = Duration::from_secs(6);

    // The first instance runs on a runtime of its own, so that it can be killed outright: no
    // graceful shutdown, no lease release, as when its pod dies.
    let first_runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let first_metrics = Arc::new(Metrics::new());
    let first_client = {
        let _inside = first_runtime.enter();
        counting_client(env.config().clone(), first_metrics.clone()).unwrap()
    };
    let options = ManagerOptions {
        leader_election: Some(election(ns.name(), "first", lease)),
        ..options()
    };
    let first_settings = settings(ns.name());
    first_runtime.spawn(
        Manager::new(first_client.clone(), first_metrics.clone(), options)
            .shutdown(CancellationToken::new())
            .run(move |runtime| controller::start(first_client, first_settings, runtime)),
    );
    wait_until("the first instance to lead", TIMEOUT, || {
        let m = first_metrics.clone();
        async move { m.is_leader().then_some(()) }
    })
    .await
    .unwrap();

    let second = Operator::start(env.config().clone(), ns.name(), |o| {
        o.leader_election = Some(election(ns.name(), "second", lease));
    });
    let mcs: Api<Memcached> = Api::namespaced(env.client(), ns.name());
    mcs.create(&PostParams::default(), &memcached("led", 2))
        .await
        .unwrap();
    converged(&env.client(), ns.name(), "led", 2).await;
    assert!(first_metrics.reconciles(CONTROLLER_NAME) > 0);
    assert_eq!(
        second.metrics.reconciles(CONTROLLER_NAME),
        0,
        "the standby reconciled"
    );
    assert!(!second.metrics.is_leader());
    // Warm: the standby lists and watches what the controller caches while it waits, and
    // writes nothing but its tries at the lease.
    wait_until("the standby's watches", TIMEOUT, || {
        let m = second.metrics.clone();
        async move {
            ["memcacheds", "deployments", "services", "pods"]
                .iter()
                .all(|r| requests(&m, "GET", r) > 0)
                .then_some(())
        }
    })
    .await
    .unwrap();
    let writes = |m: &Metrics| -> u64 {
        ["POST", "PUT", "PATCH", "DELETE"]
            .iter()
            .map(|method| requests_except(m, method, "leases"))
            .sum()
    };
    assert_eq!(writes(&second.metrics), 0, "the standby wrote");
    let lists_before = requests(&second.metrics, "GET", "memcacheds");

    let killed = Instant::now();
    first_runtime.shutdown_background();
    wait_until("the second instance to take over", TIMEOUT, || {
        let m = second.metrics.clone();
        async move { m.is_leader().then_some(()) }
    })
    .await
    .unwrap();
    let took = killed.elapsed();
    // The lease must expire first; then the standby needs at most one retry period.
    assert!(
        took <= lease + Duration::from_secs(4),
        "took over after {took:?} with a {lease:?} lease"
    );
    // It reconciles what it already holds, from its synced cache: no list first.
    let led = Instant::now();
    wait_until("the new leader's first reconcile", TIMEOUT, || {
        let m = second.metrics.clone();
        async move { (m.reconciles(CONTROLLER_NAME) > 0).then_some(()) }
    })
    .await
    .unwrap();
    let first_reconcile = led.elapsed();
    assert_eq!(
        requests(&second.metrics, "GET", "memcacheds"),
        lists_before,
        "the new leader read the Memcacheds again before reconciling"
    );
    eprintln!(
        "the standby took over {took:?} after the leader died (lease {lease:?}) and reconciled {first_reconcile:?} after leading, from its warm cache"
    );

    mcs.patch(
        "led",
        &PatchParams::default(),
        &Patch::Merge(serde_json::json!({"spec": {"size": 3}})),
    )
    .await
    .unwrap();
    converged(&env.client(), ns.name(), "led", 3).await;
    assert!(second.metrics.reconciles(CONTROLLER_NAME) > 0);
    second.finish(&env.client(), ns.name()).await;
}

/// A control plane of its own with `nodes` kwok nodes (in a scratch directory, removed when
/// dropped), the CRDs installed and the namespace `ns` ready for pods.
async fn plane_of_its_own(
    ns: &str,
    nodes: usize,
    apiserver_args: &[&str],
) -> (
    tempfile::TempDir,
    envtest::plane::ControlPlane,
    kube::Config,
    Client,
) {
    let scratch = tempfile::tempdir().unwrap();
    let mut options = envtest::Options::new(scratch.path().join("plane"));
    options.nodes = nodes;
    options.apiserver_args = apiserver_args.iter().map(|a| a.to_string()).collect();
    let plane = envtest::plane::start(&options)
        .await
        .unwrap()
        .expect("a new control plane");
    let config = plane.config().await.unwrap();
    let client = Client::try_from(config.clone()).unwrap();
    install_crds(&client).await;
    Api::<k8s_openapi::api::core::v1::Namespace>::all(client.clone())
        .create(
            &PostParams::default(),
            &k8s_openapi::api::core::v1::Namespace {
                metadata: ObjectMeta {
                    name: Some(ns.into()),
                    ..Default::default()
                },
                ..Default::default()
            },
        )
        .await
        .unwrap();
    wait_until("the default service account", TIMEOUT, || {
        let sas: Api<ServiceAccount> = Api::namespaced(client.clone(), ns);
        async move { sas.get_opt("default").await.ok()? }
    })
    .await
    .unwrap();
    (scratch, plane, config, client)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the control plane binaries: run by `cargo xtask test`"]
async fn the_operator_recovers_from_an_api_server_restart() {
    // A control plane of its own: restarting the shared one would disturb the other tests.
    let ns = "restart";
    let (_scratch, mut plane, config, client) = plane_of_its_own(ns, 1, &[]).await;

    let operator = Operator::start(config, ns, |_| {});
    let mcs: Api<Memcached> = Api::namespaced(client.clone(), ns);
    mcs.create(&PostParams::default(), &memcached("survivor", 2))
        .await
        .unwrap();
    converged(&client, ns, "survivor", 2).await;

    plane.restart("kube-apiserver").await.unwrap();
    let state = plane.state.clone();
    wait_until("the restarted API server to be ready", TIMEOUT, || {
        let state = state.clone();
        async move { envtest::plane::api_ready(&state).await.ok() }
    })
    .await
    .unwrap();

    // The operator was not restarted: its watches must resume and pick up the change.
    wait_until("the scale patch to be accepted", TIMEOUT, || {
        let mcs = mcs.clone();
        async move {
            mcs.patch(
                "survivor",
                &PatchParams::default(),
                &Patch::Merge(serde_json::json!({"spec": {"size": 3}})),
            )
            .await
            .ok()
        }
    })
    .await
    .unwrap();
    // Every client of the API server (the operator, kube-controller-manager, the scheduler and
    // kwok) reconnects with its own backoff, up to about 30 s each.
    let restarted = Instant::now();
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), ns);
    wait_until(
        "the operator to scale the Deployment to 3",
        Duration::from_secs(120),
        || {
            let deployments = deployments.clone();
            async move {
                (deployments.get("survivor").await.ok()?.spec?.replicas == Some(3)).then_some(())
            }
        },
    )
    .await
    .unwrap();
    eprintln!(
        "the operator acted {:?} after the restart",
        restarted.elapsed()
    );
    converged_within(&client, ns, "survivor", 3, Duration::from_secs(120)).await;
    eprintln!("converged {:?} after the restart", restarted.elapsed());
    assert!(!operator.task.is_finished(), "the operator exited");
    operator.shutdown().await;
    plane.stop().await.unwrap();
}

/// A plain HTTP/1.0 GET on loopback (so the answer comes whole, not in chunks): (status
/// code, body).
async fn http_get(port: u16, path: &str) -> Option<(u16, String)> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .ok()?;
    let request = format!("GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n");
    stream.write_all(request.as_bytes()).await.ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).await.ok()?;
    let code = response.split_whitespace().nth(1)?.parse().ok()?;
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())?;
    Some((code, body))
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn metrics_and_probes_are_served() {
    let env = env().await;
    let ns = env.namespace("mc-probes").await.unwrap();
    let (metrics_port, health_port) = (free_port(), free_port());
    let operator = Operator::start(env.config().clone(), ns.name(), |o| {
        o.metrics_addr = Some(([127, 0, 0, 1], metrics_port).into());
        o.health_addr = Some(([127, 0, 0, 1], health_port).into());
    });
    wait_until("/readyz to answer 200", TIMEOUT, || async move {
        let (code, body) = http_get(health_port, "/readyz").await?;
        (code == 200 && body.contains("ok")).then_some(())
    })
    .await
    .unwrap();
    let (code, _) = http_get(health_port, "/healthz").await.unwrap();
    assert_eq!(code, 200);

    let mcs: Api<Memcached> = Api::namespaced(env.client(), ns.name());
    mcs.create(&PostParams::default(), &memcached("observed", 1))
        .await
        .unwrap();
    converged(&env.client(), ns.name(), "observed", 1).await;
    let (code, text) = http_get(metrics_port, "/metrics").await.unwrap();
    assert_eq!(code, 200);
    for expected in [
        "controller_runtime_reconcile_total{controller=\"memcached\",result=\"success\"}",
        "controller_runtime_reconcile_time_seconds_bucket{le=\"0.005\",controller=\"memcached\"}",
        "rest_client_requests_total{method=\"PATCH\"}",
    ] {
        assert!(text.contains(expected), "{expected} missing from\n{text}");
    }
    operator.finish(&env.client(), ns.name()).await;
    assert!(
        http_get(health_port, "/healthz").await.is_none(),
        "the probe server outlived the operator"
    );
}

/// An instance of the operator on a tokio runtime of its own, so that it can be killed
/// outright (no graceful shutdown, no lease release), as when its pod dies.
struct Killable {
    runtime: tokio::runtime::Runtime,
    metrics: Arc<Metrics>,
    /// Its lists of Memcacheds.
    lists: Arc<std::sync::atomic::AtomicUsize>,
}

impl Killable {
    /// Counts each exit of its manager in `exits`.
    fn start(
        config: &kube::Config,
        ns: &str,
        identity: &str,
        lease: Duration,
        exits: Arc<std::sync::atomic::AtomicUsize>,
    ) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let metrics = Arc::new(Metrics::new());
        let lists = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let client = {
            let _inside = runtime.enter();
            // As `counting_client`, and counting the lists of Memcacheds (a watcher lists
            // when it starts and when its watch expired).
            let (metrics, lists) = (metrics.clone(), lists.clone());
            let layer =
                tower::util::MapRequestLayer::new(move |req: http::Request<kube::client::Body>| {
                    metrics.request(req.method().as_str(), req.uri().path());
                    let watch = req.uri().query().is_some_and(|q| q.contains("watch="));
                    if req.uri().path().ends_with("/memcacheds") && !watch {
                        lists.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    }
                    req
                });
            kube::client::ClientBuilder::try_from(config.clone())
                .unwrap()
                .with_layer(&layer)
                .build()
        };
        let options = ManagerOptions {
            leader_election: Some(election(ns, identity, lease)),
            ..options()
        };
        let settings = settings(ns);
        let counted = exits;
        let kept = metrics.clone();
        // As the kubelet does: a manager that exits (it lost the lease) starts again.
        runtime.spawn(async move {
            loop {
                let (client, settings) = (client.clone(), settings.clone());
                let ended = Manager::new(client.clone(), kept.clone(), options.clone())
                    .shutdown(CancellationToken::new())
                    .run(move |runtime| controller::start(client, settings, runtime))
                    .await;
                counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                eprintln!("an instance's manager exited ({ended:?}); starting it again");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
        Self {
            runtime,
            metrics,
            lists,
        }
    }

    fn kill(self) {
        self.runtime.shutdown_background();
    }
}

/// The lists of Memcacheds the instances made so far.
fn listed(instances: &[Killable]) -> usize {
    instances
        .iter()
        .map(|k| k.lists.load(std::sync::atomic::Ordering::SeqCst))
        .sum()
}

/// Merges `patch` into the Memcacheds `mc-0` to `mc-<n - 1>`, all at once.
async fn patch_all(mcs: &Api<Memcached>, n: usize, patch: serde_json::Value) {
    futures::future::join_all((0..n).map(|j| {
        let name = format!("mc-{j}");
        let patch = Patch::Merge(patch.clone());
        async move {
            mcs.patch(&name, &PatchParams::default(), &patch)
                .await
                .unwrap()
        }
    }))
    .await;
}

/// What goes wrong, in the battery's order.
#[derive(Debug, Clone, Copy)]
enum Fault {
    ApiServerRestarted,
    EtcdRestarted,
    /// Both instances cut off from the API server for a few seconds (their connections
    /// dropped) while the storm resizes every Memcached and etcd is compacted: their watches
    /// of Memcacheds expire (410 Gone), and they must list again to see the new sizes. The
    /// API server runs on.
    WatchesExpired,
    /// Both instances killed (SIGKILL-like) and started again: a cold start.
    OperatorKilled,
    /// The leader killed; the standby takes over; a new standby starts.
    LeaderKilled,
    /// The API server restarted, and throttling the operator: API Priority and Fairness
    /// puts the operator's service account (its every request, lease renewals and the
    /// relists after the restart too) in a priority level of one seat that rejects (429)
    /// whatever finds the seat taken, until everything converged. The control plane's
    /// components keep their own levels.
    ApiServerThrottling,
}

/// The service account the battery's operator runs as.
const ACCOUNT: &str = "controller-manager";
/// Every Memcached in `ns` converged on `size`: Available for its generation, its pods
/// Running and listed; exactly one Deployment and one Service each, controlled by it, the
/// Deployment at `size`. `Err` says what is not (yet) so.
async fn all_converged(client: &Client, ns: &str, size: i32) -> Result<(), String> {
    let mcs = Api::<Memcached>::namespaced(client.clone(), ns)
        .list(&ListParams::default())
        .await
        .map_err(|e| e.to_string())?
        .items;
    let deployments = Api::<Deployment>::namespaced(client.clone(), ns)
        .list(&ListParams::default())
        .await
        .map_err(|e| e.to_string())?
        .items;
    let services = Api::<Service>::namespaced(client.clone(), ns)
        .list(&ListParams::default())
        .await
        .map_err(|e| e.to_string())?
        .items;
    let pods = Api::<Pod>::namespaced(client.clone(), ns)
        .list(&ListParams::default())
        .await
        .map_err(|e| e.to_string())?
        .items;
    let controller_uid = |meta: &ObjectMeta| -> Option<String> {
        meta.owner_references
            .iter()
            .flatten()
            .find(|o| o.controller == Some(true))
            .map(|o| o.uid.clone())
    };
    for mc in &mcs {
        let name = mc.name_any();
        let uid = mc.uid();
        let owned = |meta: &ObjectMeta| controller_uid(meta) == uid;
        let ds: Vec<_> = deployments.iter().filter(|d| owned(&d.metadata)).collect();
        let ss: Vec<_> = services.iter().filter(|s| owned(&s.metadata)).collect();
        if ds.len() != 1 || ss.len() != 1 {
            return Err(format!(
                "{name}: {} Deployments, {} Services",
                ds.len(),
                ss.len()
            ));
        }
        if ds[0].spec.as_ref().and_then(|s| s.replicas) != Some(size) {
            return Err(format!("{name}: Deployment not at {size}"));
        }
        let status = mc.status.clone().ok_or(format!("{name}: no status"))?;
        let available = status::find(&status, AVAILABLE).ok_or(format!("{name}: no Available"))?;
        if available.status != "True" || available.observed_generation != mc.metadata.generation {
            let ready = ds[0].status.as_ref().and_then(|s| s.ready_replicas);
            return Err(format!(
                "{name}: Available {} ({}) for generation {:?} of {:?}; its Deployment has {ready:?} ready",
                available.status,
                available.message,
                available.observed_generation,
                mc.metadata.generation
            ));
        }
        let selector = (resources::INSTANCE_LABEL.to_string(), name.clone());
        let mut running_pods: Vec<String> = pods
            .iter()
            .filter(|p| running(p))
            .filter(|p| p.labels().get(&selector.0) == Some(&selector.1))
            .map(|p| p.name_any())
            .collect();
        running_pods.sort();
        if running_pods.len() != size as usize || status.nodes != running_pods {
            return Err(format!(
                "{name}: {} pods Running, status lists {}",
                running_pods.len(),
                status.nodes.len()
            ));
        }
    }
    // Nothing left over that no Memcached controls.
    let uids: Vec<_> = mcs.iter().filter_map(|m| m.uid()).collect();
    let orphan = |meta: &ObjectMeta| !controller_uid(meta).is_some_and(|u| uids.contains(&u));
    if let Some(d) = deployments.iter().find(|d| orphan(&d.metadata)) {
        return Err(format!("Deployment {} is orphaned", d.name_any()));
    }
    if let Some(s) = services.iter().find(|s| orphan(&s.metadata)) {
        return Err(format!("Service {} is orphaned", s.name_any()));
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the control plane binaries: run by `cargo xtask test`"]
async fn nothing_is_lost_orphaned_or_duplicated_through_a_battery_of_faults() {
    if std::env::var_os("RUST_LOG").is_some() {
        operator_runtime::logging::init(operator_runtime::LogFormat::Text);
    }
    // FAULT_OBJECTS sets N (12 by default).
    let n: usize = std::env::var("FAULT_OBJECTS")
        .ok()
        .map(|v| v.parse().expect("FAULT_OBJECTS: a number"))
        .unwrap_or(12);
    // A control plane of its own: restarting the shared one would disturb the other tests.
    let ns = "faults";
    // Memcacheds are watched from etcd, not the API server's watch cache (which keeps at
    // least 75 s of history, so no short outage expires a watch): compacting etcd then
    // expires the operator's watches of them (see `Fault::WatchesExpired`).
    let (_scratch, mut plane, admin, client) = plane_of_its_own(
        ns,
        2,
        &["--watch-cache-sizes=memcacheds.cache.example.com#0"],
    )
    .await;
    // The operator runs as its service account with the generated roles, as in a cluster:
    // the API server's flow control treats it as it would there (the admin is exempt).
    let role_yaml = std::fs::read_to_string(workspace().join("config/rbac/role.yaml")).unwrap();
    let (config, bound) = TestEnv::from_config(admin)
        .unwrap()
        .operator_config(ns, ACCOUNT, &role_yaml)
        .await
        .unwrap();
    // The instances reach the API server through a relay that can cut them off.
    let relay = Relay::start(&config).await.unwrap();
    let config = relay.config(&config);

    let lease = Duration::from_secs(6);
    let mut generation = 0;
    let exits = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let start = |generation: &mut u32| {
        *generation += 1;
        let identity = format!("instance-{generation}");
        Killable::start(&config, ns, &identity, lease, exits.clone())
    };
    let mut instances = vec![start(&mut generation), start(&mut generation)];
    let mcs: Api<Memcached> = Api::namespaced(client.clone(), ns);
    for i in 0..n {
        mcs.create(&PostParams::default(), &memcached(&format!("mc-{i}"), 1))
            .await
            .unwrap();
    }
    let converge = |size: i32, timeout: Duration| {
        let client = client.clone();
        async move {
            let started = Instant::now();
            let mut last = String::new();
            // What is still awaited, every 20 s: whose turn it is when a fault takes long.
            let mut told = Duration::ZERO;
            while started.elapsed() < timeout {
                match all_converged(&client, ns, size).await {
                    Ok(()) => return Ok(started.elapsed()),
                    Err(why) => last = why,
                }
                if started.elapsed() >= told + Duration::from_secs(20) {
                    told = started.elapsed();
                    eprintln!("  after {:.0} s, waiting on {last}", told.as_secs_f64());
                }
                // Four lists a second: little beside the operators' requests, even throttled.
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            Err(last)
        }
    };
    // A larger N takes longer (the control plane's share: N Deployments and their pods).
    let slack = Duration::from_millis(500) * n as u32;
    converge(1, Duration::from_secs(120) + slack).await.unwrap();

    // FAULTS picks some, in its order (`api,etcd,expire,kill,leader,throttle`).
    let faults: Vec<Fault> = match std::env::var("FAULTS") {
        Ok(names) => names
            .split(',')
            .map(|name| match name.trim() {
                "api" => Fault::ApiServerRestarted,
                "etcd" => Fault::EtcdRestarted,
                "expire" => Fault::WatchesExpired,
                "kill" => Fault::OperatorKilled,
                "leader" => Fault::LeaderKilled,
                "throttle" => Fault::ApiServerThrottling,
                other => panic!("FAULTS: no fault {other}"),
            })
            .collect(),
        Err(_) => vec![
            Fault::ApiServerRestarted,
            Fault::ApiServerRestarted,
            Fault::EtcdRestarted,
            Fault::WatchesExpired,
            Fault::OperatorKilled,
            Fault::LeaderKilled,
            Fault::ApiServerThrottling,
        ],
    };
    let mut rows = Vec::new();
    for (i, &fault) in faults.iter().enumerate() {
        // The storm: every Memcached resized at once, and the fault in the middle of it.
        let size = 2 + (i % 2) as i32;
        // Reconciles of every instance, those killed during the fault included.
        let counted = |instances: &[Killable]| -> u64 {
            instances
                .iter()
                .map(|k| k.metrics.reconciles(CONTROLLER_NAME))
                .sum()
        };
        let reconciles_before = counted(&instances);
        let exits_before = exits.load(std::sync::atomic::Ordering::SeqCst);
        let mut killed_reconciles = 0;
        let mut throttled = false;
        let mut lists_before = None;
        let resize = serde_json::json!({"spec": {"size": size}});
        // (When the watches expire, the storm comes while the instances are cut off.)
        if !matches!(fault, Fault::WatchesExpired) {
            patch_all(&mcs, n, resize.clone()).await;
        }
        let injected = Instant::now();
        match fault {
            Fault::ApiServerRestarted => plane.restart("kube-apiserver").await.unwrap(),
            Fault::EtcdRestarted => plane.restart("etcd").await.unwrap(),
            Fault::WatchesExpired => {
                lists_before = Some(listed(&instances));
                relay.set_cut(true);
                // Every Memcached resized while they are away, and the history compacted:
                // they can only learn the new sizes by listing again.
                patch_all(&mcs, n, resize).await;
                faults::compact_etcd(&plane).await.unwrap();
                tokio::time::sleep(Duration::from_secs(2)).await;
                relay.set_cut(false);
            }
            Fault::ApiServerThrottling => {
                throttled = true;
                faults::throttle(&client, ns, ACCOUNT).await.unwrap();
                // Every watch of the operator's comes back through the one seat.
                plane.restart("kube-apiserver").await.unwrap();
            }
            Fault::OperatorKilled => {
                killed_reconciles += counted(&instances);
                for instance in instances.drain(..) {
                    instance.kill();
                }
                instances = vec![start(&mut generation), start(&mut generation)];
            }
            Fault::LeaderKilled => {
                let leader = wait_until("a leader", TIMEOUT, || {
                    let at = instances.iter().position(|k| k.metrics.is_leader());
                    async move { at }
                })
                .await
                .unwrap();
                let leader = instances.remove(leader);
                killed_reconciles += leader.metrics.reconciles(CONTROLLER_NAME);
                leader.kill();
                let killed = Instant::now();
                // The killed pod comes back at once, as the kubelet restarts it: the warm
                // standby and the cold newcomer both try for the lease when it expires, and
                // either may win (each with a field manager of its own, so never both).
                instances.push(start(&mut generation));
                let before: Vec<u64> = instances
                    .iter()
                    .map(|k| k.metrics.reconciles(CONTROLLER_NAME))
                    .collect();
                let metrics: Vec<Arc<Metrics>> =
                    instances.iter().map(|k| k.metrics.clone()).collect();
                let new_leader = wait_until("a live instance to lead", TIMEOUT, || {
                    let at = metrics.iter().position(|m| m.is_leader());
                    async move { at }
                })
                .await
                .unwrap();
                let led = killed.elapsed();
                let who = if new_leader + 1 == instances.len() {
                    "the restarted instance (cold)"
                } else {
                    "the standby (warm)"
                };
                let leader = metrics[new_leader].clone();
                wait_until("the new leader's first reconcile", TIMEOUT, || {
                    let leader = leader.clone();
                    let before = before[new_leader];
                    async move { (leader.reconciles(CONTROLLER_NAME) > before).then_some(()) }
                })
                .await
                .unwrap();
                assert_eq!(
                    metrics.iter().filter(|m| m.is_leader()).count(),
                    1,
                    "two instances lead at once"
                );
                eprintln!(
                    "{who} led {led:?} and reconciled {:?} after the leader was killed (lease {lease:?})",
                    killed.elapsed()
                );
            }
        }
        // Generous: after the third or fourth restart in a few minutes, the control plane's
        // own clients (kube-controller-manager's watches) come back after backoffs of up to
        // a minute, and a busy machine stretches them. Passing runs take a fraction of it.
        if let Err(why) = converge(size, Duration::from_secs(300) + slack).await {
            let state = plane_report(&client, ns, &plane.state).await;
            panic!("after {fault:?}: not converged: {why}\n{state}");
        }
        let took = injected.elapsed();
        let reconciles = counted(&instances) + killed_reconciles - reconciles_before;
        let exited = exits.load(std::sync::atomic::Ordering::SeqCst) - exits_before;
        let mut row = format!(
            "{fault:<20?} converged {:>6.1} s after the fault; {reconciles} reconciles; \
             {exited} managers exited (lease lost) and started again",
            took.as_secs_f64()
        );
        if let Some(before) = lists_before {
            let lists = listed(&instances) - before;
            write!(
                row,
                "; {lists} lists of Memcacheds after the watches expired"
            )
            .unwrap();
            assert!(
                lists > 0,
                "no instance listed again after its watches expired"
            );
        }
        if throttled {
            // Counted since the restart (the API server's metrics start again with it).
            let (served, rejected) = faults::throttled_requests(&client).await.unwrap();
            faults::unthrottle(&client).await.unwrap();
            write!(
                row,
                "; the operator's requests: {served} served, {rejected} refused (429)"
            )
            .unwrap();
            assert!(
                served > 0 && rejected > 0,
                "the throttle did not bite: {served} requests served, {rejected} refused"
            );
        }
        eprintln!("{row}");
        rows.push(row);
    }
    let events = Api::<Event>::namespaced(client.clone(), ns)
        .list(&ListParams::default())
        .await
        .unwrap()
        .items;
    let about_memcacheds = events
        .iter()
        .filter(|e| e.regarding.as_ref().and_then(|r| r.kind.as_deref()) == Some("Memcached"))
        .count();
    eprintln!("N = {n}, two instances with leader election:");
    for row in &rows {
        eprintln!("  {row}");
    }
    eprintln!("  {about_memcacheds} events about Memcacheds in all");
    // One event per Memcached per change of state at most (created, scaled; nothing per fault).
    assert!(
        about_memcacheds <= n * (faults.len() + 2) * 2,
        "{about_memcacheds} events about {n} Memcacheds: an event storm"
    );
    for instance in instances {
        instance.kill();
    }
    drop(bound);
    plane.stop().await.unwrap();
}

/// What the control plane was doing when a fault did not converge, for the failure message:
/// whether each component still runs with the end of its log, and the namespace's pods (a
/// Deployment without ready pods waits on the scheduler, kwok or kube-controller-manager,
/// not on the operator).
async fn plane_report(client: &Client, ns: &str, state: &envtest::plane::State) -> String {
    let mut report = String::from("control plane:\n");
    for c in envtest::plane::component_status(state) {
        let _ = writeln!(
            report,
            "  {} (pid {}): {}",
            c.name,
            c.pid,
            if c.running { "running" } else { "NOT RUNNING" }
        );
        for line in envtest::plane::log_tail(&c.log, 3).lines() {
            let _ = writeln!(report, "    {}", line.chars().take(300).collect::<String>());
        }
    }
    report.push_str("API priority and fairness since the API server started:\n");
    match envtest::faults::flow_control_report(client).await {
        Ok(lines) => {
            for line in lines.lines() {
                let _ = writeln!(report, "  {line}");
            }
        }
        Err(err) => {
            let _ = writeln!(report, "  reading /metrics failed: {err}");
        }
    }
    list_report(&mut report, client, ns, "deployments", |d: Deployment| {
        let status = d.status.clone().unwrap_or_default();
        format!(
            "{} (uid {}, generation {:?}): observed {:?}, {:?} wanted, {:?} replicas, {:?} updated, {:?} ready",
            d.name_any(),
            d.metadata.uid.clone().unwrap_or_default(),
            d.metadata.generation,
            status.observed_generation,
            d.spec.as_ref().and_then(|s| s.replicas),
            status.replicas,
            status.updated_replicas,
            status.ready_replicas,
        )
    })
    .await;
    list_report(&mut report, client, ns, "pods", |pod: Pod| {
        let status = pod.status.clone().unwrap_or_default();
        let ready = status
            .conditions
            .unwrap_or_default()
            .into_iter()
            .find(|c| c.type_ == "Ready")
            .map_or("-".to_string(), |c| c.status);
        format!(
            "{}: phase {}, node {}, ready {ready}{}",
            pod.name_any(),
            status.phase.unwrap_or_default(),
            pod.spec.and_then(|s| s.node_name).unwrap_or_default(),
            if pod.metadata.deletion_timestamp.is_some() {
                ", being deleted"
            } else {
                ""
            }
        )
    })
    .await;
    report
}

/// `heading:`, then a line per object of `ns` as `line` writes it (or why listing failed).
async fn list_report<K>(
    report: &mut String,
    client: &Client,
    ns: &str,
    heading: &str,
    line: impl Fn(K) -> String,
) where
    K: kube::Resource<Scope = kube::core::NamespaceResourceScope>
        + Clone
        + serde::de::DeserializeOwned
        + std::fmt::Debug,
    K::DynamicType: Default,
{
    let _ = writeln!(report, "{heading}:");
    match Api::<K>::namespaced(client.clone(), ns)
        .list(&ListParams::default())
        .await
    {
        Ok(objects) => {
            for object in objects {
                let _ = writeln!(report, "  {}", line(object));
            }
        }
        Err(err) => {
            let _ = writeln!(report, "  listing them failed: {err}");
        }
    }
}
