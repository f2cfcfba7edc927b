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

    /// The cluster of `config` (an admin's), such as a control plane a test started for
    /// itself ([`crate::plane::ControlPlane::config`]).
    pub fn from_config(config: Config) -> Result<Self, Error> {
        let client = Client::try_from(config.clone())?;
        Ok(Self { config, client })
    }

    pub fn client(&self) -> Client {
        self.client.clone()
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// A client configuration that authenticates as the service account `name` of
    /// `namespace` with a token the API server issues for it (TokenRequest), as a pod of that
    /// account would: its requests are authorized by its own bindings, and the local control
    /// plane's audit log ([`crate::audit`]) records them under its name. The account is created
    /// when it does not exist.
    pub async fn service_account_config(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<Config, Error> {
        use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
        let sas: Api<ServiceAccount> = Api::namespaced(self.client.clone(), namespace);
        if sas.get_opt(name).await?.is_none() {
            let sa = ServiceAccount {
                metadata: ObjectMeta {
                    name: Some(name.to_string()),
                    ..Default::default()
                },
                ..Default::default()
            };
            match sas.create(&PostParams::default(), &sa).await {
                Ok(_) => {}
                Err(kube::Error::Api(e)) if e.code == 409 => {}
                Err(e) => return Err(e.into()),
            }
        }
        let request = TokenRequest {
            spec: Some(TokenRequestSpec {
                expiration_seconds: Some(3600),
                ..Default::default()
            }),
            ..Default::default()
        };
        let issued: TokenRequest = sas
            .create_subresource("token", name, &PostParams::default(), &request)
            .await?;
        let token = issued
            .status
            .map(|s| s.token)
            .ok_or_else(|| Error::Build(format!("no token issued for {namespace}/{name}")))?;
        let mut config = self.config.clone();
        config.auth_info = serde_json::from_value(serde_json::json!({ "token": token }))
            .map_err(|e| Error::Build(e.to_string()))?;
        Ok(config)
    }

    /// A client configuration for the operator as the cluster would run it: the service
    /// account `account` of `namespace`, bound to the roles of `role_yaml` (a generated
    /// `config/rbac/role.yaml`), with a token of its own ([`Self::service_account_config`]).
    /// Tests run side by side, so the ClusterRole is renamed `<namespace>-<name>`; Roles go
    /// into `namespace`. The cluster-wide objects are deleted when the returned guard drops,
    /// the namespaced ones with the namespace. What the account asks is then in the local
    /// plane's audit log under its own name, for `cargo xtask test`'s RBAC report.
    pub async fn operator_config(
        &self,
        namespace: &str,
        account: &str,
        role_yaml: &str,
    ) -> Result<(Config, Bound), Error> {
        use k8s_openapi::api::rbac::v1::{
            ClusterRole, ClusterRoleBinding, Role, RoleBinding, RoleRef, Subject,
        };
        use kube::api::{Patch, PatchParams};
        use serde::Deserialize as _;
        let apply = PatchParams::apply("envtest").force();
        let subject = Subject {
            kind: "ServiceAccount".into(),
            name: account.into(),
            namespace: Some(namespace.into()),
            ..Default::default()
        };
        let role_ref = |kind: &str, name: &str| RoleRef {
            api_group: Some("rbac.authorization.k8s.io".into()),
            kind: kind.into(),
            name: name.into(),
        };
        let meta = |name: &str, ns: Option<&str>| ObjectMeta {
            name: Some(name.into()),
            namespace: ns.map(str::to_string),
            ..Default::default()
        };
        let mut bound = Bound {
            cluster_roles: Vec::new(),
            config: self.config.clone(),
        };
        for doc in serde_yaml::Deserializer::from_str(role_yaml) {
            let value = serde_yaml::Value::deserialize(doc)
                .map_err(|e| Error::Build(format!("role.yaml: {e}")))?;
            let bad = |e: serde_yaml::Error| Error::Build(format!("role.yaml: {e}"));
            match value.get("kind").and_then(|k| k.as_str()) {
                Some("ClusterRole") => {
                    let mut role: ClusterRole = serde_yaml::from_value(value).map_err(bad)?;
                    let name = format!(
                        "{namespace}-{}",
                        role.metadata.name.as_deref().unwrap_or("manager-role")
                    );
                    role.metadata = meta(&name, None);
                    Api::<ClusterRole>::all(self.client.clone())
                        .patch(&name, &apply, &Patch::Apply(&role))
                        .await?;
                    bound.cluster_roles.push(name.clone());
                    let binding = ClusterRoleBinding {
                        metadata: meta(&name, None),
                        role_ref: role_ref("ClusterRole", &name),
                        subjects: Some(vec![subject.clone()]),
                    };
                    Api::<ClusterRoleBinding>::all(self.client.clone())
                        .patch(&name, &apply, &Patch::Apply(&binding))
                        .await?;
                }
                Some("Role") => {
                    let mut role: Role = serde_yaml::from_value(value).map_err(bad)?;
                    let name = role.metadata.name.clone().unwrap_or_else(|| "role".into());
                    role.metadata = meta(&name, Some(namespace));
                    Api::<Role>::namespaced(self.client.clone(), namespace)
                        .patch(&name, &apply, &Patch::Apply(&role))
                        .await?;
                    let binding = RoleBinding {
                        metadata: meta(&name, Some(namespace)),
                        role_ref: role_ref("Role", &name),
                        subjects: Some(vec![subject.clone()]),
                    };
                    Api::<RoleBinding>::namespaced(self.client.clone(), namespace)
                        .patch(&name, &apply, &Patch::Apply(&binding))
                        .await?;
                }
                _ => {}
            }
        }
        let config = self.service_account_config(namespace, account).await?;
        Ok((config, bound))
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
        let deleted = on_own_runtime(self.config.clone(), move |client| async move {
            let api: Api<Namespace> = Api::all(client);
            api.delete(&name, &DeleteParams::background()).await.ok()
        });
        if deleted.is_none() {
            eprintln!("envtest: could not delete test namespace {}", self.name);
        }
    }
}

/// The cluster-wide objects [`TestEnv::operator_config`] made (each ClusterRole and its
/// binding share a name); dropping it deletes them, also when the test panics.
#[derive(Debug)]
pub struct Bound {
    pub cluster_roles: Vec<String>,
    config: Config,
}

impl Drop for Bound {
    fn drop(&mut self) {
        use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
        if self.cluster_roles.is_empty() {
            return;
        }
        let names = std::mem::take(&mut self.cluster_roles);
        // As for namespaces: the test's runtime may be shutting down.
        on_own_runtime(self.config.clone(), move |client| async move {
            for name in &names {
                let _ = Api::<ClusterRoleBinding>::all(client.clone())
                    .delete(name, &DeleteParams::default())
                    .await;
                let _ = Api::<ClusterRole>::all(client.clone())
                    .delete(name, &DeleteParams::default())
                    .await;
            }
            Some(())
        });
    }
}

/// Runs `work` with a client of its own, on a runtime and thread of its own: for cleanup in
/// `Drop`, which may run while the test's runtime shuts down. `None` when it could not run.
fn on_own_runtime<T, F, Fut>(config: Config, work: F) -> Option<T>
where
    T: Send + 'static,
    F: FnOnce(Client) -> Fut + Send + 'static,
    Fut: Future<Output = Option<T>>,
{
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .ok()?;
        runtime.block_on(async move { work(Client::try_from(config).ok()?).await })
    })
    .join()
    .ok()
    .flatten()
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

