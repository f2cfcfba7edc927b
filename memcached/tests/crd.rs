//! The CRD compiled into `Memcached::crd()` is the one `cargo xtask manifests` writes.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::core::Resource;
use memcached::api::v1alpha1::{Memcached, MemcachedSpec};

const CRD_YAML: &str = include_str!("../../config/crd/bases/cache.example.com_memcacheds.yaml");

#[test]
fn crd_matches_the_generated_yaml() {
    let from_file: CustomResourceDefinition =
        serde_yaml::from_str(CRD_YAML).expect("the committed CRD parses");
    assert_eq!(Memcached::crd(), from_file);
}

#[test]
fn crd_renders_to_the_committed_bytes() {
    assert_eq!(operator_gen::output::crd_yaml(&Memcached::crd()), CRD_YAML);
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
    let m = Memcached::new("sample", MemcachedSpec { size: 3 });
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
