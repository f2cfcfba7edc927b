//! Prometheus metrics with controller-runtime's names, so dashboards and alerts written for Go
//! operators work unchanged: reconcile totals by result, errors, a reconcile duration histogram
//! per controller, the API requests the operator's client makes, and the webhook server's
//! requests, latency, requests in flight and panics.
//!
//! The operator's own metrics join them on the same endpoint: [`Metrics::register`] takes
//! any `prometheus_client` metric (controller-runtime's `metrics.Registry` is the Go
//! counterpart), [`Metrics::register_collector`] a collector.
//!
//! ```
//! use prometheus_client::metrics::counter::Counter;
//! let metrics = operator_runtime::Metrics::new();
//! let resizes = Counter::<u64>::default();
//! metrics.register("memcached_resizes", "Memcacheds resized", resizes.clone());
//! resizes.inc();
//! assert!(metrics.encode().contains("memcached_resizes_total 1"));
//! ```

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Metric, Registry};

/// Labels of the per-controller metrics (`controller_runtime_active_workers`, ...).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ControllerLabels {
    /// The controller's name.
    pub controller: String,
}

/// Labels of `workqueue_depth`: client-go's, whose `name` is the controller's.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct QueueLabels {
    /// The controller's name.
    pub name: String,
}

/// Labels of `controller_runtime_reconcile_total`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ResultLabels {
    /// The controller's name.
    pub controller: String,
    /// `success`, `error` or `requeue_after`, as controller-runtime reports them.
    pub result: String,
}

/// Labels of `rest_client_requests_total`, controller-runtime's.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    /// The HTTP method.
    pub method: String,
}

/// Labels of `operator_rest_client_requests_total`: the method and the resource.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ResourceRequestLabels {
    /// The HTTP method.
    pub method: String,
    /// The resource, with its subresource after a slash (`deployments`, `memcacheds/status`);
    /// the first path segment for paths outside the API groups (`version`, `openapi`).
    pub resource: String,
}

/// Labels of the per-webhook metrics (`controller_runtime_webhook_latency_seconds`, ...).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct WebhookLabels {
    /// The webhook's path (`/validate-cache-example-com-v1alpha1-memcached`).
    pub webhook: String,
}

/// Labels of `controller_runtime_webhook_requests_total`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct WebhookCodeLabels {
    /// The webhook's path.
    pub webhook: String,
    /// The HTTP status code of the answer (`200`; `400` for a body that is not a review).
    pub code: String,
}

