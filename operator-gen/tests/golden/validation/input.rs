//! Every value constraint, on fields, on items and on a type reused by two fields.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;
use k8s_openapi::ByteString;

/// Widget exercises the validation markers.
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1", kind = "Widget")]
pub struct Widget {
    pub metadata: ObjectMeta,
    pub spec: WidgetSpec,
}

/// A port number, checked wherever it is used.
#[derive(Schema)]
#[validation(minimum = 1, maximum = 65535)]
pub struct Port(pub i32);

/// WidgetSpec holds the constrained fields.
#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpec {
    /// Between 0 and 10, ends excluded.
    #[validation(minimum = 0, maximum = 10, exclusive_minimum, exclusive_maximum)]
    pub count: i64,
    /// A multiple of five.
    #[validation(multiple_of = 5)]
    pub step: u16,
    /// A DNS-ish name.
    #[validation(min_length = 1, max_length = 63, pattern = "^[a-z0-9-]+$")]
    pub name: String,
    /// One of the known modes.
    #[validation(enum = ["Fast", "Safe"])]
    pub mode: String,
    /// Tags, each non-empty, at most eight, no duplicates.
    #[validation(min_items = 1, max_items = 8, items(min_length = 1, pattern = "^[a-z]+$"))]
    #[schema(list_type = "set")]
    pub tags: Vec<String>,
    /// Labels with at most four entries.
    #[validation(max_properties = 4, min_properties = 1)]
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    /// An RFC 3339 date.
    #[validation(format = "date-time")]
    pub not_before: Option<String>,
    /// The main port.
    pub port: Port,
    /// The port doc wins over the type doc.
    #[validation(optional)]
    pub admin_port: Port,
    /// Required although it has a default.
    #[validation(required)]
    #[serde(default)]
    pub replicas: i32,
    /// Defaults to three.
    #[schema(default = 3, example = 5)]
    #[serde(default)]
    pub workers: i32,
    /// Defaults to a list.
    #[schema(default = ["a", "b"], title = "Zones", nullable)]
    #[serde(default)]
    pub zones: Vec<String>,
    #[schema(list_type = "set")]
    #[serde(default)]
    pub owners: Vec<String>,
    #[schema(map_type = "atomic")]
    #[serde(default)]
    pub settings: BTreeMap<String, i32>,
    /// Bytes become base64 strings.
    #[serde(default)]
    pub payload: ByteString,
}
