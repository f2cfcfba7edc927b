//! `cargo xtask run` against the local control plane serves the operator's webhooks: the
//! API server refuses a create that breaks a rule, through the handler this machine serves,
//! and Ctrl-C takes the configurations down with the operator.
//!
//! One test in its own binary: it runs the operator with the webhook server on the fixed
//! port 9443 and installs the configurations cluster-wide while it runs.
//!
//! Needs a running control plane: `cargo xtask test` provides one.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use envtest::TestEnv;
use envtest::webhooks::WebhookConfigurations;
use futures::FutureExt as _;
use k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration;
use kube::Client;
use kube::api::{Api, PostParams};
use memcached::api::v1alpha1::{Memcached, MemcachedSpec};

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

fn manifests() -> std::path::PathBuf {
    workspace().join("config/webhook/manifests.yaml")
}

/// `cargo xtask run` in its own process group (as a terminal runs it), its output in `log`.
fn xtask_run(log: &Path) -> Child {
    use std::os::unix::process::CommandExt as _;
    let out = std::fs::File::create(log).unwrap();
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    // What cargo set for this test is not for the commands it starts.
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy().into_owned();
        if key.starts_with("CARGO_") && key != "CARGO_HOME" && key != "CARGO_TARGET_DIR" {
            cmd.env_remove(key);
        }
    }
    cmd.current_dir(workspace())
        .args(["xtask", "run", "--"])
        .args(["--metrics-bind-address=0", "--health-probe-bind-address=0"])
        .env_remove("ENABLE_WEBHOOKS")
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .process_group(0)
        .spawn()
        .expect("starting cargo xtask run")
}

/// Ctrl-C as a terminal sends it: to the whole process group.
fn interrupt(child: &Child) {
    // `--` first: without it, kill may read the negative group id as an option and signal
    // its own group instead (this test's, and whatever runs it).
    let status = Command::new("kill")
        .args(["-s", "INT", "--", &format!("-{}", child.id())])
        .status()
        .unwrap();
    assert!(status.success());
}

fn wait_for_exit(child: &mut Child, within: Duration) -> Option<std::process::ExitStatus> {
    let started = Instant::now();
    while started.elapsed() < within {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    None
}

fn too_big(namespace: &str) -> Memcached {
    let mut mc = Memcached::new(
        "too-big",
        MemcachedSpec {
            size: 100_000,
            ..Default::default()
        },
    );
    mc.metadata.namespace = Some(namespace.into());
    mc
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn xtask_run_serves_the_webhooks_on_the_local_plane() {
    let env = TestEnv::connect().await.expect("a cluster to test against");
    let client = env.client();
    let ns = env.namespace("local-run").await.unwrap();
    let namespace = ns.name().to_string();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("xtask-run.log");
    // The operator binds its default ports on this machine, as the xtask's in-cluster tests'
    // manager does, which may run at the same time.
    let _ports = tokio::task::spawn_blocking(envtest::testing::OperatorPorts::hold)
        .await
        .unwrap()
        .expect("holding the operator's ports");
    let mut child = xtask_run(&log);
    let outcome = std::panic::AssertUnwindSafe(exercise(&client, &namespace, &mut child, &log))
        .catch_unwind()
        .await;
    if child.try_wait().unwrap().is_none() {
        interrupt(&child);
        if wait_for_exit(&mut child, Duration::from_secs(60)).is_none() {
            let _ = child.kill();
        }
    }
    // Whatever happened, no configuration may stay pointing at a server that is gone.
    WebhookConfigurations::read(&manifests())
        .unwrap()
        .delete(&client)
        .await
        .unwrap();
    if let Err(panic) = outcome {
        eprintln!(
            "cargo xtask run said:\n{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        std::panic::resume_unwind(panic);
    }
}

async fn exercise(client: &Client, namespace: &str, child: &mut Child, log: &Path) {
    let api: Api<Memcached> = Api::namespaced(client.clone(), namespace);
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    // The first run may build the operator: give it time.
    let started = Instant::now();
    let refused = loop {
        if let Some(status) = child.try_wait().unwrap() {
            panic!(
                "cargo xtask run ended ({status}) before serving:\n{}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
        }
        match api.create(&dry_run, &too_big(namespace)).await {
            Err(kube::Error::Api(status)) if status.message.contains("denied the request") => {
                break status.message;
            }
            _ if started.elapsed() > Duration::from_secs(900) => {
                panic!("the locally served validating webhook did not refuse within 15 minutes")
            }
            _ => tokio::time::sleep(Duration::from_millis(500)).await,
        }
    };
    assert!(
        refused.contains("admission webhook \"vmemcached-v1alpha1.kb.io\" denied the request: spec.size 100000 is more than this operator allows"),
        "{refused}"
    );
    let said = std::fs::read_to_string(log).unwrap();
    assert!(said.contains("webhooks on: served on port 9443"), "{said}");

    // Ctrl-C: the operator stops, and the configurations go with it.
    interrupt(child);
    let status = wait_for_exit(child, Duration::from_secs(60)).expect("the run to stop on Ctrl-C");
    let said = std::fs::read_to_string(log).unwrap();
    assert!(
        said.contains("webhook configurations removed"),
        "{status}\n{said}"
    );
    let validating: Api<ValidatingWebhookConfiguration> = Api::all(client.clone());
    let names: Vec<String> = validating
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|c| c.metadata.name)
        .collect();
    assert!(
        !names
            .iter()
            .any(|n| n == "validating-webhook-configuration"),
        "{names:?}"
    );
    // Without the webhook the API server admits what only the webhook refused (the schema
    // has no maximum).
    api.create(&dry_run, &too_big(namespace)).await.unwrap();
}
