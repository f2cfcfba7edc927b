//! CRDs read from a cluster (`operator-gen types --from-cluster NAME`): the same documents
//! `read_crds` gives for a file, fetched with the kubeconfig as kubectl resolves it.

use std::collections::BTreeSet;
use std::path::PathBuf;

use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, ListParams};
use serde_json::Value;

use super::{CrdDocument, SERVER_METADATA, TypesError, crds_in};

/// Which cluster to read from. Both `None`: kubectl's order (`KUBECONFIG`, then
/// `~/.kube/config` with its current context, then the in-cluster service account).
#[derive(Debug, Clone, Default)]
pub struct ClusterSource {
    /// A kubeconfig file to use instead (`--kubeconfig`).
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use instead of its current one (`--context`).
    pub context: Option<String>,
}

/// Annotations the tools that install a CRD add to it; they are not part of the kind and
/// are left out of the types.
const INSTALLERS_ANNOTATIONS: &[&str] = &[
    "kubectl.kubernetes.io/last-applied-configuration",
    "meta.helm.sh/release-name",
    "meta.helm.sh/release-namespace",
];

/// The CustomResourceDefinitions `names` from the cluster, in the order asked, each as
/// `crd/<name>` (document 0) with what the API server adds (status, managed fields, the
/// installers' annotations) left out.
///
/// A name is a CRD's name (`certificates.cert-manager.io`) or, as for kubectl, a kind's
/// plural, singular, kind or short name, alone or followed by `.group`; one that names no
/// CRD, or several, is an error that lists the candidates. Runs on a thread of its own, so
/// it may be called from inside an async runtime too.
pub fn read_crds_from_cluster(
    names: &[String],
    source: &ClusterSource,
) -> Result<Vec<CrdDocument>, TypesError> {
    let names = names.to_vec();
    let source = source.clone();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| TypesError::Cluster(format!("cannot start a tokio runtime: {e}")))?;
        runtime.block_on(fetch(&names, &source))
    })
    .join()
    .unwrap_or_else(|_| {
        Err(TypesError::Cluster(
            "reading from the cluster panicked".into(),
        ))
    })
}

async fn fetch(names: &[String], source: &ClusterSource) -> Result<Vec<CrdDocument>, TypesError> {
    let config = config(source).await?;
    let server = config.cluster_url.to_string();
    let client = kube::Client::try_from(config).map_err(|e| {
        TypesError::Cluster(format!(
            "cannot make a client for the cluster at {server}: {e}"
        ))
    })?;
    let gvk = GroupVersionKind::gvk("apiextensions.k8s.io", "v1", "CustomResourceDefinition");
    let api: Api<DynamicObject> = Api::all_with(
        client,
        &ApiResource::from_gvk_with_plural(&gvk, "customresourcedefinitions"),
    );
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    let mut listed: Option<Vec<Value>> = None;
    for asked in names {
        let found = match api.get_opt(asked).await {
            Ok(Some(object)) => to_value(&object),
            Ok(None) => {
                if listed.is_none() {
                    let list = api.list(&ListParams::default()).await.map_err(|e| {
                        request_failed(&server, "list customresourcedefinitions", e)
                    })?;
                    listed = Some(list.items.iter().map(to_value).collect());
                }
                resolve(asked, listed.as_deref().unwrap_or_default(), &server)?
            }
            Err(e) => return Err(request_failed(&server, &format!("get crd/{asked}"), e)),
        };
        let value = cleaned(found);
        let name = value["metadata"]["name"]
            .as_str()
            .unwrap_or(asked)
            .to_owned();
        if !seen.insert(name.clone()) {
            continue;
        }
        let file = PathBuf::from(format!("crd/{name}"));
        let text = serde_json::to_string(&value).expect("JSON serializes");
        for mut doc in crds_in(&text, &file)? {
            doc.document = 0;
            out.push(doc);
        }
    }
    Ok(out)
}

