//! The controller builder against the real API server, with built-in kinds: a controller of
//! labelled ConfigMaps that owns a Secret copy of each (`owns_transformed`: the cache keeps the
//! Secrets without their data) and watches ServiceAccounts
//! labelled with a ConfigMap's name (`watches_metadata`). Its reconcile applies the copy, reads
//! the related ServiceAccounts and the owned Secrets from the indexes and publishes the same
//! event every time.
//!
//! What it shows: an apply is sent once and again only when the owned object changed (a hand
//! edit), not for events that change nothing; a watched object reconciles the object it maps
//! to and is found by `related`; the repeated event is published once; the owned cache holds
//! what its transform left.
//!
//! A second controller panics at each object's first reconcile: the panic is a failure
//! retried with the backoff, counted, and the controller goes on.
//!
//! Needs a running control plane: `cargo xtask test` provides one (plain `cargo test` skips it).

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use envtest::{TestEnv, wait_until};
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::{ConfigMap, Secret, ServiceAccount};
use k8s_openapi::api::events::v1::Event;
use kube::api::{Api, ObjectMeta, Patch, PatchParams, PostParams};
use kube::core::PartialObjectMeta;
use kube::runtime::controller::Action;
use kube::runtime::events::EventType;
use kube::runtime::reflector::ObjectRef;
use kube::runtime::watcher;
use kube::{Client, Resource as _, ResourceExt as _};
use operator_runtime::controller::{Context, Controller};
use operator_runtime::manager::{Manager, ManagerError, ManagerOptions};
use operator_runtime::{Metrics, ReconcileSettings, Runtime};
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(60);
const PRIMARY: &str = "toolkit-test/primary";
const OWNER: &str = "toolkit-test/owner";

#[derive(Default)]
struct Seen {
    /// Applies sent (not skipped).
    sent: AtomicUsize,
    reconciles: AtomicUsize,
    /// The related ServiceAccounts of each ConfigMap, as the last reconcile saw them.
    related: Mutex<BTreeMap<String, Vec<String>>>,
    /// The owned Secrets of each ConfigMap (by controller owner reference), likewise.
    owned: Mutex<BTreeMap<String, Vec<String>>>,
    /// The cached copies the reconciles read: whether each still had data, and its labels.
    cached: Mutex<Vec<(bool, BTreeMap<String, String>)>>,
}

fn copy_of(cm: &ConfigMap) -> Secret {
    let data = cm.data.clone().unwrap_or_default();
    Secret {
        metadata: ObjectMeta {
            name: Some(format!("{}-copy", cm.name_any())),
            namespace: cm.namespace(),
            labels: Some([(OWNER.to_string(), cm.name_any())].into()),
            owner_references: Some(vec![cm.controller_owner_ref(&()).unwrap()]),
            ..Default::default()
        },
        data: Some(
            data.into_iter()
                .map(|(k, v)| (k, ByteString(v.into_bytes())))
                .collect(),
        ),
        ..Default::default()
    }
}

async fn reconcile(
    cm: Arc<ConfigMap>,
    ctx: Arc<Context<Arc<Seen>>>,
) -> Result<Action, kube::Error> {
    ctx.data().reconciles.fetch_add(1, Ordering::SeqCst);
    if ctx.apply(cm.as_ref(), &copy_of(&cm)).await?.sent() {
        ctx.data().sent.fetch_add(1, Ordering::SeqCst);
    }
    let related: Vec<String> = ctx
        .related::<PartialObjectMeta<ServiceAccount>, _>(cm.as_ref())
        .iter()
        .map(|sa| sa.name_any())
        .collect();
    ctx.data()
        .related
        .lock()
        .unwrap()
        .insert(cm.name_any(), related);
    let owned: Vec<String> = ctx
        .related::<Secret, _>(cm.as_ref())
        .iter()
        .map(|s| s.name_any())
        .collect();
    ctx.data()
        .owned
        .lock()
        .unwrap()
        .insert(cm.name_any(), owned);
    let name = format!("{}-copy", cm.name_any());
    if let Some(copy) = ctx.cached::<Secret>(cm.namespace().as_deref(), &name) {
        let entry = (copy.data.is_some(), copy.labels().clone());
        ctx.data().cached.lock().unwrap().push(entry);
    }
    ctx.publish(
        cm.as_ref(),
        EventType::Normal,
        "Copied",
        "the data is copied",
    )
    .await;
    Ok(ctx.next_sync(cm.as_ref()))
}

