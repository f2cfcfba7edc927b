//! A complete kind: compiles, serialises with apiVersion/kind, and its crd() is the
//! generator's CRD for this file.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::object::{HasSpec, HasStatus};
use kube::core::Resource;
use operator_derive::{CustomResource, Schema, rbac};
use serde::{Deserialize, Serialize};

/// Cache is a test kind.
#[derive(CustomResource, Clone, Debug, PartialEq)]
#[resource(group = "test.example.com", version = "v1alpha1", shortnames = "ca")]
#[subresource(status)]
#[printcolumn(name = "Size", type = "integer", json_path = ".spec.size")]
pub struct Cache {
    pub metadata: ObjectMeta,
    pub spec: CacheSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<CacheStatus>,
}

#[derive(Schema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheSpec {
    /// Number of pods.
    #[validation(minimum = 0, maximum = 100)]
    pub size: i32,
    #[validation(items(min_length = 1))]
    #[serde(default)]
    pub zone_names: Vec<String>,
}

#[derive(Schema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CacheStatus {
    #[serde(default)]
    pub nodes: Vec<String>,
}

#[rbac(groups = "test.example.com", resources = "caches", verbs = "get;list;watch")]
async fn reconcile() {}

fn main() {
    let _ = reconcile();
    let mut cache = Cache::new("one", CacheSpec { size: 3, zone_names: vec![] });
    assert_eq!(Cache::API_VERSION, "test.example.com/v1alpha1");
    assert_eq!(Cache::PLURAL, "caches");
    assert_eq!(Cache::url_path(&(), Some("ns")), "/apis/test.example.com/v1alpha1/namespaces/ns/caches");
    assert_eq!(cache.spec().size, 3);
    assert!(cache.status().is_none());
    *cache.status_mut() = Some(CacheStatus { nodes: vec!["a".into()] });

    let json = serde_json::to_value(&cache).unwrap();
    assert_eq!(json["apiVersion"], "test.example.com/v1alpha1");
    assert_eq!(json["kind"], "Cache");
    assert_eq!(json["spec"]["zoneNames"], serde_json::json!([]));
    let back: Cache = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(back, cache);
    let mut wrong = json;
    wrong["kind"] = "Other".into();
    let err = serde_json::from_value::<Cache>(wrong).unwrap_err().to_string();
    assert!(err.contains("expected kind \"Cache\""), "{err}");

    let crd = Cache::crd();
    assert_eq!(crd.metadata.name.as_deref(), Some("caches.test.example.com"));
    let schema = serde_json::to_value(&crd.spec.versions[0].schema).unwrap();
    assert_eq!(schema["openAPIV3Schema"]["properties"]["spec"]["properties"]["size"]["maximum"], 100.0);
}
