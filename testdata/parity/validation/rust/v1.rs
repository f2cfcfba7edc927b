//! The validation case: every value constraint on fields, on list items and on named types,
//! CEL rules, immutability, one-of groups, defaults and external docs.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;

/// Port is a TCP port number; its bounds hold wherever the type is used.
#[derive(Schema)]
#[validation(minimum = 1, maximum = 65535)]
pub struct Port(pub i32);

/// Tier names a service level.
#[derive(Schema)]
pub enum Tier {
    Gold,
    Silver,
    Bronze,
}

/// Endpoint is where a gauge reads from.
#[derive(Schema)]
#[validation(cel(rule = "self.host != 'localhost'", message = "use a routable host"))]
#[schema(external_docs(url = "https://example.com/docs/endpoint", description = "How endpoints are read"))]
pub struct Endpoint {
    /// Host is a DNS name.
    #[validation(max_length = 253)]
    pub host: String,
    /// Port on the host.
    pub port: Option<Port>,
}

/// Window is a sampling window.
#[derive(Schema)]
pub struct Window {
    /// Seconds in the window.
    #[validation(minimum = 1)]
    pub seconds: i32,
    /// Mode of aggregation.
    pub mode: Option<String>,
}

/// GaugeSpec holds the constrained fields.
#[derive(Schema)]
#[serde(rename_all = "camelCase")]
#[validation(
    cel(rule = "self.low < self.high", message = "low must be below high", reason = "FieldValueForbidden", field_path = ".low"),
    exactly_one_of = ["byName", "byLabel"],
    at_most_one_of = ["paused", "suspended"],
    at_least_one_of = ["owner", "team"],
    min_properties = 3
)]
pub struct GaugeSpec {
    /// Low bound, exclusive.
    #[validation(minimum = -10, exclusive_minimum)]
    pub low: i64,

    /// High bound, exclusive.
    #[validation(maximum = 100, exclusive_maximum)]
    pub high: i64,

    /// Step is a multiple of five; the bound is inclusive, said explicitly.
    #[validation(multiple_of = 5, maximum = 1000, exclusive_maximum = false)]
    pub step: Option<i32>,

    /// Name is a DNS label.
    #[validation(min_length = 1, max_length = 63, pattern = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", immutable)]
    pub name: String,

    /// Mode is one of the known modes.
    #[validation(enum = "Fast;Safe", immutable)]
    pub mode: Option<String>,

    /// Tier of service.
    pub tier: Option<Tier>,

    /// Tags are lower-case words, at most eight, no duplicates.
    #[schema(list_type = "set")]
    #[validation(
        min_items = 1,
        max_items = 8,
        items(min_length = 1, pattern = "^[a-z]+$", cel(rule = "self != 'none'", message = "none is reserved"))
    )]
    pub tags: Option<Vec<String>>,

    /// Weights are small numbers.
    #[validation(items(minimum = 0, maximum = 10, enum = [0, 5, 10]))]
    pub weights: Option<Vec<i32>>,

    /// Labels has one to four entries.
    #[validation(min_properties = 1, max_properties = 4, immutable)]
    pub labels: Option<BTreeMap<String, String>>,

    /// NotBefore is an RFC 3339 time.
    #[validation(format = "date-time")]
    pub not_before: Option<String>,

    /// Count is written as a string on the wire.
    #[validation(type = "string", pattern = "^[0-9]+$")]
    pub count: Option<String>,

    /// Port is the main port.
    pub port: Port,

    /// AdminPort documents itself; the field doc wins over the type doc.
    #[validation(maximum = 1024)]
    pub admin_port: Option<Port>,

    /// Replicas is required although it is a pointer.
    #[validation(required)]
    pub replicas: Option<i32>,

    /// Workers defaults to three.
    #[schema(default = 3, example = 5)]
    pub workers: Option<i32>,

    /// Zones defaults to two zones.
    #[schema(default = ["a", "b"], title = "Zones", nullable)]
    pub zones: Option<Vec<String>>,

    /// Window defaults to a whole object.
    #[schema(default = json!({"seconds": 60, "mode": "avg"}))]
    pub window: Option<Window>,

    /// Source is read from.
    #[schema(external_docs(url = "https://example.com/docs/source"))]
    #[validation(immutable)]
    pub source: Option<Endpoint>,

    /// Limit may only grow.
    #[validation(
        cel(rule = "!oldSelf.hasValue() || self >= oldSelf.value()", optional_old_self, message = "limit may only grow"),
        cel(rule = "self <= 1000", message_expression = "'limit ' + (self > 5000 ? 'far ' : '') + 'above 1000'")
    )]
    pub limit: Option<i32>,

    /// ByName selects by name.
    pub by_name: Option<String>,
    /// ByLabel selects by label.
    pub by_label: Option<String>,
    /// Paused stops sampling.
    pub paused: Option<bool>,
    /// Suspended stops everything.
    pub suspended: Option<bool>,
    /// Owner is a person.
    pub owner: Option<String>,
    /// Team is a group of people.
    pub team: Option<String>,
}

/// GaugeStatus is what the controller saw.
#[derive(Schema)]
pub struct GaugeStatus {
    /// Value last read.
    pub value: Option<i64>,
}

/// Gauge exercises the validation markers.
#[derive(CustomResource)]
#[resource(group = "validation.parity.example.com", version = "v1", kind = "Gauge")]
#[subresource(status)]
pub struct Gauge {
    pub metadata: ObjectMeta,
    pub spec: GaugeSpec,
    pub status: Option<GaugeStatus>,
}
