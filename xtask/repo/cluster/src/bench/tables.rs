//! The Markdown tables the benchmark ends with: the runs side by side, their overhead above
//! each floor, the target, the control plane's CPU, ours' requests by resource, and the
//! medians over the rounds.

use std::collections::BTreeMap;
use std::time::Duration;

use super::Against;
use super::metrics::total;
use super::procfs::PlaneSpent;
use super::results::{Floor, Round, Row, TableRow};
use super::stats::{median_range, overhead, overhead_ratio};

pub(super) fn print_round(round: &Round, against: Option<Against>) {
    let rows = &round.rows;
    println!();
    print!("{}", table(rows));
    println!();
    println!("Above the floor (the control plane alone converging N such Deployments):");
    println!();
    print!("{}", overhead_table(rows, &round.floors, &round.floors));
    println!();
    println!(
        "Above the floor of each operator's own objects ({}):",
        match against {
            Some(Against::GoSameWork) => "N Deployments and N Services for both",
            Some(Against::Go) => "Go: N Deployments; ours: N Deployments and N Services",
            None => "N Deployments and N Services",
        }
    );
    println!();
    print!(
        "{}",
        overhead_table(rows, own_floors(round, against), &round.service_floors)
    );
    println!();
    println!(
        "Above the same work without an operator (the bench itself creating each Memcached, its \
         finalizer, Deployment and Service, resizing them, and writing each status once when \
         it changes: what no runtime can save):"
    );
    println!();
    print!(
        "{}",
        overhead_table(rows, &round.direct_floors, &round.direct_floors)
    );
    let target = target_table(round);
    if !target.is_empty() {
        println!();
        println!(
            "What the target asks (ours' overhead above the Deployments floor at most half of \
             Go's): the time ours had to stay within, beside ours' and the floors under ours' \
             own work, converge / storm:"
        );
        println!();
        print!("{target}");
    }
    let cpu = plane_table(rows, &round.floors);
    if !cpu.is_empty() {
        println!();
        println!(
            "Control-plane CPU seconds (API server, etcd, controller-manager, scheduler, kwok), \
             converge / storm, and what each operator added above the floor:"
        );
        println!();
        print!("{cpu}");
    }
    let breakdown = resource_table(rows);
    if !breakdown.is_empty() {
        println!();
        println!("Where our operator's requests went (converge, steady window and storm):");
        println!();
        print!("{breakdown}");
    }
}

/// The floors each operator is measured above in the own-objects table: ours' (and the
/// same-work Go operator's) Deployments with Services; the tutorial's Deployments alone.
fn own_floors(round: &Round, against: Option<Against>) -> &BTreeMap<usize, Floor> {
    if against == Some(Against::GoSameWork) {
        &round.service_floors
    } else {
        &round.floors
    }
}

/// Over the rounds, for each mode and N: ours' overhead as a multiple of Go's (above the
/// Deployments floor and above each one's own objects, converge and storm), each a median
/// with its range over the rounds that have a ratio ([`overhead_ratio`]), and the runs' times.
pub(super) fn median_table(rounds: &[Round], against: Option<Against>) -> String {
    let mut out = String::from(
        "| mode | N | ours / Go converge | ours / Go storm | own objects: ours / Go converge | own objects: ours / Go storm | same work, no operator: ours / Go converge | same work, no operator: ours / Go storm | converge Go / ours | storm Go / ours |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let Some(first) = rounds.first() else {
        return out;
    };
    let x = |v: f64| format!("{v:.2}x");
    let s = |v: f64| format!("{v:.1} s");
    for (i, row) in first.rows.iter().enumerate() {
        let (mut c, mut st, mut own_c, mut own_s) = (vec![], vec![], vec![], vec![]);
        let (mut direct_c, mut direct_s) = (vec![], vec![]);
        let (mut go_c, mut go_s, mut ours_c, mut ours_s) = (vec![], vec![], vec![], vec![]);
        for round in rounds {
            let Some(r) = round.rows.get(i) else { continue };
            ours_c.push(r.ours.converged.as_secs_f64());
            ours_s.push(r.ours.storm.as_secs_f64());
            let Some(go) = &r.go else { continue };
            go_c.push(go.converged.as_secs_f64());
            go_s.push(go.storm.as_secs_f64());
            if let Some(floor) = round.floors.get(&r.count) {
                let (oc, os) = overhead(&r.ours, floor);
                let (gc, gs) = overhead(go, floor);
                c.extend(overhead_ratio(oc, gc));
                st.extend(overhead_ratio(os, gs));
            }
            if let (Some(go_floor), Some(ours_floor)) = (
                own_floors(round, against).get(&r.count),
                round.service_floors.get(&r.count),
            ) {
                let (oc, os) = overhead(&r.ours, ours_floor);
                let (gc, gs) = overhead(go, go_floor);
                own_c.extend(overhead_ratio(oc, gc));
                own_s.extend(overhead_ratio(os, gs));
            }
            if let Some(floor) = round.direct_floors.get(&r.count) {
                let (oc, os) = overhead(&r.ours, floor);
                let (gc, gs) = overhead(go, floor);
                direct_c.extend(overhead_ratio(oc, gc));
                direct_s.extend(overhead_ratio(os, gs));
            }
        }
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} / {} | {} / {} |\n",
            row.mode.label(),
            thousands(row.count as u64),
            median_range(c, x),
            median_range(st, x),
            median_range(own_c, x),
            median_range(own_s, x),
            median_range(direct_c, x),
            median_range(direct_s, x),
            median_range(go_c, s),
            median_range(ours_c, s),
            median_range(go_s, s),
            median_range(ours_s, s),
        ));
    }
    out
}

