//! JSON Schema's junctors (`oneOf`, `anyOf`, `allOf`, `not`) as markers, on a type, a field
//! and list items, and a root whose `metadata` is required: what CRDs written by other
//! generators carry (Istio's, Kyverno's, Gateway API's), read back by `operator-gen types`.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// Route takes exactly one destination.
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1", kind = "Route")]
pub struct Route {
    #[validation(required)]
    pub metadata: ObjectMeta,
    pub spec: RouteSpec,
}

/// RouteSpec names one destination: a host or a service, never both, and not a port alone.
#[derive(Schema)]
#[validation(one_of = json!([{"required": ["host"]}, {"required": ["service"]}]))]
#[validation(not = json!({"required": ["port"], "not": {"anyOf": [{"required": ["host"]}, {"required": ["service"]}]}}))]
pub struct RouteSpec {
    pub host: Option<String>,
    pub service: Option<String>,
    pub port: Option<i32>,
    /// An IP address of either family.
    #[validation(any_of = json!([{"format": "ipv4"}, {"format": "ipv6"}]))]
    pub address: Option<String>,
    /// Each header names itself and matches one way.
    #[validation(items(all_of = json!([{"required": ["name"]}, {"minProperties": 2}])))]
    pub headers: Vec<Header>,
}

/// A header match.
#[derive(Schema)]
pub struct Header {
    pub name: Option<String>,
    pub exact: Option<String>,
    pub regex: Option<String>,
}
