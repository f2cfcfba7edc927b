//! Reaching a started control plane: its admin kubeconfig and client, the readiness check,
//! the kwok nodes it simulates, and log tails for error messages.

use std::path::Path;
use std::time::Duration;

use k8s_openapi::api::core::v1::Node;
use kube::api::{Api, ObjectMeta, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

use crate::Error;
use crate::certs::CertPair;

/// Annotation by which kwok recognises the nodes it simulates.
pub(super) const KWOK_NODE_ANNOTATION: (&str, &str) = ("kwok.x-k8s.io/node", "fake");

pub(super) fn write_kubeconfig(
    path: &Path,
    server: &str,
    ca: &Path,
    user: &CertPair,
) -> Result<(), Error> {
    let yaml = format!(
        "apiVersion: v1\n\
         kind: Config\n\
         clusters:\n\
         - name: envtest\n  \
           cluster:\n    \
             server: {server}\n    \
             certificate-authority: {ca}\n\
         users:\n\
         - name: envtest\n  \
           user:\n    \
             client-certificate: {cert}\n    \
             client-key: {key}\n\
         contexts:\n\
         - name: envtest\n  \
           context:\n    \
             cluster: envtest\n    \
             user: envtest\n    \
             namespace: default\n\
         current-context: envtest\n",
        ca = ca.display(),
        cert = user.cert_path.display(),
        key = user.key_path.display(),
    );
    std::fs::write(path, yaml).map_err(|e| Error::io(path, e))
}

/// A client from a kubeconfig file, ignoring the environment.
pub async fn admin_client(kubeconfig: &Path) -> Result<Client, Error> {
    Ok(Client::try_from(admin_config(kubeconfig).await?)?)
}

/// The client configuration of a kubeconfig file, ignoring the environment.
pub async fn admin_config(kubeconfig: &Path) -> Result<Config, Error> {
    let kc = Kubeconfig::read_from(kubeconfig)
        .map_err(|e| Error::Start(format!("{}: {e}", kubeconfig.display())))?;
    let mut config = Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default())
        .await
        .map_err(|e| Error::Start(format!("{}: {e}", kubeconfig.display())))?;
    config.read_timeout = Some(Duration::from_secs(30));
    Ok(config)
}

pub(super) async fn readyz(client: &Client) -> Result<(), Error> {
    let request = http::Request::get("/readyz")
        .body(Vec::new())
        .expect("static request");
    let body = client.request_text(request).await?;
    if body.trim() == "ok" {
        Ok(())
    } else {
        Err(Error::Start(format!("/readyz said {body:?}")))
    }
}

pub(super) async fn create_nodes(client: &Client, count: usize) -> Result<(), Error> {
    let nodes: Api<Node> = Api::all(client.clone());
    for i in 0..count {
        let name = format!("envtest-node-{i}");
        let node = Node {
            metadata: ObjectMeta {
                name: Some(name.clone()),
                annotations: Some(
                    [(
                        KWOK_NODE_ANNOTATION.0.to_string(),
                        KWOK_NODE_ANNOTATION.1.to_string(),
                    )]
                    .into(),
                ),
                labels: Some(
                    [
                        ("kubernetes.io/hostname", name.as_str()),
                        ("kubernetes.io/os", "linux"),
                        ("kubernetes.io/arch", std::env::consts::ARCH),
                        ("type", "kwok"),
                    ]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                ),
                ..Default::default()
            },
            ..Default::default()
        };
        match nodes.create(&PostParams::default(), &node).await {
            Ok(_) => {}
            Err(kube::Error::Api(e)) if e.code == 409 => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

pub(super) fn node_ready(node: &Node) -> bool {
    node.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}

/// The last `lines` lines of a log file, for error messages.
pub fn log_tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