const HEADER: &str = "| mode | N | converge Go / ours | scale storm Go / ours | reconciles Go / ours | API requests Go / ours | requests by method, Go; ours | steady-state requests / writes Go; ours | peak RSS Go / ours | CPU s Go / ours | errors logged Go / ours |\n|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|\n";

fn table(rows: &[TableRow]) -> String {
    let mut out = String::from(HEADER);
    for row in rows {
        out.push_str(&row.render());
        out.push('\n');
    }
    out
}

impl TableRow {
    pub(super) fn render(&self) -> String {
        let pair = |f: &dyn Fn(&Row) -> String| -> String {
            match &self.go {
                Some(go) => format!("{} / {}", f(go), f(&self.ours)),
                None => format!("– / {}", f(&self.ours)),
            }
        };
        let pair_semi = |f: &dyn Fn(&Row) -> String| -> String {
            match &self.go {
                Some(go) => format!("{}; {}", f(go), f(&self.ours)),
                None => format!("–; {}", f(&self.ours)),
            }
        };
        format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            self.mode.label(),
            thousands(self.count as u64),
            pair(&|r| format!("{:.1} s", r.converged.as_secs_f64())),
            pair(&|r| format!("{:.1} s", r.storm.as_secs_f64())),
            pair(&|r| thousands(r.reconciles)),
            pair(&|r| thousands(total(&r.requests))),
            pair_semi(&|r| by_method(&r.requests)),
            pair_semi(&|r| format!(
                "{} / {}",
                thousands(r.steady_requests),
                thousands(r.steady_writes)
            )),
            pair(&|r| format!("{:.0} MiB", r.peak_rss_kib as f64 / 1024.0)),
            pair(&|r| format!("{:.1}", r.cpu_seconds)),
            pair(&|r| thousands(r.problems as u64)),
        )
    }
}

/// Ours' requests by method and resource, a column per row of the main table, requests per
/// Memcached in parentheses.
fn resource_table(rows: &[TableRow]) -> String {
    let keys: std::collections::BTreeSet<&String> = rows
        .iter()
        .flat_map(|r| r.ours.by_resource.keys())
        .collect();
    if keys.is_empty() {
        return String::new();
    }
    let mut out = String::from("| request |");
    for row in rows {
        out.push_str(&format!(
            " {} N = {} |",
            row.mode.label(),
            thousands(row.count as u64)
        ));
    }
    out.push_str("\n|---|");
    out.push_str(&"---:|".repeat(rows.len()));
    out.push('\n');
    for key in keys {
        out.push_str(&format!("| {key} |"));
        for row in rows {
            let n = row.ours.by_resource.get(key).copied().unwrap_or(0);
            out.push_str(&format!(
                " {} ({:.2}) |",
                thousands(n),
                n as f64 / row.count.max(1) as f64
            ));
        }
        out.push('\n');
    }
    out
}

