//! Prometheus metrics with controller-runtime's names, so dashboards and alerts written for Go
//! operators work unchanged: reconcile totals by result, errors, a reconcile duration histogram
//! per controller, and the API requests the operator's client makes.

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ControllerLabels {
    pub controller: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ResultLabels {
    pub controller: String,
    /// `success`, `error` or `requeue_after`, as controller-runtime reports them.
    pub result: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    pub method: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ResourceRequestLabels {
    pub method: String,
    /// The resource, with its subresource after a slash (`deployments`, `memcacheds/status`);
    /// the first path segment for paths outside the API groups (`version`, `openapi`).
    pub resource: String,
}

/// All metrics of one operator process.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    reconcile_total: Family<ResultLabels, Counter>,
    reconcile_errors: Family<ControllerLabels, Counter>,
    reconcile_time: Family<ControllerLabels, Histogram>,
    active_workers: Family<ControllerLabels, Gauge>,
    requests: Family<RequestLabels, Counter>,
    resource_requests: Family<ResourceRequestLabels, Counter>,
    leader: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Self {
        let mut registry = Registry::default();
        let reconcile_total = Family::<ResultLabels, Counter>::default();
        let reconcile_errors = Family::<ControllerLabels, Counter>::default();
        // controller-runtime's buckets run from 5ms to about a minute.
        let reconcile_time = Family::<ControllerLabels, Histogram>::new_with_constructor(
            (|| Histogram::new(exponential_buckets(0.005, 2.0, 14))) as fn() -> Histogram,
        );
        let active_workers = Family::<ControllerLabels, Gauge>::default();
        let requests = Family::<RequestLabels, Counter>::default();
        let resource_requests = Family::<ResourceRequestLabels, Counter>::default();
        let leader = Gauge::default();
        registry.register(
            "controller_runtime_reconcile",
            "Total number of reconciliations per controller",
            reconcile_total.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_errors",
            "Total number of reconciliation errors per controller",
            reconcile_errors.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_time_seconds",
            "Length of time per reconciliation per controller",
            reconcile_time.clone(),
        );
        registry.register(
            "controller_runtime_active_workers",
            "Number of currently used workers per controller",
            active_workers.clone(),
        );
        registry.register(
            "rest_client_requests",
            "Number of HTTP requests to the API server, by method",
            requests.clone(),
        );
        registry.register(
            "operator_rest_client_requests",
            "Number of HTTP requests to the API server, by method and resource",
            resource_requests.clone(),
        );
        registry.register(
            "leader_election_master_status",
            "1 while this instance holds the leader lease",
            leader.clone(),
        );
        Self {
            registry,
            reconcile_total,
            reconcile_errors,
            reconcile_time,
            active_workers,
            requests,
            resource_requests,
            leader,
        }
    }

    /// Records one finished reconcile.
    pub fn reconciled(&self, controller: &str, result: &str, took: Duration) {
        let labels = ControllerLabels {
            controller: controller.to_string(),
        };
        self.reconcile_total
            .get_or_create(&ResultLabels {
                controller: controller.to_string(),
                result: result.to_string(),
            })
            .inc();
        if result == "error" {
            self.reconcile_errors.get_or_create(&labels).inc();
        }
        self.reconcile_time
            .get_or_create(&labels)
            .observe(took.as_secs_f64());
    }

    /// A guard counting one active worker while it lives.
    pub fn worker(self: &Arc<Self>, controller: &str) -> WorkerGuard {
        let gauge = self
            .active_workers
            .get_or_create(&ControllerLabels {
                controller: controller.to_string(),
            })
            .clone();
        gauge.inc();
        WorkerGuard(gauge)
    }

    /// Counts one request of `method` to `path` (the URL's path).
    pub fn request(&self, method: &str, path: &str) {
        self.requests
            .get_or_create(&RequestLabels {
                method: method.to_string(),
            })
            .inc();
        self.resource_requests
            .get_or_create(&ResourceRequestLabels {
                method: method.to_string(),
                resource: resource_of(path),
            })
            .inc();
    }

    pub fn set_leader(&self, leader: bool) {
        self.leader.set(i64::from(leader));
    }

    /// Reconciles finished so far by `controller`, whatever their result.
    pub fn reconciles(&self, controller: &str) -> u64 {
        ["success", "error"]
            .iter()
            .map(|result| {
                self.reconcile_total
                    .get_or_create(&ResultLabels {
                        controller: controller.to_string(),
                        result: result.to_string(),
                    })
                    .get()
            })
            .sum()
    }

    pub fn is_leader(&self) -> bool {
        self.leader.get() == 1
    }

    /// Total API requests so far (all methods).
    pub fn requests_total(&self) -> u64 {
        ["GET", "POST", "PUT", "PATCH", "DELETE"]
            .iter()
            .map(|m| {
                self.requests
                    .get_or_create(&RequestLabels {
                        method: m.to_string(),
                    })
                    .get()
            })
            .sum()
    }

    /// The text exposition format served on /metrics.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)
            .expect("writing to a String cannot fail");
        out
    }
}