/// A manager running the test's controller until [`Running::stop`].
struct Running {
    stop: CancellationToken,
    task: tokio::task::JoinHandle<Result<(), ManagerError>>,
}

impl Running {
    /// Starts a manager of `name` (see [`options`]) running what `controllers` starts.
    fn start<F, Fut>(client: Client, metrics: Arc<Metrics>, name: &str, controllers: F) -> Self
    where
        F: FnOnce(Runtime) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let stop = CancellationToken::new();
        let run = Manager::new(client, metrics, options(name))
            .shutdown(stop.clone())
            .run(controllers);
        Self {
            stop,
            task: tokio::spawn(run),
        }
    }

    fn is_finished(&self) -> bool {
        self.task.is_finished()
    }

    /// Stops the manager; it must have run without an error.
    async fn stop(self) {
        self.stop.cancel();
        self.task.await.unwrap().unwrap();
    }
}

/// A manager of `name` serving nothing, reconciling without debounce.
fn options(name: &str) -> ManagerOptions {
    ManagerOptions {
        name: name.into(),
        metrics_addr: None,
        health_addr: None,
        leader_election: None,
        reconcile: ReconcileSettings::immediate(),
    }
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn owned_and_watched_kinds_through_the_builder() {
    let env = TestEnv::connect().await.expect("a cluster to test against");
    let client = env.client();
    let ns = env.namespace("controller").await.unwrap();
    let ns = ns.name().to_string();
    let seen = Arc::new(Seen::default());

    let data = seen.clone();
    let namespace = ns.clone();
    let operator = Running::start(
        client.clone(),
        Arc::new(Metrics::new()),
        "toolkit-test",
        move |runtime| {
            Controller::<ConfigMap>::new(client, &runtime)
                .namespace(Some(namespace))
                // Names an operator moved from elsewhere keeps.
                .field_manager("toolkit-fields")
                .event_reporter("example.com/toolkit")
                .watch_config(watcher::Config::default().labels(PRIMARY))
                .owns_transformed::<Secret, _>(watcher::Config::default().labels(OWNER), |secret| {
                    secret.data = None
                })
                .watches_metadata::<ServiceAccount, _>(
                    watcher::Config::default().labels(OWNER),
                    |sa| {
                        let owner = sa.labels().get(OWNER)?;
                        Some(ObjectRef::new(owner).within(sa.namespace().as_deref()?))
                    },
                )
                .run(reconcile, data)
        },
    );

    let client = env.client();
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), &ns);
    let secrets: Api<Secret> = Api::namespaced(client.clone(), &ns);
    let sas: Api<ServiceAccount> = Api::namespaced(client.clone(), &ns);
    let mut cm = ConfigMap {
        metadata: ObjectMeta {
            name: Some("settings".into()),
            labels: Some([(PRIMARY.to_string(), String::new())].into()),
            ..Default::default()
        },
        data: Some([("colour".to_string(), "blue".to_string())].into()),
        ..Default::default()
    };
    cm = cms.create(&PostParams::default(), &cm).await.unwrap();
    let copied = |secrets: Api<Secret>, value: &'static str| async move {
        let s = secrets.get_opt("settings-copy").await.ok()??;
        (s.data?.get("colour")?.0 == value.as_bytes()).then_some(())
    };
    wait_until("the copy", WAIT, || copied(secrets.clone(), "blue"))
        .await
        .unwrap();
    assert_eq!(seen.sent.load(Ordering::SeqCst), 1);

    // A watched ServiceAccount reconciles its ConfigMap and is found from the index; the
    // copy, unchanged, is not applied again.
    let before = seen.reconciles.load(Ordering::SeqCst);
    let sa = ServiceAccount {
        metadata: ObjectMeta {
            name: Some("reader".into()),
            labels: Some([(OWNER.to_string(), "settings".to_string())].into()),
            ..Default::default()
        },
        ..Default::default()
    };
    sas.create(&PostParams::default(), &sa).await.unwrap();
    wait_until("the ServiceAccount in the index", WAIT, || async {
        let related = seen.related.lock().unwrap().get("settings").cloned()?;
        (related == ["reader"]).then_some(())
    })
    .await
    .unwrap();
    assert!(seen.reconciles.load(Ordering::SeqCst) > before);
    assert_eq!(
        seen.sent.load(Ordering::SeqCst),
        1,
        "an unchanged copy was applied again"
    );
    // The owned copy is found from the index `owns` keeps by controller owner reference.
    assert_eq!(
        seen.owned.lock().unwrap().get("settings").cloned(),
        Some(vec!["settings-copy".to_string()]),
        "related on an owned kind"
    );

    // A hand edit of the copy is an event of an owned object: applied again, and put back.
    let edit = serde_json::json!({ "data": { "colour": ByteString(b"red".to_vec()) } });
    secrets
        .patch(
            "settings-copy",
            &PatchParams::default(),
            &Patch::Merge(&edit),
        )
        .await
        .unwrap();
    wait_until("the copy put back", WAIT, || async {
        let sent = seen.sent.load(Ordering::SeqCst) == 2;
        (sent && copied(secrets.clone(), "blue").await.is_some()).then_some(())
    })
    .await
    .unwrap();

    // A new desired state is applied.
    cm.data = Some([("colour".to_string(), "green".to_string())].into());
    cm.metadata.managed_fields = None;
    cms.replace("settings", &PostParams::default(), &cm)
        .await
        .unwrap();
    wait_until("the new copy", WAIT, || copied(secrets.clone(), "green"))
        .await
        .unwrap();
    // The API server has the copy a moment before the reconcile that sent it counts it.
    wait_until("the apply counted", WAIT, || async {
        (seen.sent.load(Ordering::SeqCst) >= 3).then_some(())
    })
    .await
    .unwrap();
    assert_eq!(seen.sent.load(Ordering::SeqCst), 3);

    // Every reconcile published the same event: the API server has one.
    let events: Api<Event> = Api::namespaced(client.clone(), &ns);
    let uid = cm.meta().uid.clone();
    let copied_events = wait_until("the event", WAIT, || async {
        let list = events.list(&Default::default()).await.ok()?;
        let ours: Vec<Event> = list
            .items
            .into_iter()
            .filter(|e| e.reason.as_deref() == Some("Copied"))
            .filter(|e| e.regarding.as_ref().and_then(|r| r.uid.clone()) == uid)
            .collect();
        (!ours.is_empty()).then_some(ours)
    })
    .await
    .unwrap();
    assert!(seen.reconciles.load(Ordering::SeqCst) >= 4);
    assert_eq!(copied_events.len(), 1);
    assert_eq!(
        copied_events[0].reporting_controller.as_deref(),
        Some("example.com/toolkit")
    );
    let copy = secrets.get("settings-copy").await.unwrap();
    let managers: Vec<_> = copy
        .managed_fields()
        .iter()
        .filter_map(|m| m.manager.as_deref())
        .collect();
    assert!(managers.contains(&"toolkit-fields"), "{managers:?}");
    assert_eq!(
        copied_events[0].series, None,
        "a repeat was published: {copied_events:?}"
    );

    // The reconciles read the copy from the cache without its data, the rest kept.
    let cached = seen.cached.lock().unwrap().clone();
    assert!(!cached.is_empty(), "no reconcile found the copy cached");
    for (had_data, labels) in cached {
        assert!(
            !had_data,
            "the transform did not clear the cached copy's data"
        );
        assert_eq!(labels.get(OWNER).map(String::as_str), Some("settings"));
    }

    operator.stop().await;
}

