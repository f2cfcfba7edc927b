//! What cluster tests share: a client for the cluster of the current kubeconfig (the local control
//! plane under `cargo xtask test`), a fresh namespace per test that is deleted when the test ends
//! (passing or not), and waiting for a condition with a deadline and a message that says what did
//! not happen.

use std::future::Future;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
use kube::api::{Api, DeleteParams, ObjectMeta, PostParams};
use kube::{Client, Config};

use crate::Error;

/// Label put on every namespace a test creates, with the test's prefix as value.
pub const TEST_NAMESPACE_LABEL: &str = "envtest.operator-rs.dev/test";

/// A connection to the test cluster.
#[derive(Clone)]
pub struct TestEnv {
    config: Config,
    client: Client,
}

impl std::fmt::Debug for TestEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestEnv")
            .field("cluster_url", &self.config.cluster_url)
            .finish()
    }
}

impl TestEnv {
    /// Connects to the cluster of the current kubeconfig (kubectl's order: `KUBECONFIG`,
    /// `~/.kube/config`, in-cluster) and checks that it answers.
    pub async fn connect() -> Result<Self, Error> {
        let config = Config::infer().await.map_err(|e| {
            Error::NotRunning(format!(
                "no cluster configured ({e}); cluster tests run under `cargo xtask test`, or start \
                 one with `cargo xtask envtest up` and export the KUBECONFIG it prints"
            ))
        })?;
        let client = Client::try_from(config.clone())?;
        client.apiserver_version().await.map_err(|e| {
            Error::NotRunning(format!(
                "the cluster at {} does not answer ({e}); start the local control plane with \
                 `cargo xtask envtest up`",
                config.cluster_url
            ))
        })?;
        Ok(Self { config, client })
    }

    pub fn client(&self) -> Client {
        self.client.clone()
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Creates a namespace named `<prefix>-<unique suffix>` and waits until its default service
    /// account exists (Pods cannot be created before). It is deleted when the handle drops.
    pub async fn namespace(&self, prefix: &str) -> Result<TestNamespace, Error> {
        let name = unique_name(prefix);
        let api: Api<Namespace> = Api::all(self.client.clone());
        let ns = Namespace {
            metadata: ObjectMeta {
                name: Some(name.clone()),
                labels: Some([(TEST_NAMESPACE_LABEL.to_string(), prefix.to_string())].into()),
                ..Default::default()
            },
            ..Default::default()
        };
        api.create(&PostParams::default(), &ns).await?;
        let handle = TestNamespace {
            name: name.clone(),
            config: self.config.clone(),
        };
        let sas: Api<ServiceAccount> = Api::namespaced(self.client.clone(), &name);
        wait_until(
            &format!("the default service account of namespace {name}"),
            Duration::from_secs(30),
            || {
                let sas = sas.clone();
                async move { sas.get_opt("default").await.ok().flatten() }
            },
        )
        .await?;
        Ok(handle)
    }
}

/// A namespace owned by one test. Dropping it deletes the namespace (and so everything in it),
/// also when the test panics.
#[derive(Debug)]
pub struct TestNamespace {
    pub name: String,
    config: Config,
}

impl TestNamespace {
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for TestNamespace {
    fn drop(&mut self) {
        // The test's runtime may be shutting down; use a runtime and client of our own, on a thread
        // of our own, so the delete is sent either way.
        let name = self.name.clone();
        let config = self.config.clone();
        let deleted = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .ok()?;
            runtime.block_on(async move {
                let client = Client::try_from(config).ok()?;
                let api: Api<Namespace> = Api::all(client);
                api.delete(&name, &DeleteParams::background()).await.ok()
            })
        })
        .join();
        if !matches!(deleted, Ok(Some(_))) {
            eprintln!("envtest: could not delete test namespace {}", self.name);
        }
    }
}

/// Calls `probe` every 200 ms until it returns `Some`, or fails after `timeout` naming `what`.
pub async fn wait_until<T, F, Fut>(what: &str, timeout: Duration, mut probe: F) -> Result<T, Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let started = Instant::now();
    loop {
        if let Some(value) = probe().await {
            return Ok(value);
        }
        if started.elapsed() >= timeout {
            return Err(Error::Timeout(format!(
                "waited {}s for {what}",
                timeout.as_secs_f32()
            )));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// `<prefix>-<suffix>`, unique across processes and calls, a valid DNS label.
pub fn unique_name(prefix: &str) -> String {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    let seq = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mixed = (u64::from(std::process::id()) << 32 | u64::from(nanos))
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(u64::from(seq));
    let prefix: String = prefix
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .take(40)
        .collect();
    format!("{}-{:08x}", prefix.trim_matches('-'), mixed as u32 ^ seq)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_names_are_dns_labels_and_differ() {
        let a = unique_name("Deployment_GC test");
        let b = unique_name("Deployment_GC test");
        assert_ne!(a, b);
        assert!(a.starts_with("deployment-gc-test-"), "{a}");
        assert!(a.len() <= 63);
        assert!(
            a.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        );
    }
}
