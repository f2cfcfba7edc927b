//! The operators' counters: a Prometheus text exposition read into samples, and the request
//! counts by method taken from it.
//!
//! The parser is our own (about 50 lines). The crates for the format did worse on what the
//! benchmark reads: prometheus-parse 0.2.5 (which adds chrono, iana-time-zone and itertools)
//! splits labels at every `,` and `=` and drops a sample whose quoted label value holds a `}`;
//! openmetrics-parser 0.5.1 is LGPL-3.0 (this repository is Apache-2.0), refuses a whole
//! exposition for one family it does not accept (samples without a `# TYPE` line), and has
//! one parser for Go's Prometheus text and another for ours' OpenMetrics. The benchmark only
//! sums samples by name and label, the same in both formats.

use std::collections::BTreeMap;

/// The samples of a Prometheus text exposition.
#[derive(Debug, Default, Clone)]
pub(super) struct Metrics {
    samples: Vec<Sample>,
}

#[derive(Debug, Clone, PartialEq)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

impl Metrics {
    pub(super) fn parse(text: &str) -> Self {
        let samples = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .filter_map(parse_sample)
            .collect();
        Metrics { samples }
    }

    /// Sum of `name`'s samples.
    pub(super) fn sum(&self, name: &str) -> f64 {
        self.samples
            .iter()
            .filter(|s| s.name == name)
            .map(|s| s.value)
            .sum()
    }

    /// `name`'s samples summed by the value of `label` (missing label: "").
    fn by_label(&self, name: &str, label: &str) -> BTreeMap<String, f64> {
        let mut out = BTreeMap::new();
        for s in self.samples.iter().filter(|s| s.name == name) {
            let key = s.labels.get(label).cloned().unwrap_or_default();
            *out.entry(key).or_insert(0.0) += s.value;
        }
        out
    }

    /// API requests by HTTP method.
    pub(super) fn requests(&self) -> BTreeMap<String, u64> {
        self.by_label("rest_client_requests_total", "method")
            .into_iter()
            .map(|(k, v)| (k.to_ascii_uppercase(), v as u64))
            .collect()
    }

    pub(super) fn reconciles(&self) -> u64 {
        self.sum("controller_runtime_reconcile_total") as u64
    }

    /// API requests by method and resource (`PATCH deployments`), from our operator's
    /// `operator_rest_client_requests_total`; empty for an operator that does not export it.
    pub(super) fn requests_by_resource(&self) -> BTreeMap<String, u64> {
        let mut out = BTreeMap::new();
        for s in self
            .samples
            .iter()
            .filter(|s| s.name == "operator_rest_client_requests_total")
        {
            let label = |l: &str| s.labels.get(l).cloned().unwrap_or_default();
            *out.entry(format!("{} {}", label("method"), label("resource")))
                .or_insert(0) += s.value as u64;
        }
        out
    }
}

/// One sample line: `name{a="x",b="y"} value [timestamp]`.
fn parse_sample(line: &str) -> Option<Sample> {
    let (name, labels, rest) = match line.find('{') {
        Some(open) => {
            let (labels, rest) = parse_labels(&line[open + 1..])?;
            (&line[..open], labels, rest)
        }
        None => {
            let (name, rest) = line.split_once(' ')?;
            (name, BTreeMap::new(), rest)
        }
    };
    let value = rest.split_whitespace().next()?.parse().ok()?;
    Some(Sample {
        name: name.to_string(),
        labels,
        value,
    })
}

