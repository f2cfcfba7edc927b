//! The CRD compiled into `Memcached::crd()` is the one `cargo xtask manifests` writes.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::core::Resource;
use memcached::api::v1alpha1::{Memcached, MemcachedSpec, MemcachedStatus};
use schemars::JsonSchema;

const CRD_YAML: &str = include_str!("../../config/crd/bases/cache.example.com_memcacheds.yaml");

#[test]
fn crd_matches_the_generated_yaml() {
    let from_file: CustomResourceDefinition =
        serde_yaml::from_str(CRD_YAML).expect("the committed CRD parses");
    assert_eq!(Memcached::crd(), from_file);
}

/// The k8s-openapi object `crd()` returns, turned back into operator-gen's own CRD type,
/// renders to the committed bytes: the two types carry the same fields.
#[test]
fn crd_renders_to_the_committed_bytes() {
    let ours: operator_gen::api::apiextensions::v1::CustomResourceDefinition =
        serde_json::from_value(serde_json::to_value(Memcached::crd()).unwrap())
            .expect("a k8s-openapi CRD reads as operator-gen's");
    assert_eq!(operator_gen::output::crd_yaml(&ours), CRD_YAML);
}

#[test]
fn constants_and_resource_impl_agree_with_the_crd() {
    let crd = Memcached::crd();
    assert_eq!(crd.spec.group, Memcached::GROUP);
    assert_eq!(crd.spec.names.kind, Memcached::KIND);
    assert_eq!(crd.spec.names.plural, Memcached::PLURAL);
    assert_eq!(crd.spec.versions[0].name, Memcached::VERSION);
    assert_eq!(
        Memcached::url_path(&(), Some("demo")),
        "/apis/cache.example.com/v1alpha1/namespaces/demo/memcacheds"
    );
}

#[test]
fn kube_custom_resource_ext_is_implemented_from_the_same_crd() {
    use kube::CustomResourceExt;
    let crd = <Memcached as CustomResourceExt>::crd();
    assert_eq!(crd, Memcached::crd());
    assert_eq!(
        <Memcached as CustomResourceExt>::crd_name(),
        crd.metadata.name.as_deref().unwrap()
    );
    assert_eq!(
        Memcached::shortnames(),
        crd.spec.names.short_names.as_deref().unwrap()
    );
    let ar = Memcached::api_resource();
    assert_eq!(
        (
            ar.group.as_str(),
            ar.version.as_str(),
            ar.kind.as_str(),
            ar.plural.as_str()
        ),
        ("cache.example.com", "v1alpha1", "Memcached", "memcacheds")
    );
}

#[test]
fn objects_serialise_with_api_version_and_kind() {
    let m = Memcached::new(
        "sample",
        MemcachedSpec {
            size: 3,
            ..Default::default()
        },
    );
    let json = serde_json::to_value(&m).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "apiVersion": "cache.example.com/v1alpha1",
            "kind": "Memcached",
            "metadata": {"name": "sample"},
            "spec": {"size": 3}
        })
    );
    let sample: Memcached = serde_yaml::from_str(include_str!(
        "../../config/samples/cache_v1alpha1_memcached.yaml"
    ))
    .unwrap();
    assert_eq!(sample.spec.size, 3);
    assert_eq!(sample.metadata.name.as_deref(), Some("memcached-sample"));
}

/// The kind and its types implement `schemars::JsonSchema` with the schemas the CRD
/// carries: the kind's is the version's `openAPIV3Schema`; spec's and status's are the
/// CRD's properties but for the description, which a field's doc comment sets in the CRD
/// and the type's in its own schema. A struct deriving schemars' `JsonSchema` embeds them
/// as they are.
#[test]
fn json_schema_is_the_schema_the_crd_carries() {
    let crd = operator_gen::output::to_json(&Memcached::crd());
    let root = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    let mut generator = schemars::SchemaGenerator::default();
    assert_eq!(
        <Memcached as JsonSchema>::json_schema(&mut generator).as_value(),
        root
    );
    assert_eq!(<Memcached as JsonSchema>::schema_name(), "Memcached");
    assert_eq!(
        <MemcachedSpec as JsonSchema>::schema_id(),
        "memcached::api::v1alpha1::MemcachedSpec"
    );

    let without_description = |v: &serde_json::Value| {
        let mut v = v.clone();
        v.as_object_mut().unwrap().remove("description");
        v
    };
    let spec = <MemcachedSpec as JsonSchema>::json_schema(&mut generator);
    let status = <MemcachedStatus as JsonSchema>::json_schema(&mut generator);
    assert_eq!(
        without_description(spec.as_value()),
        without_description(&root["properties"]["spec"])
    );
    assert_eq!(
        without_description(status.as_value()),
        without_description(&root["properties"]["status"])
    );
    assert_eq!(
        spec.get("description").unwrap(),
        "MemcachedSpec defines the desired state of Memcached."
    );

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Embedding {
        spec: MemcachedSpec,
        memcached: Option<Memcached>,
    }
    let embedding = schemars::schema_for!(Embedding);
    let props = &embedding.as_value()["properties"];
    assert_eq!(props["spec"], *spec.as_value(), "{embedding:?}");
    assert!(
        embedding.as_value().get("$defs").is_none(),
        "inlined, no $refs: {embedding:?}"
    );
    // schemars makes an inlined Option<T> field T's schema with null allowed.
    let mut optional = props["memcached"].clone();
    assert_eq!(optional["type"], serde_json::json!(["object", "null"]));
    optional["type"] = "object".into();
    assert_eq!(optional, *root);
}