/// Reconciles begun, by ConfigMap name.
type Attempts = Arc<Mutex<BTreeMap<String, usize>>>;

/// A reconcile that panics fails like any other, with the backoff, and the controller goes on:
/// each ConfigMap's first reconcile panics, its retry copies it, and a ConfigMap created after
/// the panic is copied too.
#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn a_panicking_reconcile_is_retried_and_the_controller_goes_on() {
    let env = TestEnv::connect().await.expect("a cluster to test against");
    let client = env.client();
    let ns = env.namespace("controller-panic").await.unwrap();
    let ns = ns.name().to_string();
    let attempts: Attempts = Arc::default();
    let metrics = Arc::new(Metrics::new());

    async fn reconcile(
        cm: Arc<ConfigMap>,
        ctx: Arc<Context<Attempts>>,
    ) -> Result<Action, kube::Error> {
        let attempt = {
            let mut attempts = ctx.data().lock().unwrap();
            let n = attempts.entry(cm.name_any()).or_default();
            *n += 1;
            *n
        };
        if attempt == 1 {
            panic!("first attempt at {}", cm.name_any());
        }
        ctx.apply(cm.as_ref(), &copy_of(&cm)).await?;
        Ok(ctx.next_sync(cm.as_ref()))
    }

    let data = attempts.clone();
    let namespace = ns.clone();
    let operator = Running::start(
        client.clone(),
        metrics.clone(),
        "toolkit-panic-test",
        move |runtime| {
            Controller::<ConfigMap>::new(client, &runtime)
                .named("panicky")
                .namespace(Some(namespace))
                .watch_config(watcher::Config::default().labels(PRIMARY))
                .owns::<Secret>(watcher::Config::default().labels(OWNER))
                .run(reconcile, data)
        },
    );

    let cms: Api<ConfigMap> = Api::namespaced(env.client(), &ns);
    let secrets: Api<Secret> = Api::namespaced(env.client(), &ns);
    for name in ["first", "second"] {
        let cm = ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                labels: Some([(PRIMARY.to_string(), String::new())].into()),
                ..Default::default()
            },
            data: Some([("colour".to_string(), "blue".to_string())].into()),
            ..Default::default()
        };
        cms.create(&PostParams::default(), &cm).await.unwrap();
        let copy = format!("{name}-copy");
        wait_until("the copy after the panic", WAIT, || async {
            secrets.get_opt(&copy).await.ok()?.map(|_| ())
        })
        .await
        .unwrap();
    }
    assert!(!operator.is_finished(), "the operator stopped");
    let text = metrics.encode();
    for line in [
        "controller_runtime_reconcile_panics_total{controller=\"panicky\"} 2",
        "controller_runtime_max_concurrent_reconciles{controller=\"panicky\"} 1",
    ] {
        assert!(text.contains(line), "{line} missing from\n{text}");
    }
    // The retry, and the reconcile its own copy's creation caused.
    assert!(attempts.lock().unwrap()["first"] >= 2);

    operator.stop().await;
}

