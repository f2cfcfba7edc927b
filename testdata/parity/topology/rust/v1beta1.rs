//! The topology case: list, map and struct topology, schemaless and embedded fields,
//! int-or-string, preserve-unknown-fields, integer widths, byte strings and the Kubernetes
//! types from k8s-openapi.

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, MicroTime, ObjectMeta, Time};
use k8s_openapi::apimachinery::pkg::runtime::RawExtension;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use k8s_openapi::ByteString;
use std::collections::BTreeMap;

/// Route sends traffic to a backend.
#[derive(Schema)]
pub struct Route {
    /// Name identifies the route in the list.
    pub name: String,
    /// Namespace of the backend.
    pub namespace: String,
    /// Weight of the route.
    pub weight: Option<i32>,
}

/// Limits is replaced as a whole by server-side apply.
#[derive(Schema)]
#[schema(struct_type = "atomic")]
pub struct Limits {
    /// CPU limit.
    #[serde(rename = "cpu")]
    pub cpu: Option<Quantity>,
    /// Memory limit.
    pub memory: Option<Quantity>,
}

/// MeshSpec holds topology and type-mapping fields.
#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub struct MeshSpec {
    /// Routes are keyed by name and namespace.
    #[schema(list_type = "map", list_map_keys = ["name", "namespace"])]
    pub routes: Option<Vec<Route>>,

    /// Hosts is a set.
    #[schema(list_type = "set")]
    pub hosts: Option<Vec<String>>,

    /// Args are replaced as a whole.
    #[schema(list_type = "atomic")]
    pub args: Option<Vec<String>>,

    /// Selector is replaced as a whole.
    #[schema(map_type = "atomic")]
    pub selector: Option<BTreeMap<String, String>>,

    /// Annotations merge key by key.
    #[schema(map_type = "granular")]
    pub annotations: Option<BTreeMap<String, String>>,

    /// Limits of each member.
    pub limits: Option<Limits>,

    /// Config is kept as written.
    #[schema(schemaless, preserve_unknown_fields)]
    pub config: Option<serde_json::Value>,

    /// Template is a whole Kubernetes object.
    #[schema(embedded_resource, preserve_unknown_fields)]
    pub template: Option<RawExtension>,

    /// Templates are whole Kubernetes objects.
    #[validation(items(embedded_resource, preserve_unknown_fields))]
    pub templates: Option<Vec<RawExtension>>,

    /// Surges are numbers or percentages.
    #[validation(items(int_or_string, pattern = "^[0-9]+%?$"))]
    pub surges: Option<Vec<IntOrString>>,

    /// Extra keeps unknown fields.
    #[schema(preserve_unknown_fields)]
    #[validation(type = "object")]
    pub extra: Option<BTreeMap<String, String>>,

    /// Port is a number or a named port.
    pub port: Option<IntOrString>,

    /// MaxSurge is written as int-or-string explicitly.
    #[schema(int_or_string)]
    #[validation(pattern = "^[0-9]+%?$")]
    pub max_surge: Option<IntOrString>,

    /// Memory is a resource quantity.
    pub memory: Option<Quantity>,

    /// StartedAt is a time.
    pub started_at: Option<Time>,

    /// Timeout is a duration.
    pub timeout: Option<Duration>,

    /// Payload is base64 on the wire.
    pub payload: Option<ByteString>,

    /// Small is an 8-bit integer.
    pub small: Option<i8>,
    /// Medium is a 16-bit integer.
    pub medium: Option<i16>,
    /// Count is a 32-bit integer.
    pub count: Option<i32>,
    /// Total is a 64-bit integer.
    pub total: Option<i64>,
    /// Unsigned is an unsigned 32-bit integer.
    pub unsigned: Option<u32>,
    /// Big is an unsigned 64-bit integer.
    pub big: Option<u64>,
    /// Enabled is a flag.
    pub enabled: Option<bool>,

    /// Matrix is a list of lists.
    pub matrix: Option<Vec<Vec<i32>>>,
    /// Groups maps names to lists.
    pub groups: Option<BTreeMap<String, Vec<String>>>,
    /// Nested maps names to maps.
    pub nested: Option<BTreeMap<String, BTreeMap<String, i64>>>,
}

/// A duration written as a Go duration string, such as "1m30s" (metav1.Duration).
pub type Duration = String;

/// MeshStatus is what the controller saw.
#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub struct MeshStatus {
    /// Conditions of the mesh.
    #[schema(list_type = "map", list_map_keys = ["type"])]
    pub conditions: Option<Vec<Condition>>,
    /// ObservedAt is a precise time.
    pub observed_at: Option<MicroTime>,
}

/// Mesh exercises list, map and struct topology and the Kubernetes types.
#[derive(CustomResource)]
#[resource(group = "topology.parity.example.com", version = "v1beta1", kind = "Mesh")]
#[subresource(status)]
pub struct Mesh {
    pub metadata: ObjectMeta,
    pub spec: Option<MeshSpec>,
    pub status: Option<MeshStatus>,
}