/// The client configuration, resolved as kubectl resolves it.
async fn config(source: &ClusterSource) -> Result<kube::Config, TypesError> {
    let options = kube::config::KubeConfigOptions {
        context: source.context.clone(),
        ..Default::default()
    };
    let failed = TypesError::Cluster;
    match (&source.kubeconfig, &source.context) {
        (Some(path), _) => {
            let kubeconfig = kube::config::Kubeconfig::read_from(path)
                .map_err(|e| failed(format!("cannot read the kubeconfig {}: {e}", path.display())))?;
            kube::Config::from_custom_kubeconfig(kubeconfig, &options)
                .await
                .map_err(|e| failed(format!("the kubeconfig {}: {e}", path.display())))
        }
        (None, Some(context)) => kube::Config::from_kubeconfig(&options)
            .await
            .map_err(|e| failed(format!("the kubeconfig's context {context:?}: {e}"))),
        (None, None) => kube::Config::infer().await.map_err(|e| {
            failed(format!(
                "no cluster to read from: {e} (set KUBECONFIG, pass --kubeconfig, or read the CRD from a file with --from-crd)"
            ))
        }),
    }
}

fn request_failed(server: &str, what: &str, error: kube::Error) -> TypesError {
    let hint = match &error {
        kube::Error::Api(status) if status.code == 403 => {
            " (the kubeconfig's user may not read customresourcedefinitions: it needs get and list on them, cluster-wide)"
        }
        kube::Error::Api(_) => "",
        _ => " (is the cluster up, and is it the one the kubeconfig names?)",
    };
    TypesError::Cluster(format!("{what} at {server} failed: {error}{hint}"))
}

/// The object as JSON, with its apiVersion and kind (which the items of a list lack).
fn to_value(object: &DynamicObject) -> Value {
    let mut value = serde_json::to_value(object).expect("an object from the API server serializes");
    if let Value::Object(map) = &mut value {
        map.insert("apiVersion".into(), "apiextensions.k8s.io/v1".into());
        map.insert("kind".into(), "CustomResourceDefinition".into());
    }
    value
}

/// The one CRD `asked` names among `crds`, as kubectl would find it.
fn resolve(asked: &str, crds: &[Value], server: &str) -> Result<Value, TypesError> {
    let (head, group) = asked.split_once('.').unwrap_or((asked, ""));
    let head = head.to_ascii_lowercase();
    let matches: Vec<&Value> = crds
        .iter()
        .filter(|crd| {
            let spec = &crd["spec"];
            let names = &spec["names"];
            let text = |v: &Value| v.as_str().map(str::to_ascii_lowercase);
            let short = names["shortNames"].as_array().into_iter().flatten();
            (group.is_empty() || spec["group"].as_str() == Some(group))
                && [&names["plural"], &names["singular"], &names["kind"]]
                    .into_iter()
                    .chain(short)
                    .any(|n| text(n).as_deref() == Some(head.as_str()))
        })
        .collect();
    let name_of = |crd: &Value| crd["metadata"]["name"].as_str().unwrap_or("").to_owned();
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => {
            let mut near: Vec<(f64, String)> = crds
                .iter()
                .map(name_of)
                .map(|name| (strsim::jaro_winkler(asked, &name), name))
                .filter(|(score, _)| *score > 0.8)
                .collect();
            near.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            let hint = match near.first() {
                Some((_, name)) => format!("; did you mean {name}?"),
                None => format!(
                    " (it has {} CustomResourceDefinitions; `kubectl get crd` lists them)",
                    crds.len()
                ),
            };
            Err(TypesError::Cluster(format!(
                "the cluster at {server} has no CustomResourceDefinition named {asked}{hint}"
            )))
        }
        several => {
            let names: Vec<String> = several.iter().map(|c| name_of(c)).collect();
            Err(TypesError::Cluster(format!(
                "{asked} is ambiguous in the cluster at {server}: it names {}; give the CRD's full name",
                names.join(", ")
            )))
        }
    }
}