/// The labels after a sample's `{`, up to its closing `}` (quoted values may hold `}`, `,` and
/// escaped quotes); returns them and what follows the `}`.
fn parse_labels(text: &str) -> Option<(BTreeMap<String, String>, &str)> {
    let mut labels = BTreeMap::new();
    let mut rest = text.trim_start();
    loop {
        if let Some(after) = rest.strip_prefix('}') {
            return Some((labels, after));
        }
        let (key, after) = rest.split_once('=')?;
        let after = after.trim_start().strip_prefix('"')?;
        let mut value = String::new();
        let mut chars = after.char_indices();
        let end = loop {
            let (i, c) = chars.next()?;
            match c {
                '\\' => match chars.next()?.1 {
                    'n' => value.push('\n'),
                    other => value.push(other),
                },
                '"' => break i,
                c => value.push(c),
            }
        };
        labels.insert(key.trim().to_string(), value);
        rest = after[end + 1..].trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
}

pub(super) fn total(requests: &BTreeMap<String, u64>) -> u64 {
    requests.values().sum()
}

pub(super) fn writes(requests: &BTreeMap<String, u64>) -> u64 {
    requests
        .iter()
        .filter(|(m, _)| !matches!(m.as_str(), "GET" | "LIST" | "WATCH" | "HEAD" | "OPTIONS"))
        .map(|(_, n)| n)
        .sum()
}

pub(super) fn diff(
    later: &BTreeMap<String, u64>,
    earlier: &BTreeMap<String, u64>,
) -> BTreeMap<String, u64> {
    later
        .iter()
        .map(|(m, n)| (m.clone(), n.saturating_sub(*earlier.get(m).unwrap_or(&0))))
        .filter(|(_, n)| *n > 0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const GO_METRICS: &str = r#"# HELP rest_client_requests_total Number of HTTP requests, partitioned by status code, method, and host.
# TYPE rest_client_requests_total counter
rest_client_requests_total{code="200",host="127.0.0.1:6443",method="GET"} 12
rest_client_requests_total{code="201",host="127.0.0.1:6443",method="POST"} 100
rest_client_requests_total{code="409",host="127.0.0.1:6443",method="PUT"} 7
rest_client_requests_total{code="200",host="127.0.0.1:6443",method="PUT"} 300
controller_runtime_reconcile_total{controller="memcached",result="error"} 7
controller_runtime_reconcile_total{controller="memcached",result="success"} 400
process_cpu_seconds_total 1.5
weird{label="a \"quoted\", value, }"} 3 1700000000
"#;

    #[test]
    fn metrics_are_summed_by_label() {
        let m = Metrics::parse(GO_METRICS);
        assert_eq!(m.reconciles(), 407);
        let requests = m.requests();
        assert_eq!(
            requests,
            BTreeMap::from([
                ("GET".to_string(), 12),
                ("POST".to_string(), 100),
                ("PUT".to_string(), 307)
            ])
        );
        assert_eq!(total(&requests), 419);
        assert_eq!(writes(&requests), 407);
        assert_eq!(m.sum("process_cpu_seconds_total"), 1.5);
        let weird = m.samples.iter().find(|s| s.name == "weird").unwrap();
        assert_eq!(weird.labels["label"], "a \"quoted\", value, }");
        assert_eq!(weird.value, 3.0);
    }

    #[test]
    fn ours_metrics_parse_too() {
        let m = Metrics::parse(
            "rest_client_requests_total{method=\"PATCH\"} 5\nrest_client_requests_total{method=\"get\"} 2\n",
        );
        assert_eq!(
            m.requests(),
            BTreeMap::from([("GET".to_string(), 2), ("PATCH".to_string(), 5)])
        );
        assert_eq!(m.reconciles(), 0);
    }

    #[test]
    fn request_differences_drop_unchanged_methods() {
        let before = BTreeMap::from([("GET".to_string(), 5), ("PUT".to_string(), 3)]);
        let after = BTreeMap::from([
            ("GET".to_string(), 5),
            ("PUT".to_string(), 4),
            ("PATCH".to_string(), 2),
        ]);
        let d = diff(&after, &before);
        assert_eq!(
            d,
            BTreeMap::from([("PATCH".to_string(), 2), ("PUT".to_string(), 1)])
        );
        assert_eq!(writes(&d), 3);
    }
}