const FINALIZER: &str = "toolkit-test/finalizer";

/// What the finalizer test's reconciles saw: for each pass that reached the reconcile, the
/// object's name, resourceVersion and whether it carried the finalizer; the cleanups' names.
#[derive(Default)]
struct Passes {
    reconciled: Mutex<Vec<(String, String, bool)>>,
    cleaned: Mutex<Vec<String>>,
}

/// A new object is reconciled in the pass that adds its finalizer, with the object the API
/// server returned (not in a later pass behind everything else queued); the add's own change
/// then reconciles it once more. Deleting it runs the cleanup, whose event goes out through
/// the publisher's queue, and the finalizer's removal lets the object go.
#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn a_new_object_is_reconciled_in_the_pass_that_adds_its_finalizer() {
    let env = TestEnv::connect().await.expect("a cluster to test against");
    let client = env.client();
    let ns = env.namespace("controller-finalizer").await.unwrap();
    let ns = ns.name().to_string();
    let passes: Arc<Passes> = Arc::default();

    async fn reconcile(
        cm: Arc<ConfigMap>,
        ctx: Arc<Context<Arc<Passes>>>,
    ) -> Result<Action, kube::Error> {
        let held = cm.finalizers().iter().any(|f| f == FINALIZER);
        let version = cm.resource_version().unwrap_or_default();
        ctx.data()
            .reconciled
            .lock()
            .unwrap()
            .push((cm.name_any(), version, held));
        Ok(Action::await_change())
    }

    async fn cleanup(
        cm: Arc<ConfigMap>,
        ctx: Arc<Context<Arc<Passes>>>,
    ) -> Result<Action, kube::Error> {
        ctx.data().cleaned.lock().unwrap().push(cm.name_any());
        ctx.publish(cm.as_ref(), EventType::Normal, "CleanedUp", "done")
            .await;
        Ok(Action::await_change())
    }

    let data = passes.clone();
    let namespace = ns.clone();
    let operator = Running::start(
        client.clone(),
        Arc::new(Metrics::new()),
        "toolkit-finalizer-test",
        move |runtime| {
            Controller::<ConfigMap>::new(client, &runtime)
                .named("finalizing")
                .namespace(Some(namespace))
                .watch_config(watcher::Config::default().labels(PRIMARY))
                .ignore_status_changes()
                .run_with_finalizer(FINALIZER, reconcile, cleanup, data)
        },
    );

    let cms: Api<ConfigMap> = Api::namespaced(env.client(), &ns);
    let cm = ConfigMap {
        metadata: ObjectMeta {
            name: Some("kept".into()),
            labels: Some([(PRIMARY.to_string(), String::new())].into()),
            // Someone else's finalizer stays.
            finalizers: Some(vec!["example.com/other".into()]),
            ..Default::default()
        },
        ..Default::default()
    };
    cms.create(&PostParams::default(), &cm).await.unwrap();
    let seen = wait_until("two reconciles", WAIT, || async {
        let seen = passes.reconciled.lock().unwrap().clone();
        (seen.len() >= 2).then_some(seen)
    })
    .await
    .unwrap();
    let live = cms.get("kept").await.unwrap();
    assert_eq!(
        live.finalizers(),
        ["example.com/other".to_string(), FINALIZER.to_string()]
    );
    let version = live.resource_version().unwrap();
    // Nothing but the add wrote the object: both passes saw the version it made, the first
    // as the API server returned it, the second from the watch.
    assert_eq!(
        seen[..2],
        [
            ("kept".to_string(), version.clone(), true),
            ("kept".to_string(), version, true)
        ],
        "{seen:?}"
    );

    cms.delete("kept", &Default::default()).await.unwrap();
    wait_until("the cleanup", WAIT, || async {
        let live = cms.get("kept").await.ok()?;
        (!live.finalizers().iter().any(|f| f == FINALIZER)).then_some(())
    })
    .await
    .unwrap();
    assert_eq!(*passes.cleaned.lock().unwrap(), ["kept"]);
    let events: Api<Event> = Api::namespaced(env.client(), &ns);
    wait_until("the cleanup's event", WAIT, || async {
        let list = events.list(&Default::default()).await.ok()?;
        list.items
            .iter()
            .any(|e| e.reason.as_deref() == Some("CleanedUp"))
            .then_some(())
    })
    .await
    .unwrap();
    // The other finalizer is its owner's to remove; then the object goes.
    cms.patch(
        "kept",
        &PatchParams::default(),
        &Patch::Merge(serde_json::json!({"metadata": {"finalizers": null}})),
    )
    .await
    .unwrap();
    wait_until("the object gone", WAIT, || async {
        cms.get_opt("kept").await.ok()?.is_none().then_some(())
    })
    .await
    .unwrap();

    operator.stop().await;
}