/// All metrics of one operator process, and the operator's own.
#[derive(Debug)]
pub struct Metrics {
    /// Behind a lock so that an operator can register its metrics after the runtime's
    /// handle is shared; held only to register and to encode a scrape.
    registry: Mutex<Registry>,
    reconcile_total: Family<ResultLabels, Counter>,
    reconcile_errors: Family<ControllerLabels, Counter>,
    reconcile_panics: Family<ControllerLabels, Counter>,
    reconcile_timeouts: Family<ControllerLabels, Counter>,
    progress_deferred: Family<ControllerLabels, Counter>,
    reconcile_time: Family<ControllerLabels, Histogram>,
    max_concurrent: Family<ControllerLabels, Gauge>,
    active_workers: Family<ControllerLabels, Gauge>,
    workqueue_depth: Family<QueueLabels, Gauge>,
    requests: Family<RequestLabels, Counter>,
    resource_requests: Family<ResourceRequestLabels, Counter>,
    leader: Gauge,
    client_refused: Counter,
    client_limit: Gauge,
    webhook_latency: Family<WebhookLabels, Histogram>,
    webhook_requests: Family<WebhookCodeLabels, Counter>,
    webhook_in_flight: Family<WebhookLabels, Gauge>,
    webhook_panics: Counter,
    conversion_webhook_panics: Counter,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// A registry with every metric of the manager, the controllers and the webhook server,
    /// all at zero.
    pub fn new() -> Self {
        let mut registry = Registry::default();
        let reconcile_total = Family::<ResultLabels, Counter>::default();
        let reconcile_errors = Family::<ControllerLabels, Counter>::default();
        let reconcile_panics = Family::<ControllerLabels, Counter>::default();
        let reconcile_timeouts = Family::<ControllerLabels, Counter>::default();
        let progress_deferred = Family::<ControllerLabels, Counter>::default();
        let max_concurrent = Family::<ControllerLabels, Gauge>::default();
        // controller-runtime's buckets run from 5ms to about a minute.
        let reconcile_time = Family::<ControllerLabels, Histogram>::new_with_constructor(
            (|| Histogram::new(exponential_buckets(0.005, 2.0, 14))) as fn() -> Histogram,
        );
        let active_workers = Family::<ControllerLabels, Gauge>::default();
        let workqueue_depth = Family::<QueueLabels, Gauge>::default();
        let requests = Family::<RequestLabels, Counter>::default();
        let resource_requests = Family::<ResourceRequestLabels, Counter>::default();
        let leader = Gauge::default();
        let client_refused = Counter::default();
        let client_limit = Gauge::default();
        // controller-runtime's webhook latency has Prometheus' default buckets.
        let webhook_latency = Family::<WebhookLabels, Histogram>::new_with_constructor(
            (|| {
                Histogram::new([
                    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
                ])
            }) as fn() -> Histogram,
        );
        let webhook_requests = Family::<WebhookCodeLabels, Counter>::default();
        let webhook_in_flight = Family::<WebhookLabels, Gauge>::default();
        let webhook_panics = Counter::default();
        let conversion_webhook_panics = Counter::default();
        registry.register(
            "controller_runtime_webhook_latency_seconds",
            "Histogram of the latency of processing admission requests",
            webhook_latency.clone(),
        );
        registry.register(
            "controller_runtime_webhook_requests",
            "Total number of admission requests by HTTP status code",
            webhook_requests.clone(),
        );
        registry.register(
            "controller_runtime_webhook_requests_in_flight",
            "Current number of admission requests being served",
            webhook_in_flight.clone(),
        );
        registry.register(
            "controller_runtime_webhook_panics",
            "Total number of webhook panics",
            webhook_panics.clone(),
        );
        registry.register(
            "controller_runtime_conversion_webhook_panics",
            "Total number of conversion webhook panics",
            conversion_webhook_panics.clone(),
        );
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
            "controller_runtime_reconcile_panics",
            "Total number of reconciliation panics per controller",
            reconcile_panics.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_timeouts",
            "Total number of reconciliation timeouts per controller",
            reconcile_timeouts.clone(),
        );
        registry.register(
            "operator_progress_reports_deferred",
            "Progress reports a controller did not write for want of budget (--progress-reports)",
            progress_deferred.clone(),
        );
        registry.register(
            "controller_runtime_max_concurrent_reconciles",
            "Maximum number of concurrent reconciles per controller",
            max_concurrent.clone(),
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
            "workqueue_depth",
            "Current depth of workqueue",
            workqueue_depth.clone(),
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
            "operator_rest_client_refused",
            "Answers of 429 (too many requests) from the API server",
            client_refused.clone(),
        );
        registry.register(
            "operator_rest_client_in_flight_limit",
            "The limit on requests in flight the API server's 429s have set; 0 while unlimited",
            client_limit.clone(),
        );
        registry.register(
            "leader_election_master_status",
            "1 while this instance holds the leader lease",
            leader.clone(),
        );
        Self {
            registry: Mutex::new(registry),
            reconcile_total,
            reconcile_errors,
            reconcile_panics,
            reconcile_timeouts,
            progress_deferred,
            reconcile_time,
            max_concurrent,
            active_workers,
            workqueue_depth,
            requests,
            resource_requests,
            leader,
            client_refused,
            client_limit,
            webhook_latency,
            webhook_requests,
            webhook_in_flight,
            webhook_panics,
            conversion_webhook_panics,
        }
    }

    /// Serves one of the operator's own metrics with the runtime's, on the same endpoint.
    /// `name` follows Prometheus' conventions (`memcached_resizes`; a counter gets `_total`
    /// when it is written); give it a prefix of its own, as the runtime's names are
    /// controller-runtime's. Keep a clone of `metric` to update it.
    pub fn register(&self, name: impl Into<String>, help: impl Into<String>, metric: impl Metric) {
        self.registry().register(name.into(), help.into(), metric);
    }

    /// Serves a collector's metrics (read at each scrape) with the runtime's.
    pub fn register_collector(&self, collector: Box<dyn prometheus_client::collector::Collector>) {
        self.registry().register_collector(collector);
    }

    fn registry(&self) -> std::sync::MutexGuard<'_, Registry> {
        // A panic while registering leaves nothing half-done that encoding would trip on.
        self.registry.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One request to the webhook at `path` begins: counted in flight until the guard drops.
    pub fn webhook_started(&self, path: &str) -> WorkerGuard {
        let gauge = self
            .webhook_in_flight
            .get_or_create(&WebhookLabels {
                webhook: path.to_string(),
            })
            .clone();
        gauge.inc();
        WorkerGuard(gauge)
    }

    /// The webhook at `path` answered with HTTP status `code` after `took`.
    pub fn webhook_answered(&self, path: &str, code: u16, took: Duration) {
        self.webhook_requests
            .get_or_create(&WebhookCodeLabels {
                webhook: path.to_string(),
                code: code.to_string(),
            })
            .inc();
        self.webhook_latency
            .get_or_create(&WebhookLabels {
                webhook: path.to_string(),
            })
            .observe(took.as_secs_f64());
    }

    /// An admission handler (or, with `conversion`, a conversion) panicked.
    pub fn webhook_panicked(&self, conversion: bool) {
        if conversion {
            self.conversion_webhook_panics.inc();
        } else {
            self.webhook_panics.inc();
        }
    }

    /// The controller `controller` starts with at most `concurrency` reconciles at once: its
    /// gauge is set and its counters are served from zero (as controller-runtime does), so
    /// that a rate over them means something from the first scrape.
    pub fn controller_started(&self, controller: &str, concurrency: u16) {
        let labels = ControllerLabels {
            controller: controller.to_string(),
        };
        for result in ["success", "error"] {
            self.reconcile_total
                .get_or_create(&ResultLabels {
                    controller: controller.to_string(),
                    result: result.to_string(),
                })
                .inc_by(0);
        }
        for counter in [
            &self.reconcile_errors,
            &self.reconcile_panics,
            &self.reconcile_timeouts,
            &self.progress_deferred,
        ] {
            counter.get_or_create(&labels).inc_by(0);
        }
        self.active_workers.get_or_create(&labels).inc_by(0);
        self.workqueue_depth(controller).set(0);
        self.max_concurrent
            .get_or_create(&labels)
            .set(i64::from(concurrency));
    }

    /// A reconcile of `controller` panicked.
    pub fn reconcile_panicked(&self, controller: &str) {
        count(&self.reconcile_panics, controller);
    }

    /// A reconcile of `controller` ran over its time limit and was stopped.
    pub fn reconcile_timed_out(&self, controller: &str) {
        count(&self.reconcile_timeouts, controller);
    }

    /// A progress report of `controller` was deferred: its budget was spent.
    pub fn progress_deferred(&self, controller: &str) {
        count(&self.progress_deferred, controller);
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
            count(&self.reconcile_errors, controller);
        }
        self.reconcile_time
            .get_or_create(&labels)
            .observe(took.as_secs_f64());
    }

    /// The gauge of how many objects wait in `controller`'s queue (client-go's and
    /// controller-runtime's `workqueue_depth`, labelled with the controller's name).
    pub(crate) fn workqueue_depth(&self, controller: &str) -> Gauge {
        self.workqueue_depth
            .get_or_create(&QueueLabels {
                name: controller.to_string(),
            })
            .clone()
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

    /// Records whether this instance holds the leader lease (`leader_election_master_status`).
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

    /// Requests the webhook at `path` answered so far, whatever their status code.
    pub fn webhook_requests(&self, path: &str) -> u64 {
        // The family keeps no list of its label sets to read; the scrape has them all.
        let label = format!("webhook=\"{path}\"");
        self.encode()
            .lines()
            .filter(|l| l.starts_with("controller_runtime_webhook_requests_total{"))
            .filter(|l| l.contains(&label))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
            .sum()
    }

    /// Whether this instance holds the leader lease, as last recorded.
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
        prometheus_client::encoding::text::encode(&mut out, &self.registry())
            .expect("writing to a String cannot fail");
        out
    }
}