#[derive(Debug)]
pub struct WorkerGuard(Gauge);

impl Drop for WorkerGuard {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// A kube client that counts its requests in `metrics`.
pub fn counting_client(config: kube::Config, metrics: Arc<Metrics>) -> kube::Result<kube::Client> {
    let layer = tower::util::MapRequestLayer::new(move |req: http::Request<kube::client::Body>| {
        metrics.request(req.method().as_str(), req.uri().path());
        req
    });
    Ok(kube::client::ClientBuilder::try_from(config)?
        .with_layer(&layer)
        .build())
}

/// The resource a request path names: `/api/v1/namespaces/ns/pods/p` is `pods`,
/// `/apis/apps/v1/namespaces/ns/deployments/d/status` is `deployments/status`,
/// `/api/v1/namespaces/ns` is `namespaces`.
fn resource_of(path: &str) -> String {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let rest = match segments.as_slice() {
        ["api", _version, rest @ ..] => rest,
        ["apis", _group, _version, rest @ ..] => rest,
        [first, ..] => return (*first).to_string(),
        [] => return "/".to_string(),
    };
    let rest = match rest {
        ["namespaces", _ns, resource, tail @ ..] if !["status", "finalize"].contains(resource) => {
            let mut r = vec![*resource];
            r.extend_from_slice(tail);
            r
        }
        other => other.to_vec(),
    };
    match rest.as_slice() {
        [] => "discovery".to_string(),
        [resource] | [resource, _] => (*resource).to_string(),
        [resource, _, sub, ..] => format!("{resource}/{sub}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reconciles_are_exposed_with_controller_runtime_names() {
        let m = Metrics::new();
        m.reconciled("memcached", "success", Duration::from_millis(12));
        m.reconciled("memcached", "error", Duration::from_millis(3));
        m.request("GET", "/api/v1/namespaces/ns/pods");
        m.request(
            "PATCH",
            "/apis/cache.example.com/v1alpha1/namespaces/ns/memcacheds/m/status",
        );
        let text = m.encode();
        for line in [
            "controller_runtime_reconcile_total{controller=\"memcached\",result=\"success\"} 1",
            "controller_runtime_reconcile_total{controller=\"memcached\",result=\"error\"} 1",
            "controller_runtime_reconcile_errors_total{controller=\"memcached\"} 1",
            "controller_runtime_reconcile_time_seconds_count{controller=\"memcached\"} 2",
            "rest_client_requests_total{method=\"PATCH\"} 1",
            "operator_rest_client_requests_total{method=\"PATCH\",resource=\"memcacheds/status\"} 1",
            "operator_rest_client_requests_total{method=\"GET\",resource=\"pods\"} 1",
        ] {
            assert!(text.contains(line), "{line} missing from\n{text}");
        }
        assert_eq!(m.requests_total(), 2);
    }

    #[test]
    fn request_paths_name_their_resource() {
        for (path, resource) in [
            ("/api/v1/pods", "pods"),
            ("/api/v1/namespaces", "namespaces"),
            ("/api/v1/namespaces/ns", "namespaces"),
            ("/api/v1/namespaces/ns/finalize", "namespaces/finalize"),
            ("/api/v1/namespaces/ns/pods", "pods"),
            ("/api/v1/namespaces/ns/pods/p", "pods"),
            ("/api/v1/namespaces/ns/pods/p/log", "pods/log"),
            (
                "/apis/apps/v1/namespaces/ns/deployments/d/status",
                "deployments/status",
            ),
            ("/apis/events.k8s.io/v1/namespaces/ns/events", "events"),
            (
                "/apis/authentication.k8s.io/v1/tokenreviews",
                "tokenreviews",
            ),
            (
                "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/x",
                "customresourcedefinitions",
            ),
            ("/apis/apps/v1", "discovery"),
            ("/version", "version"),
            ("/", "/"),
        ] {
            assert_eq!(resource_of(path), resource, "{path}");
        }
    }
}
