//! The schema is the Rust type's wire format: every value the API server admits, the Rust
//! type reads, and every value the Rust type writes, the API server admits.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;
use std::num::{NonZeroI64, NonZeroU32};
use std::sync::Arc;

/// Gauge holds one field of each Rust type with a wire format of its own.
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1", kind = "Gauge")]
pub struct Gauge {
    pub metadata: ObjectMeta,
    pub spec: GaugeSpec,
}

#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub struct GaugeSpec {
    /// Integers are bounded to what their type holds.
    pub tiny: i8,
    pub short: i16,
    pub normal: i32,
    pub long: i64,
    pub byte: u8,
    pub port: u16,
    pub count: u32,
    pub total: u64,
    pub index: usize,
    pub offset: isize,
    /// A marker narrows the type's bounds.
    #[validation(minimum = 1, maximum = 10)]
    pub level: u8,
    /// Non-zero integers leave zero out.
    pub replicas: NonZeroU32,
    pub delta: NonZeroI64,
    pub weight: std::num::NonZero<u16>,
    /// A char is one character.
    pub separator: char,
    /// An array has exactly its length.
    pub rgb: [u8; 3],
    /// serde_json writes bytes as a list of numbers.
    pub raw: Vec<u8>,
    /// An Option behind a pointer is optional all the same.
    pub boxed: Box<Option<String>>,
    pub shared: Arc<Option<i32>>,
    /// None in a list or a map is written as null.
    pub holes: Vec<Option<u16>>,
    pub sparse: BTreeMap<String, Option<String>>,
    /// A custom serialisation is described by its markers.
    #[serde(with = "as_decimal_string")]
    #[validation(type = "string", pattern = "^[0-9]+$")]
    pub serial: u64,
    /// A type converted through another one has that one's schema.
    pub listen: Listen,
    /// A remote type's mirror describes the field it serializes.
    #[serde(with = "WindowDef")]
    pub window: Window,
}

/// Listen is written and read as a string, like ":8080".
#[derive(Schema)]
#[serde(into = "String", try_from = "String")]
pub struct Listen {
    pub port: u16,
}

/// WindowDef mirrors a type of another crate.
#[derive(Schema)]
#[serde(remote = "Window", rename_all = "camelCase")]
pub struct WindowDef {
    pub start_hour: u8,
    pub length_hours: u8,
}

/// Timer holds std's Duration, which serde writes as seconds and nanoseconds.
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1", kind = "Timer")]
pub struct Timer {
    pub metadata: ObjectMeta,
    pub spec: TimerSpec,
}

#[derive(Schema)]
pub struct TimerSpec {
    pub interval: std::time::Duration,
    pub grace: Option<core::time::Duration>,
}
