//! `cache.example.com/v1alpha1`: the Memcached kind of the kubebuilder and operator-sdk
//! tutorials. `cargo xtask manifests` turns these types into
//! `config/crd/bases/cache.example.com_memcacheds.yaml`.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use operator_derive::{CustomResource, Schema};
use serde::{Deserialize, Serialize};

/// Memcached is the Schema for the memcacheds API.
#[derive(CustomResource, Clone, Debug, PartialEq)]
#[resource(
    group = "cache.example.com",
    version = "v1alpha1",
    kind = "Memcached",
    namespaced,
    shortnames = "mc;memc",
    categories = "all"
)]
#[subresource(status)]
#[printcolumn(
    name = "Size",
    type = "integer",
    json_path = ".spec.size",
    description = "Desired number of pods"
)]
#[printcolumn(
    name = "Available",
    type = "string",
    json_path = ".status.conditions[?(@.type==\"Available\")].status"
)]
#[printcolumn(name = "Age", type = "date", json_path = ".metadata.creationTimestamp")]
pub struct Memcached {
    pub metadata: ObjectMeta,
    pub spec: MemcachedSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<MemcachedStatus>,
}

/// MemcachedSpec defines the desired state of Memcached.
#[derive(Schema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemcachedSpec {
    /// Size is the number of memcached pods the operator keeps running.
    /// Scaling to zero keeps the Deployment but runs no pods.
    #[validation(minimum = 0)]
    pub size: i32,
    /// Image is the memcached container image. Left out, the operator's
    /// defaulting webhook sets the image the operator is configured with.
    #[validation(min_length = 1)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
}

/// MemcachedStatus defines the observed state of Memcached.
#[derive(Schema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemcachedStatus {
    /// Nodes are the names of the memcached pods, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<String>,

    /// Conditions tell how the Memcached is doing. Known types are
    /// Available, Progressing and Degraded.
    #[schema(list_type = "map", list_map_keys = "type")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}