/// `crd` as written by its authors: what the API server keeps of its own (status, uid,
/// managed fields, ...) and the installers' annotations left out.
fn cleaned(mut crd: Value) -> Value {
    if let Value::Object(map) = &mut crd {
        map.remove("status");
        if let Some(Value::Object(meta)) = map.get_mut("metadata") {
            meta.retain(|key, _| !SERVER_METADATA.contains(&key.as_str()));
            if let Some(Value::Object(annotations)) = meta.get_mut("annotations") {
                annotations.retain(|key, _| !INSTALLERS_ANNOTATIONS.contains(&key.as_str()));
                if annotations.is_empty() {
                    meta.remove("annotations");
                }
            }
        }
    }
    crd
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd(name: &str, group: &str, kind: &str, short: &[&str]) -> Value {
        let plural = name.split('.').next().unwrap();
        json!({
            "metadata": {"name": name},
            "spec": {"group": group, "names": {
                "plural": plural, "singular": kind.to_lowercase(), "kind": kind, "shortNames": short
            }}
        })
    }

    #[test]
    fn names_resolve_as_kubectl_resolves_them() {
        let crds = [
            crd(
                "certificates.cert-manager.io",
                "cert-manager.io",
                "Certificate",
                &["cert", "certs"],
            ),
            crd("issuers.cert-manager.io", "cert-manager.io", "Issuer", &[]),
            crd(
                "certificates.example.com",
                "example.com",
                "Certificate",
                &[],
            ),
        ];
        let name = |asked: &str| {
            resolve(asked, &crds, "https://k")
                .map(|c| c["metadata"]["name"].as_str().unwrap().to_owned())
        };
        assert_eq!(name("issuer").unwrap(), "issuers.cert-manager.io");
        assert_eq!(name("Issuer").unwrap(), "issuers.cert-manager.io");
        assert_eq!(name("cert").unwrap(), "certificates.cert-manager.io");
        assert_eq!(
            name("certificate.example.com").unwrap(),
            "certificates.example.com"
        );
        let ambiguous = name("certificates").unwrap_err().to_string();
        assert!(
            ambiguous.contains("ambiguous")
                && ambiguous.contains("certificates.cert-manager.io, certificates.example.com"),
            "{ambiguous}"
        );
        let near = name("isuers.cert-manager.io").unwrap_err().to_string();
        assert!(
            near.ends_with("did you mean issuers.cert-manager.io?"),
            "{near}"
        );
        let none = name("widgets").unwrap_err().to_string();
        assert!(none.contains("has 3 CustomResourceDefinitions"), "{none}");
    }

    #[test]
    fn what_the_server_and_installers_add_is_left_out() {
        let got = cleaned(json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {
                "name": "a.b", "uid": "u", "resourceVersion": "7", "generation": 2,
                "managedFields": [{}], "creationTimestamp": "2026-01-01T00:00:00Z",
                "labels": {"app": "x"},
                "annotations": {
                    "kubectl.kubernetes.io/last-applied-configuration": "{}",
                    "meta.helm.sh/release-name": "r",
                    "cert-manager.io/inject-ca-from": "ns/c"
                }
            },
            "spec": {"group": "b"},
            "status": {"acceptedNames": {}}
        }));
        assert_eq!(
            got,
            json!({
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": {
                    "name": "a.b", "labels": {"app": "x"},
                    "annotations": {"cert-manager.io/inject-ca-from": "ns/c"}
                },
                "spec": {"group": "b"}
            })
        );
        let bare = cleaned(json!({"metadata": {"name": "a.b", "annotations": {
            "meta.helm.sh/release-namespace": "n"
        }}}));
        assert_eq!(bare, json!({"metadata": {"name": "a.b"}}));
    }
}
