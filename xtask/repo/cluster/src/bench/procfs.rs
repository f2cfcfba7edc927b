//! What the benchmark reads from `/proc`: an operator's peak memory and CPU time, the local
//! control plane's CPU by component (and waiting until it is idle), the load average.

use std::collections::BTreeMap;
use std::process::Command;
use std::time::{Duration, Instant};

use operator_xtask_cluster::cluster;

/// Peak resident memory (VmHWM) in KiB, from `/proc/<pid>/status`.
pub(super) fn parse_vm_hwm_kib(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// utime + stime in clock ticks, from `/proc/<pid>/stat` (fields 14 and 15; the command name in
/// parentheses may hold spaces, so fields are counted after its closing parenthesis).
pub(super) fn parse_cpu_ticks(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After ")": state is field 3, so utime (14) and stime (15) are at 11 and 12.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

pub(super) fn clock_ticks_per_second() -> u64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok()?.trim().parse().ok())
        .unwrap_or(100)
}

/// The local control plane's processes (API server, etcd, controller-manager, scheduler,
/// kwok), whose CPU time the benchmark reads from /proc: what a run costs the cluster, which an
/// operator's own CPU and wall-clock times do not show. Only when the target is the local plane.
#[derive(Debug, Clone)]
pub(super) struct PlaneCpu {
    pids: Vec<(String, i32)>,
}

impl PlaneCpu {
    /// The local plane's processes, when `cluster` is the local plane and it runs here.
    pub(super) fn of(cluster: &cluster::Connected) -> Option<Self> {
        let state = envtest::plane::read_state(&cluster::state_dir()).ok()??;
        if cluster.kubeconfig.as_deref() != Some(state.kubeconfig.as_path()) {
            return None;
        }
        Self::of_state(&state)
    }

    /// The processes of the control plane `state` records.
    pub(super) fn of_state(state: &envtest::State) -> Option<Self> {
        let pids: Vec<(String, i32)> = state
            .components
            .iter()
            .map(|c| (c.name.clone(), c.pid))
            .collect();
        Self::sample_pids(&pids)?;
        Some(PlaneCpu { pids })
    }

    fn sample_pids(pids: &[(String, i32)]) -> Option<BTreeMap<String, u64>> {
        pids.iter()
            .map(|(name, pid)| {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
                Some((name.clone(), parse_cpu_ticks(&stat)?))
            })
            .collect()
    }

    /// CPU ticks so far, by component.
    pub(super) fn sample(&self) -> Option<BTreeMap<String, u64>> {
        Self::sample_pids(&self.pids)
    }
}

/// CPU seconds the control plane spent between two samples, in all and by component.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct PlaneSpent {
    pub(super) by_component: BTreeMap<String, f64>,
}

impl PlaneSpent {
    pub(super) fn between(
        earlier: Option<&BTreeMap<String, u64>>,
        later: Option<&BTreeMap<String, u64>>,
    ) -> Option<Self> {
        let (earlier, later) = (earlier?, later?);
        let tick = clock_ticks_per_second() as f64;
        Some(PlaneSpent {
            by_component: later
                .iter()
                .map(|(name, t)| {
                    let before = earlier.get(name).copied().unwrap_or(0);
                    (name.clone(), t.saturating_sub(before) as f64 / tick)
                })
                .collect(),
        })
    }

    pub(super) fn total(&self) -> f64 {
        self.by_component.values().sum()
    }

    /// "12.3 s: kube-apiserver 8.1, etcd 2.0, ...", largest first.
    pub(super) fn breakdown(&self) -> String {
        let mut parts: Vec<(&String, &f64)> = self.by_component.iter().collect();
        parts.sort_by(|a, b| b.1.total_cmp(a.1));
        let parts: Vec<String> = parts.iter().map(|(n, s)| format!("{n} {s:.1}")).collect();
        format!("{:.1} s: {}", self.total(), parts.join(", "))
    }

    pub(super) fn component(&self, name: &str) -> f64 {
        self.by_component.get(name).copied().unwrap_or(0.0)
    }
}

/// Prints what the control plane spent in each phase of a run, by component.
pub(super) fn report_plane(tag: &str, converge: &Option<PlaneSpent>, storm: &Option<PlaneSpent>) {
    for (phase, spent) in [("converge", converge), ("storm", storm)] {
        if let Some(spent) = spent {
            eprintln!("{tag} control-plane CPU, {phase}: {}", spent.breakdown());
        }
    }
}

/// The load average over 1, 5 and 15 minutes, from `/proc/loadavg`.
pub(super) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// The control plane is taken as settled when it spends less than this share of one core
/// (idle, the local plane spends about 0.03) ...
const SETTLED_CORES: f64 = 0.15;
/// ... over a window this long ...
const SETTLE_WINDOW: Duration = Duration::from_secs(2);
/// ... and a run starts anyway after this long.
const SETTLE_AT_MOST: Duration = Duration::from_secs(120);

/// Waits until the local control plane is idle (what the previous run left behind, garbage
/// collection and namespace finalization, is done), so that no run pays for another's.
/// Without the plane's processes (a remote cluster) there is nothing to read: returns at once.
pub(super) async fn settle(plane: Option<&PlaneCpu>, tag: &str) {
    let Some(plane) = plane else { return };
    let started = Instant::now();
    let mut before = plane.sample();
    loop {
        tokio::time::sleep(SETTLE_WINDOW).await;
        let now = plane.sample();
        let Some(spent) = PlaneSpent::between(before.as_ref(), now.as_ref()) else {
            return;
        };
        let cores = spent.total() / SETTLE_WINDOW.as_secs_f64();
        if cores < SETTLED_CORES {
            if started.elapsed() > SETTLE_WINDOW * 2 {
                eprintln!(
                    "{tag} control plane settled after {:.0} s",
                    started.elapsed().as_secs_f64()
                );
            }
            return;
        }
        if started.elapsed() >= SETTLE_AT_MOST {
            eprintln!(
                "{tag} control plane still busy ({cores:.2} cores) after {} s; going on",
                SETTLE_AT_MOST.as_secs()
            );
            return;
        }
        before = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_files_parse() {
        let status =
            "Name:\tmemcached-go\nVmPeak:\t 1000 kB\nVmHWM:\t   56320 kB\nVmRSS:\t 50000 kB\n";
        assert_eq!(parse_vm_hwm_kib(status), Some(56320));
        assert_eq!(parse_vm_hwm_kib("Name: x\n"), None);
        // The command name may hold spaces and parentheses.
        let stat = "4242 (my (odd) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 130 27 0 0 20 0 9 0 123 456 789";
        assert_eq!(parse_cpu_ticks(stat), Some(157));
        assert_eq!(parse_cpu_ticks("garbage"), None);
    }
}