/// The ports an operator listens on by default (controller-runtime's): the webhook server's
/// 9443, secure metrics' 8443 and the health probes' 8081.
pub const OPERATOR_PORTS: [u16; 3] = [9443, 8443, 8081];

/// Held while a test runs an operator on [`OPERATOR_PORTS`] on this machine (`cargo xtask
/// run`, a manager run as in the cluster): another test that would bind them waits for the
/// hold to drop, whichever process it runs in (`cargo xtask test` runs the cluster tests of
/// several packages at once). A lock on a file in the system's temporary directory, released
/// when dropped or when the process ends.
#[derive(Debug)]
pub struct OperatorPorts {
    _lock: std::fs::File,
}

impl OperatorPorts {
    /// Waits until no other test holds the ports (saying so on stderr), then holds them.
    pub fn hold() -> Result<Self, Error> {
        let path = std::env::temp_dir().join("operator-rs-operator-ports.lock");
        let file = std::fs::File::create(&path).map_err(|e| Error::io(&path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                eprintln!(
                    "waiting for another test running an operator on ports {OPERATOR_PORTS:?} \
                     (it holds {})",
                    path.display()
                );
                file.lock().map_err(|e| Error::io(&path, e))?;
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(Error::io(&path, e)),
        }
        Ok(Self { _lock: file })
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

    /// A second hold waits for the first to drop.
    #[test]
    fn the_operator_ports_are_held_by_one_at_a_time() {
        let first = OperatorPorts::hold().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let second = std::thread::spawn(move || {
            let hold = OperatorPorts::hold().unwrap();
            tx.send(()).unwrap();
            hold
        });
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
        drop(first);
        rx.recv_timeout(Duration::from_secs(10)).unwrap();
        drop(second.join().unwrap());
    }

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
