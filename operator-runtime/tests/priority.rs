//! New work ahead of a relist: a controller of N ConfigMaps, each reconcile two reads from the
//! API server, has reconciled them all when the API server restarts. Its watch then lists
//! everything again and every ConfigMap comes back for a reconcile though none changed (what
//! client-go calls a resync). While that backlog runs, one new ConfigMap is created: the
//! test measures the time from its creation to its first reconcile, and how many of the
//! relisted objects were reconciled before it.
//!
//! What it shows: the new object is not put behind the backlog (controller-runtime's priority
//! queue, on by default since v0.23, does the same). It asserts an order, not a time: the new
//! object's reconcile comes before nine tenths of the backlog left when it was created.
//!
//! `PRIORITY_OBJECTS` sets N (300 by default; the figure in the book is at 1,000). A control
//! plane of its own: restarting the shared one would disturb the other tests.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use envtest::wait_until;
use futures::StreamExt as _;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, ObjectMeta, PostParams};
use kube::runtime::controller::Action;
use kube::runtime::watcher;
use kube::{Client, ResourceExt as _};
use operator_runtime::controller::{Context, Controller};
use operator_runtime::manager::{Manager, ManagerOptions};
use operator_runtime::{Metrics, ReconcileSettings};
use tokio_util::sync::CancellationToken;

const NS: &str = "priority";
const LABEL: &str = "priority-test/member";
const NEWCOMER: &str = "newcomer";
const TIMEOUT: Duration = Duration::from_secs(120);

#[derive(Default)]
struct Seen {
    reconciles: AtomicUsize,
    /// Each reconcile after `armed` was set: when it ended, and of which object.
    after_restart: Mutex<Vec<(Instant, String)>>,
    armed: std::sync::atomic::AtomicBool,
}

async fn reconcile(
    cm: Arc<ConfigMap>,
    ctx: Arc<Context<Arc<Seen>>>,
) -> Result<Action, kube::Error> {
    // What an operator's reconcile costs the API server, at least: a read of its object and
    // of one more.
    let ns = cm.namespace().unwrap_or_default();
    Api::<ConfigMap>::namespaced(ctx.client().clone(), &ns)
        .get(&cm.name_any())
        .await?;
    Api::<Namespace>::all(ctx.client().clone()).get(&ns).await?;
    let seen = ctx.data();
    seen.reconciles.fetch_add(1, Ordering::SeqCst);
    if seen.armed.load(Ordering::SeqCst) {
        seen.after_restart
            .lock()
            .unwrap()
            .push((Instant::now(), cm.name_any()));
    }
    Ok(ctx.next_sync(cm.as_ref()))
}

fn config_map(name: &str) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            labels: Some([(LABEL.to_string(), "yes".to_string())].into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the control plane binaries: run by `cargo xtask test`"]
async fn a_new_object_goes_ahead_of_a_relisted_backlog() {
    let n: usize = std::env::var("PRIORITY_OBJECTS")
        .ok()
        .map(|v| v.parse().expect("PRIORITY_OBJECTS: a number"))
        .unwrap_or(300);
    let scratch = tempfile::tempdir().unwrap();
    let mut options = envtest::Options::new(scratch.path().join("plane"));
    options.nodes = 0;
    let mut plane = envtest::plane::start(&options)
        .await
        .unwrap()
        .expect("a new control plane");
    let config = plane.config().await.unwrap();
    let client = Client::try_from(config.clone()).unwrap();
    Api::<Namespace>::all(client.clone())
        .create(
            &PostParams::default(),
            &Namespace {
                metadata: ObjectMeta {
                    name: Some(NS.into()),
                    ..Default::default()
                },
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), NS);
    futures::stream::iter(0..n)
        .map(|i| {
            let cms = cms.clone();
            async move {
                cms.create(&PostParams::default(), &config_map(&format!("member-{i}")))
                    .await
                    .unwrap();
            }
        })
        .buffer_unordered(16)
        .collect::<Vec<()>>()
        .await;

    let seen = Arc::new(Seen::default());
    let stop = CancellationToken::new();
    let data = seen.clone();
    let controller_client = client.clone();
    let options = ManagerOptions {
        name: "priority-test".into(),
        metrics_addr: None,
        health_addr: None,
        leader_election: None,
        // No debounce (it would add the same to both figures), no periodic resyncs.
        reconcile: ReconcileSettings::immediate(),
    };
    let operator = tokio::spawn(
        Manager::new(client.clone(), Arc::new(Metrics::new()), options)
            .shutdown(stop.clone())
            .run(move |runtime| {
                Controller::<ConfigMap>::new(controller_client, &runtime)
                    .namespace(Some(NS.to_string()))
                    .watch_config(watcher::Config::default().labels(LABEL))
                    .run(reconcile, data)
            }),
    );
    wait_until("every ConfigMap reconciled once", TIMEOUT, || {
        let done = seen.reconciles.load(Ordering::SeqCst) >= n;
        async move { done.then_some(()) }
    })
    .await
    .unwrap();
    // Quiet: nothing more is reconciled.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let before_restart = seen.reconciles.load(Ordering::SeqCst);
    seen.armed.store(true, Ordering::SeqCst);

    plane.restart("kube-apiserver").await.unwrap();
    let restarted = Instant::now();
    // The relist starts the backlog; the new object is created as soon as it has.
    wait_until(
        "the relist to reconcile the ConfigMaps again",
        TIMEOUT,
        || {
            let started = seen.reconciles.load(Ordering::SeqCst) > before_restart;
            async move { started.then_some(()) }
        },
    )
    .await
    .unwrap();
    let created = Instant::now();
    wait_until("the new ConfigMap to be accepted", TIMEOUT, || {
        let cms = cms.clone();
        async move {
            cms.create(&PostParams::default(), &config_map(NEWCOMER))
                .await
                .ok()
        }
    })
    .await
    .unwrap();
    let accepted = Instant::now();
    wait_until("the relisted backlog to be reconciled", TIMEOUT, || {
        let done = seen.reconciles.load(Ordering::SeqCst) > before_restart + n;
        async move { done.then_some(()) }
    })
    .await
    .unwrap();
    stop.cancel();
    operator.await.unwrap().unwrap();
    plane.stop().await.unwrap();

    let log = seen.after_restart.lock().unwrap();
    let relisted: HashSet<&str> = log
        .iter()
        .map(|(_, name)| name.as_str())
        .filter(|name| *name != NEWCOMER)
        .collect();
    assert_eq!(
        relisted.len(),
        n,
        "every relisted ConfigMap was reconciled again"
    );
    let position = log
        .iter()
        .position(|(_, name)| name == NEWCOMER)
        .expect("the new ConfigMap was reconciled");
    let first = log[position].0;
    // Reconciles that ended after the API server accepted the new object and before its own.
    let ahead = log[..position]
        .iter()
        .filter(|(at, _)| *at > accepted)
        .count();
    let left = log.iter().filter(|(at, _)| *at > accepted).count() - 1;
    eprintln!(
        "N = {n}: the relist began {:?} after the restart; the new ConfigMap's first reconcile \
         came {:?} after its creation was accepted, behind {ahead} of the {left} relisted \
         objects then left",
        created - restarted,
        first - accepted,
    );
    assert!(
        ahead * 10 <= left,
        "the new ConfigMap waited behind {ahead} of the {left} relisted objects left"
    );
}
