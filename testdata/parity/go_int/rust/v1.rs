//! The go_int case: Go's platform-sized `int`, which controller-gen writes as a bare
//! integer; its Rust spelling is `isize`, the platform's word.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;

/// CounterSpec counts things with Go's int.
#[derive(Schema)]
pub struct CounterSpec {
    /// Replicas is a plain int.
    pub replicas: isize,

    /// Limit is an int with bounds.
    #[validation(minimum = 1, maximum = 100)]
    pub limit: Option<isize>,

    /// Steps are ints in a list.
    #[validation(items(minimum = 0))]
    pub steps: Option<Vec<isize>>,

    /// Quotas are ints by name.
    pub quotas: Option<BTreeMap<String, isize>>,

    /// Retries defaults to three.
    #[schema(default = 3)]
    pub retries: Option<isize>,

    /// Wide is an int64 beside them, which keeps its format.
    pub wide: Option<i64>,
}

/// CounterStatus reports counts.
#[derive(Schema)]
pub struct CounterStatus {
    /// Seen is how many were seen.
    pub seen: Option<isize>,
}

/// Counter exercises Go's int.
#[derive(CustomResource)]
#[resource(group = "goint.parity.example.com", version = "v1", kind = "Counter")]
#[subresource(status)]
pub struct Counter {
    pub metadata: ObjectMeta,
    pub spec: CounterSpec,
    pub status: Option<CounterStatus>,
}