fn by_method(requests: &BTreeMap<String, u64>) -> String {
    requests
        .iter()
        .map(|(m, n)| format!("{m} {}", thousands(*n)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Each row's overhead above a floor of the same N: `go_floors` for the Go operator,
/// `ours_floors` for ours (the same map when both are measured against one floor).
fn overhead_table(
    rows: &[TableRow],
    go_floors: &BTreeMap<usize, Floor>,
    ours_floors: &BTreeMap<usize, Floor>,
) -> String {
    let mut out = String::from(
        "| mode | N | floor converge / storm | overhead converge Go / ours | overhead storm Go / ours | ours / Go converge, storm |\n|---|---:|---:|---:|---:|---:|\n",
    );
    let secs =
        |d: Option<Duration>| d.map_or("–".to_string(), |d| format!("{:.1} s", d.as_secs_f64()));
    let ratio =
        |ours, go| overhead_ratio(ours, go).map_or("–".to_string(), |r| format!("{r:.2}x"));
    let span = |f: &Floor| {
        format!(
            "{:.1} s / {:.1} s",
            f.converged.as_secs_f64(),
            f.storm.as_secs_f64()
        )
    };
    for row in rows {
        let Some(ours_floor) = ours_floors.get(&row.count) else {
            continue;
        };
        let go_floor = go_floors.get(&row.count);
        let (ours_c, ours_s) = overhead(&row.ours, ours_floor);
        let (go_c, go_s) = match (&row.go, go_floor) {
            (Some(go), Some(floor)) => overhead(go, floor),
            _ => (None, None),
        };
        let floor = match go_floor {
            Some(go_floor)
                if row.go.is_some()
                    && (go_floor.converged, go_floor.storm)
                        != (ours_floor.converged, ours_floor.storm) =>
            {
                format!("Go {}; ours {}", span(go_floor), span(ours_floor))
            }
            _ => span(ours_floor),
        };
        out.push_str(&format!(
            "| {} | {} | {floor} | {} / {} | {} / {} | {}, {} |\n",
            row.mode.label(),
            thousands(row.count as u64),
            secs(go_c),
            secs(ours_c),
            secs(go_s),
            secs(ours_s),
            ratio(ours_c, go_c),
            ratio(ours_s, go_s),
        ));
    }
    out
}

/// For each row with a Go run, the target as a time: the Deployments floor plus half of
/// what Go added above it, converge and storm. Beside it ours' time and the two floors no
/// runtime gets under: the control plane alone with ours' Deployments and Services, and the
/// same work without an operator. When a floor is above the target, no operator doing that
/// work meets it on that plane. Empty without Go runs.
fn target_table(round: &Round) -> String {
    let mut out = String::new();
    let secs = |d: Duration| format!("{:.1} s", d.as_secs_f64());
    let pair = |c: Duration, s: Duration| format!("{} / {}", secs(c), secs(s));
    let verdict = |ours: Duration, target: Duration| {
        if ours <= target { "met" } else { "not met" }
    };
    for row in &round.rows {
        let (Some(go), Some(floor)) = (&row.go, round.floors.get(&row.count)) else {
            continue;
        };
        let half_above =
            |go: Duration, floor: Duration| floor + go.checked_sub(floor).unwrap_or_default() / 2;
        let target_c = half_above(go.converged, floor.converged);
        let target_s = half_above(go.storm, floor.storm);
        let of = |floors: &BTreeMap<usize, Floor>| {
            floors
                .get(&row.count)
                .map_or("–".to_string(), |f| pair(f.converged, f.storm))
        };
        if out.is_empty() {
            out.push_str(
                "| mode | N | target: ours at most | ours | floor of ours' objects | same work, no operator | converge, storm |\n|---|---:|---:|---:|---:|---:|---|\n",
            );
        }
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {}, {} |\n",
            row.mode.label(),
            thousands(row.count as u64),
            pair(target_c, target_s),
            pair(row.ours.converged, row.ours.storm),
            of(&round.service_floors),
            of(&round.direct_floors),
            verdict(row.ours.converged, target_c),
            verdict(row.ours.storm, target_s),
        ));
    }
    out
}

/// The control plane's CPU in each run, converge / storm: the floor's, each operator's, and
/// what each operator added above the floor (with the API server's part of it); empty when
/// the target is not the local plane.
fn plane_table(rows: &[TableRow], floors: &BTreeMap<usize, Floor>) -> String {
    let pair = |c: &Option<PlaneSpent>, s: &Option<PlaneSpent>| match (c, s) {
        (Some(c), Some(s)) => Some((c.clone(), s.clone())),
        _ => None,
    };
    let mut out = String::new();
    for row in rows {
        let Some(floor) = floors.get(&row.count) else {
            continue;
        };
        let Some((fc, fs)) = pair(&floor.plane_converge, &floor.plane_storm) else {
            continue;
        };
        let cell = |r: Option<&Row>| -> (String, String) {
            let Some((c, s)) = r.and_then(|r| pair(&r.plane_converge, &r.plane_storm)) else {
                return ("–".into(), "–".into());
            };
            let above = |run: &PlaneSpent, base: &PlaneSpent| {
                format!(
                    "{:+.1} ({:+.1} API server)",
                    run.total() - base.total(),
                    run.component("kube-apiserver") - base.component("kube-apiserver")
                )
            };
            (
                format!("{:.1} / {:.1}", c.total(), s.total()),
                format!("{} / {}", above(&c, &fc), above(&s, &fs)),
            )
        };
        let (go, go_above) = cell(row.go.as_ref());
        let (ours, ours_above) = cell(Some(&row.ours));
        out.push_str(&format!(
            "| {} | {} | {:.1} / {:.1} | {go} | {ours} | {go_above} | {ours_above} |\n",
            row.mode.label(),
            thousands(row.count as u64),
            fc.total(),
            fs.total(),
        ));
    }
    if out.is_empty() {
        return out;
    }
    format!(
        "| mode | N | floor | Go | ours | Go above the floor | ours above the floor |\n|---|---:|---:|---:|---:|---:|---:|\n{out}"
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::bench::Mode;
    use crate::bench::metrics::Metrics;
    use crate::bench::procfs::clock_ticks_per_second;

    #[test]
    fn the_table_puts_go_and_ours_side_by_side() {
        let row = |secs, requests: &[(&str, u64)]| Row {
            converged: Duration::from_secs_f64(secs),
            storm: Duration::from_secs(2 * secs as u64),
            reconciles: 1234,
            requests: requests.iter().map(|(m, n)| (m.to_string(), *n)).collect(),
            by_resource: BTreeMap::new(),
            steady_requests: 100,
            steady_writes: 100,
            peak_rss_kib: 56 * 1024,
            cpu_seconds: 1.25,
            problems: 3,
            ..Row::default()
        };
        let rows = [TableRow {
            mode: Mode::Equal(4),
            count: 1000,
            go: Some(row(7.5, &[("GET", 10), ("PUT", 776)])),
            ours: row(11.0, &[("PATCH", 2686)]),
        }];
        let text = table(&rows);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        let cells = |l: &str| l.matches('|').count();
        assert_eq!(cells(lines[0]), cells(lines[1]));
        assert_eq!(cells(lines[0]), cells(lines[2]));
        assert_eq!(
            lines[2],
            "| concurrency 4 | 1,000 | 7.5 s / 11.0 s | 14.0 s / 22.0 s | 1,234 / 1,234 | 786 / 2,686 | GET 10, PUT 776; PATCH 2,686 | 100 / 100; 100 / 100 | 56 MiB / 56 MiB | 1.2 / 1.2 | 3 / 3 |"
        );
        let alone = TableRow {
            mode: Mode::Defaults,
            count: 10,
            go: None,
            ours: row(1.0, &[]),
        };
        assert!(alone.render().starts_with("| defaults | 10 | – / 1.0 s |"));
        assert_eq!(resource_table(&rows), "", "no breakdown without our metric");

        let floor_of = |converged, storm| {
            BTreeMap::from([(
                1000,
                Floor {
                    converged: Duration::from_secs(converged),
                    storm: Duration::from_secs(storm),
                    ..Floor::default()
                },
            )])
        };
        // Above a floor of 5 s / 6 s: Go adds 2.5 / 9, ours 6 / 16.
        let floors = floor_of(5, 6);
        let text = overhead_table(&rows, &floors, &floors);
        assert_eq!(
            text.lines().nth(2),
            Some(
                "| concurrency 4 | 1,000 | 5.0 s / 6.0 s | 2.5 s / 6.0 s | 8.0 s / 16.0 s | 2.40x, 2.00x |"
            )
        );
        // Ours above a floor with its Services (7 s / 10 s), Go above the plain one.
        let with_services = floor_of(7, 10);
        assert_eq!(
            overhead_table(&rows, &floors, &with_services)
                .lines()
                .nth(2),
            Some(
                "| concurrency 4 | 1,000 | Go 5.0 s / 6.0 s; ours 7.0 s / 10.0 s | 2.5 s / 4.0 s | 8.0 s / 12.0 s | 1.60x, 1.50x |"
            )
        );
        // Faster than the floor (noise) has no overhead and no ratio.
        let quick = [TableRow {
            mode: Mode::Defaults,
            count: 1000,
            go: None,
            ours: row(4.0, &[]),
        }];
        assert_eq!(
            overhead_table(&quick, &floors, &floors).lines().nth(2),
            Some("| defaults | 1,000 | 5.0 s / 6.0 s | – / – | – / 2.0 s | –, – |")
        );
    }

    /// An operator run of N = 100 that took these seconds.
    fn row(converged: u64, storm: u64) -> Row {
        Row {
            converged: Duration::from_secs(converged),
            storm: Duration::from_secs(storm),
            ..Row::default()
        }
    }

    /// A floor of N = 100 that took these seconds.
    fn floor(converged: u64, storm: u64) -> BTreeMap<usize, Floor> {
        BTreeMap::from([(
            100,
            Floor {
                converged: Duration::from_secs(converged),
                storm: Duration::from_secs(storm),
                ..Floor::default()
            },
        )])
    }

    #[test]
    fn the_rounds_give_a_median_ratio_of_each_floor() {
        // Floors 10 / 10 s (Deployments), 20 / 20 s (with Services) and 15 / 15 s (the
        // same work without an operator) in every round.
        let round = |go: (u64, u64), ours: (u64, u64)| Round {
            rows: vec![TableRow {
                mode: Mode::Equal(4),
                count: 100,
                go: Some(row(go.0, go.1)),
                ours: row(ours.0, ours.1),
            }],
            floors: floor(10, 10),
            service_floors: floor(20, 20),
            direct_floors: floor(15, 15),
        };
        let rounds = [
            // Above 10 s: Go 20 / 10, ours 10 / 30: 0.5x, 3.0x. Above 20 s: Go 10 / 0,
            // ours 0 / 20: 0.0x and no ratio (Go added nothing). Above 15 s: Go 15 / 5,
            // ours 5 / 25: 0.33x, 5.0x.
            round((30, 20), (20, 40)),
            // 1.0x, 1.0x; above 20 s: 20 / 10 against 20 / 10: 1.0x, 1.0x; above 15 s the
            // same.
            round((40, 30), (40, 30)),
            // 0.25x, 0.33x; above 20 s: Go 30 / 20, ours 0 / 0: 0.0x, 0.0x. Above 15 s: Go
            // 35 / 25, ours 5 / 5: 0.14x, 0.2x.
            round((50, 40), (20, 20)),
        ];
        let text = median_table(&rounds, Some(Against::GoSameWork));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].matches('|').count(), lines[2].matches('|').count());
        assert_eq!(
            lines[2],
            "| concurrency 4 | 100 | 0.50x (0.25x-1.00x) | 1.00x (0.33x-3.00x) | 0.00x (0.00x-1.00x) | 0.50x (0.00x-1.00x) | \
             0.33x (0.14x-1.00x) | 1.00x (0.20x-5.00x) | 40.0 s (30.0 s-50.0 s) / 20.0 s (20.0 s-40.0 s) | 30.0 s (20.0 s-40.0 s) / 30.0 s (20.0 s-40.0 s) |"
        );
        // Against the tutorial, its own objects are the Deployments alone: Go above 10 s
        // (20 / 10), ours above 20 s (0 / 20).
        let tutorial = median_table(&rounds[..1], Some(Against::Go));
        assert_eq!(
            tutorial.lines().nth(2),
            Some(
                "| concurrency 4 | 100 | 0.50x | 3.00x | 0.00x | 2.00x | 0.33x | 5.00x | 30.0 s / 20.0 s | 20.0 s / 40.0 s |"
            )
        );
    }

    #[test]
    fn the_target_is_a_time_beside_the_floors_under_ours() {
        let round = |go: Option<(u64, u64)>| Round {
            rows: vec![TableRow {
                mode: Mode::Equal(4),
                count: 100,
                go: go.map(|(c, s)| row(c, s)),
                ours: row(20, 40),
            }],
            floors: floor(10, 10),
            service_floors: floor(18, 25),
            direct_floors: floor(19, 30),
        };
        // Go added 20 s converging and 10 s in the storm: ours may take 10 + 10 and 10 + 5.
        assert_eq!(
            target_table(&round(Some((30, 20)))).lines().nth(2),
            Some(
                "| concurrency 4 | 100 | 20.0 s / 15.0 s | 20.0 s / 40.0 s | 18.0 s / 25.0 s | 19.0 s / 30.0 s | met, not met |"
            )
        );
        // Go faster than the floor: the target is the floor itself.
        assert!(target_table(&round(Some((8, 9)))).contains("| 10.0 s / 10.0 s |"));
        // Without Go there is no target.
        assert_eq!(target_table(&round(None)), "");
    }

    #[test]
    fn ours_requests_are_broken_down_by_resource_per_memcached() {
        let metrics = Metrics::parse(
            "operator_rest_client_requests_total{method=\"PATCH\",resource=\"deployments\"} 150\n\
             operator_rest_client_requests_total{method=\"POST\",resource=\"events\"} 100\n\
             rest_client_requests_total{method=\"PATCH\"} 150\n",
        );
        let by_resource = metrics.requests_by_resource();
        assert_eq!(by_resource.len(), 2);
        let ours = Row {
            by_resource,
            ..Row::default()
        };
        let rows = [TableRow {
            mode: Mode::Defaults,
            count: 100,
            go: None,
            ours,
        }];
        assert_eq!(
            resource_table(&rows),
            "| request | defaults N = 100 |\n|---|---:|\n| PATCH deployments | 150 (1.50) |\n| POST events | 100 (1.00) |\n"
        );
    }

    #[test]
    fn the_control_plane_cpu_above_the_floor_is_per_run_and_per_phase() {
        let spent = |api: f64, rest: f64| {
            Some(PlaneSpent {
                by_component: BTreeMap::from([
                    ("kube-apiserver".to_string(), api),
                    ("etcd".to_string(), rest),
                ]),
            })
        };
        let floors = BTreeMap::from([(
            100,
            Floor {
                plane_converge: spent(10.0, 2.0),
                plane_storm: spent(20.0, 4.0),
                ..Floor::default()
            },
        )]);
        let mut ours = Row {
            plane_converge: spent(15.0, 3.0),
            plane_storm: spent(30.0, 4.0),
            ..Row::default()
        };
        let row = |ours: &Row| TableRow {
            mode: Mode::Defaults,
            count: 100,
            go: None,
            ours: ours.clone(),
        };
        assert_eq!(
            plane_table(&[row(&ours)], &floors).lines().nth(2),
            Some(
                "| defaults | 100 | 12.0 / 24.0 | – | 18.0 / 34.0 | – | +6.0 (+5.0 API server) / +10.0 (+10.0 API server) |"
            )
        );
        // A run without samples shows dashes; not the local plane (no samples at all), no table.
        ours.plane_storm = None;
        assert!(
            plane_table(&[row(&ours)], &floors)
                .ends_with("| defaults | 100 | 12.0 / 24.0 | – | – | – | – |\n")
        );
        let unsampled = BTreeMap::from([(100, Floor::default())]);
        assert_eq!(plane_table(&[row(&ours)], &unsampled), "");
        // The ticks between two samples, by component.
        let earlier = BTreeMap::from([("etcd".to_string(), 100)]);
        let later = BTreeMap::from([("etcd".to_string(), 100 + clock_ticks_per_second())]);
        let between = PlaneSpent::between(Some(&earlier), Some(&later)).unwrap();
        assert_eq!(between.total(), 1.0);
        assert_eq!(PlaneSpent::between(None, Some(&later)), None);
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(31363), "31,363");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
