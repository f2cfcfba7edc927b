//! What the floors and the runs measure, the rows of the tables.

use std::collections::BTreeMap;
use std::time::Duration;

use super::Mode;
use super::procfs::PlaneSpent;

/// What one operator did in one run.
#[derive(Debug, Clone, Default)]
pub(super) struct Row {
    pub(super) converged: Duration,
    pub(super) storm: Duration,
    pub(super) reconciles: u64,
    /// All requests, converge + steady window + storm, by method.
    pub(super) requests: BTreeMap<String, u64>,
    /// The same by method and resource, where the operator exports that (ours).
    pub(super) by_resource: BTreeMap<String, u64>,
    pub(super) steady_requests: u64,
    pub(super) steady_writes: u64,
    pub(super) peak_rss_kib: u64,
    pub(super) cpu_seconds: f64,
    /// Lines the operator logged at error (Go) or warn/error (ours) level.
    pub(super) problems: usize,
    /// The control plane's CPU while converging and in the storm (the local plane only).
    pub(super) plane_converge: Option<PlaneSpent>,
    pub(super) plane_storm: Option<PlaneSpent>,
}

/// The control plane alone: N Deployments created and resized directly.
#[derive(Debug, Clone, Default)]
pub(super) struct Floor {
    pub(super) converged: Duration,
    pub(super) storm: Duration,
    /// The control plane's CPU while converging and in the storm (the local plane only).
    pub(super) plane_converge: Option<PlaneSpent>,
    pub(super) plane_storm: Option<PlaneSpent>,
}

/// One row of the tables: a mode and N, the Go operator's run (with `--against`) and ours.
pub(super) struct TableRow {
    pub(super) mode: Mode,
    pub(super) count: usize,
    pub(super) go: Option<Row>,
    pub(super) ours: Row,
}

/// One measurement of everything: the floors of each count, then each mode's runs.
pub(super) struct Round {
    pub(super) rows: Vec<TableRow>,
    /// N Deployments, by N.
    pub(super) floors: BTreeMap<usize, Floor>,
    /// N Deployments and their Services, by N.
    pub(super) service_floors: BTreeMap<usize, Floor>,
    /// The bench doing an operator's writes itself ([`run_direct_floor`](super::floors::run_direct_floor)), by N.
    pub(super) direct_floors: BTreeMap<usize, Floor>,
}
