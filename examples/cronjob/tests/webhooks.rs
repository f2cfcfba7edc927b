//! The CronJob webhooks called by the real API server: the handlers are served on loopback
//! with a throwaway CA, and the generated configurations (`config/webhook/manifests.yaml`)
//! are installed pointing at them, for this test's namespace only. A CronJob created without
//! its optional fields comes back defaulted; one with a schedule that does not parse is
//! refused with the validator's message.
//!
//! Needs the control plane: `cargo xtask test` provides one (plain `cargo test` skips it).

use std::path::Path;
use std::time::Duration;

use cronjob_example::api::v1::{ConcurrencyPolicy, CronJob, CronJobSpec};
use cronjob_example::webhooks;
use envtest::TestEnv;
use envtest::webhooks::WebhookConfigurations;
use kube::Client;
use kube::api::{Api, PostParams};
use operator_runtime::webhook::{Certificates, WebhookOptions, WebhookServer};
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(60);

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn the_api_server_defaults_and_validates_through_the_webhooks() {
    let env = TestEnv::connect().await.expect("a cluster to test against");
    let client = env.client();
    envtest::crds::install_dir(&client, &crate_dir().join("config/crd/bases"), WAIT)
        .await
        .unwrap();
    let ns = env.namespace("cronjob-webhooks").await.unwrap();
    let namespace = ns.name().to_string();

    let pki_dir = std::env::temp_dir().join(envtest::testing::unique_name("cronjob-pki"));
    let pki = envtest::certs::Pki::generate(&pki_dir).unwrap();
    let _ = std::fs::remove_dir_all(&pki_dir);
    let options = WebhookOptions {
        addr: ([127, 0, 0, 1], 0).into(),
        certificates: Certificates::pem(
            pki.serving.cert_pem.clone().into_bytes(),
            pki.serving.key_pem.clone().into_bytes(),
        ),
        ..Default::default()
    };
    let server = WebhookServer::bind(options, webhooks::webhooks())
        .await
        .unwrap();
    let base_url = format!("https://127.0.0.1:{}", server.local_addr().port());
    let stop = CancellationToken::new();
    let serving = tokio::spawn(server.run(stop.clone()));
    let installed = WebhookConfigurations::read(&crate_dir().join("config/webhook/manifests.yaml"))
        .unwrap()
        .served_at(&base_url, pki.ca.cert_pem.as_bytes())
        .only_in_namespace(&namespace);
    installed.apply(&client).await.unwrap();

    let outcome = tokio::spawn(exercise(client.clone(), namespace)).await;
    // Cluster-wide objects: removed whatever happened, before the server stops.
    installed.delete(&client).await.unwrap();
    stop.cancel();
    serving.await.unwrap();
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic.into_panic());
    }
}

async fn exercise(client: Client, namespace: String) {
    let api: Api<CronJob> = Api::namespaced(client, &namespace);
    let dry_run = PostParams {
        dry_run: true,
        ..PostParams::default()
    };
    let cronjob = |schedule: &str| {
        CronJob::new(
            "nightly",
            CronJobSpec {
                schedule: schedule.into(),
                ..CronJobSpec::default()
            },
        )
    };
    // New configurations take the API server a moment: until then nothing is defaulted.
    let defaulted = envtest::wait_until("the defaulting webhook", WAIT, || async {
        let created = api.create(&dry_run, &cronjob("0 3 * * *")).await.ok()?;
        created.spec.concurrency_policy.is_some().then_some(created)
    })
    .await
    .unwrap();
    assert_eq!(
        defaulted.spec.concurrency_policy,
        Some(ConcurrencyPolicy::Allow)
    );
    assert_eq!(defaulted.spec.suspend, Some(false));
    assert_eq!(defaulted.spec.successful_jobs_history_limit, Some(3));
    assert_eq!(defaulted.spec.failed_jobs_history_limit, Some(1));

    let refused = api
        .create(&dry_run, &cronjob("0 25 * * *"))
        .await
        .expect_err("a schedule with hour 25 is refused");
    let kube::Error::Api(status) = refused else {
        panic!("not the API server's refusal: {refused}");
    };
    assert!(
        status
            .message
            .contains("spec.schedule: schedule \"0 25 * * *\": hour \"25\": "),
        "{}",
        status.message
    );
}