/// Holds a gauge up while a worker or a webhook request is busy; lowers it when dropped.
#[derive(Debug)]
pub struct WorkerGuard(Gauge);

impl Drop for WorkerGuard {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// A kube client that counts its requests in `metrics` and, when the API server answers
/// 429, has fewer of them in flight ([`crate::backpressure`]). Must be called inside a tokio
/// runtime.
///
/// The 429s, 503s and 504s are retried as kube's client retries them when
/// `config.default_retry` is set (the default), each attempt counted; the retries are
/// outside the limit, so that the limit sees every refusal.
pub fn counting_client(
    mut config: kube::Config,
    metrics: Arc<Metrics>,
) -> kube::Result<kube::Client> {
    let limit = crate::backpressure::Limit::reporting(
        metrics.client_refused.clone(),
        metrics.client_limit.clone(),
    );
    let count = tower::util::MapRequestLayer::new(move |req: http::Request<kube::client::Body>| {
        metrics.request(req.method().as_str(), req.uri().path());
        req
    });
    let retry = std::mem::replace(&mut config.default_retry, false);
    let retry =
        tower::util::option_layer(retry.then(|| {
            tower::retry::RetryLayer::new(kube::client::retry::RetryPolicy::server_retry())
        }));
    let backpressure = crate::backpressure::BackpressureLayer::new(Arc::new(limit));
    Ok(kube::client::ClientBuilder::try_from(config)?
        .with_layer(&count)
        .with_layer(&backpressure)
        .with_layer(&retry)
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

/// Adds one to `controller`'s counter in `family`.
fn count(family: &Family<ControllerLabels, Counter>, controller: &str) {
    family
        .get_or_create(&ControllerLabels {
            controller: controller.to_string(),
        })
        .inc();
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
    fn a_started_controller_is_served_from_zero_with_its_concurrency() {
        let m = Metrics::new();
        m.controller_started("widget", 4);
        m.reconcile_panicked("widget");
        m.reconcile_timed_out("widget");
        m.reconcile_timed_out("widget");
        m.progress_deferred("widget");
        let text = m.encode();
        for line in [
            "controller_runtime_reconcile_total{controller=\"widget\",result=\"success\"} 0",
            "controller_runtime_reconcile_total{controller=\"widget\",result=\"error\"} 0",
            "controller_runtime_reconcile_errors_total{controller=\"widget\"} 0",
            "controller_runtime_active_workers{controller=\"widget\"} 0",
            "controller_runtime_max_concurrent_reconciles{controller=\"widget\"} 4",
            "controller_runtime_reconcile_panics_total{controller=\"widget\"} 1",
            "controller_runtime_reconcile_timeouts_total{controller=\"widget\"} 2",
            "operator_progress_reports_deferred_total{controller=\"widget\"} 1",
        ] {
            assert!(text.contains(line), "{line} missing from\n{text}");
        }
    }

    /// The operator's metrics are served with the runtime's, registered after the handle
    /// is shared; webhook requests are counted under controller-runtime's names.
    #[test]
    fn the_operators_own_and_the_webhook_metrics_are_served() {
        let m = Arc::new(Metrics::new());
        let shared = m.clone();
        let resizes = Counter::<u64>::default();
        shared.register("memcached_resizes", "Memcacheds resized", resizes.clone());
        resizes.inc();
        let path = "/validate-cache-example-com-v1alpha1-memcached";
        let flight = m.webhook_started(path);
        let in_flight =
            format!("controller_runtime_webhook_requests_in_flight{{webhook=\"{path}\"}} 1");
        assert!(m.encode().contains(&in_flight), "{}", m.encode());
        m.webhook_answered(path, 200, Duration::from_millis(4));
        drop(flight);
        m.webhook_panicked(false);
        let text = m.encode();
        for line in [
            "memcached_resizes_total 1".to_string(),
            format!(
                "controller_runtime_webhook_requests_total{{webhook=\"{path}\",code=\"200\"}} 1"
            ),
            format!("controller_runtime_webhook_requests_in_flight{{webhook=\"{path}\"}} 0"),
            format!("controller_runtime_webhook_latency_seconds_count{{webhook=\"{path}\"}} 1"),
            "controller_runtime_webhook_panics_total 1".to_string(),
            "controller_runtime_conversion_webhook_panics_total 0".to_string(),
        ] {
            assert!(text.contains(&line), "{line} missing from\n{text}");
        }
        m.webhook_answered(path, 400, Duration::from_millis(1));
        m.webhook_answered("/other", 200, Duration::from_millis(1));
        assert_eq!(m.webhook_requests(path), 2);
        assert_eq!(m.webhook_requests("/missing"), 0);
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
