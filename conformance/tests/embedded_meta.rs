//! An `ObjectMeta` below a kind's root survives the API server: a spec field of the API's
//! own holding one (a service-account template whose annotations carry an IAM role), a
//! `PodTemplateSpec` and a volume's ephemeral claim template are created and read back
//! unchanged with operator-gen's default (`embedded-object-meta = "full"`); under
//! controller-gen's default shape (`object`) the same object loses them, which is what the
//! default is for.
//!
//! It needs the control plane, so it is `#[ignore]`d for plain `cargo test`; `cargo xtask
//! test` runs it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, DynamicObject, PostParams};
use kube::discovery::ApiResource;
use operator_gen::EmbeddedObjectMeta;
use serde_json::{Value, json};

const API: &str = r#"
use k8s_openapi::api::core::v1::{PodTemplateSpec, Volume};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// Tenant is a kind with metadata below its root.
#[derive(CustomResource)]
#[resource(group = "GROUP", version = "v1", kind = "Tenant", namespaced)]
pub struct Tenant {
    pub metadata: ObjectMeta,
    pub spec: TenantSpec,
}

/// TenantSpec holds templates.
#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub struct TenantSpec {
    pub service_account_template: Option<ServiceAccountTemplate>,
    pub template: Option<PodTemplateSpec>,
    pub scratch: Option<Volume>,
}

/// ServiceAccountTemplate is what the operator makes service accounts from.
#[derive(Schema)]
pub struct ServiceAccountTemplate {
    pub metadata: ObjectMeta,
}
"#;

fn crd(group: &str, meta: EmbeddedObjectMeta) -> CustomResourceDefinition {
    let root = Path::new("/embedded/src");
    let generated = operator_gen::generate_from_texts(
        root,
        vec![(
            PathBuf::from("/embedded/src/lib.rs"),
            API.replace("GROUP", group),
        )],
        &operator_gen::Options {
            embedded_object_meta: meta,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("operator-gen refused the kind:\n{e}"));
    serde_json::from_value(operator_gen::output::to_json(&generated.crds[0])).unwrap()
}

fn spec() -> Value {
    let labels = json!({
        "labels": {"app": "web", "example.com/tier": "front"},
        "annotations": {"eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/tenant"}
    });
    json!({
        "serviceAccountTemplate": {"metadata": {
            "name": "tenant",
            "generateName": "tenant-",
            "labels": {"app": "web"},
            "annotations": {"eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/tenant"},
            "finalizers": ["example.com/cleanup"]
        }},
        "template": {"metadata": labels, "spec": {"containers": [{"name": "web", "image": "nginx"}]}},
        "scratch": {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {
            "metadata": labels,
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
        }}}
    })
}

/// Installs the kind's CRD under `meta`, creates a Tenant with `spec()`, and returns its
/// spec as the API server reads it back.
async fn round_trip(client: &kube::Client, ns: &str, meta: EmbeddedObjectMeta) -> Value {
    let group = format!("{}.embedded.example.com", meta.name());
    let crd = crd(&group, meta);
    envtest::crds::install(client, std::slice::from_ref(&crd), Duration::from_secs(60))
        .await
        .unwrap();
    let resource = ApiResource {
        group: group.clone(),
        version: "v1".into(),
        api_version: format!("{group}/v1"),
        kind: "Tenant".into(),
        plural: "tenants".into(),
    };
    let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), ns, &resource);
    let object: DynamicObject = serde_json::from_value(json!({
        "apiVersion": format!("{group}/v1"),
        "kind": "Tenant",
        "metadata": {"name": "tenant"},
        "spec": spec(),
    }))
    .unwrap();
    // An Established CRD's endpoint can take a moment to be served.
    let mut attempts = 0;
    loop {
        match api.create(&PostParams::default(), &object).await {
            Ok(_) => break,
            Err(kube::Error::Api(status)) if status.code == 404 && attempts < 100 => {
                attempts += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("{}: the Tenant was not created: {e}", meta.name()),
        }
    }
    let read = api.get("tenant").await.unwrap();
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let _ = crds
        .delete(&format!("tenants.{group}"), &DeleteParams::default())
        .await;
    read.data["spec"].clone()
}

#[tokio::test]
#[ignore = "needs the local control plane; run by cargo xtask test"]
async fn metadata_below_the_root_is_stored_as_written() {
    let env = envtest::TestEnv::connect().await.unwrap();
    let client = env.client();
    let ns = env.namespace("embedded-meta").await.unwrap();

    let stored = round_trip(&client, ns.name(), EmbeddedObjectMeta::Full).await;
    assert_eq!(stored, spec(), "the default shape lost part of the spec");

    // controller-gen's shape keeps name, namespace, labels, annotations and finalizers.
    let stored = round_trip(&client, ns.name(), EmbeddedObjectMeta::GenerateEmbedded).await;
    let mut expected = spec();
    expected["serviceAccountTemplate"]["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("generateName");
    assert_eq!(stored, expected);

    // controller-gen's default: the API server prunes every embedded metadata to `{}`.
    let stored = round_trip(&client, ns.name(), EmbeddedObjectMeta::Object).await;
    assert_eq!(stored["serviceAccountTemplate"]["metadata"], json!({}));
    assert_eq!(stored["template"]["metadata"], json!({}));
    assert_eq!(
        stored["scratch"]["ephemeral"]["volumeClaimTemplate"]["metadata"],
        json!({})
    );
}
