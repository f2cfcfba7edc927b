//! Faults to inject into a local control plane while an operator runs, for tests and
//! benchmarks of what it survives. Restarting a component is [`ControlPlane::restart`]; this
//! module has the rest:
//!
//! - [`Relay`]: a TCP relay between the operator and the API server that can cut the operator
//!   off (its connections dropped, new ones refused) while the rest of the cluster goes on.
//! - [`compact_etcd`]: etcd's history compacted, so that a watch resumed from an older resource
//!   version gets 410 Gone and must list again.
//! - [`throttle`]: API Priority and Fairness limits one service account to a single seat and
//!   rejects (429) whatever finds it taken; [`unthrottle`] takes that away, and
//!   [`throttled_requests`] says how many of its requests were served and rejected.

use std::fmt::Write as _;

use k8s_openapi::api::flowcontrol::v1::{FlowSchema, PriorityLevelConfiguration};
use kube::api::{Api, DeleteParams, Patch, PatchParams};
use kube::{Client, Config};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use crate::Error;
use crate::plane::ControlPlane;

/// A TCP relay on a loopback port to the API server of a [`Config`]: point an operator's
/// client at it ([`Relay::config`]) to cut it off from the API server at will. It runs on the
/// Tokio runtime it was started on until that runtime ends.
#[derive(Debug)]
pub struct Relay {
    port: u16,
    cut: tokio::sync::watch::Sender<bool>,
}

impl Relay {
    /// Relays to the API server of `config`.
    pub async fn start(config: &Config) -> Result<Self, Error> {
        let upstream = config
            .cluster_url
            .authority()
            .ok_or_else(|| Error::Start(format!("no host in {}", config.cluster_url)))?
            .to_string();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| Error::Start(format!("binding the relay: {e}")))?;
        let port = listener
            .local_addr()
            .map_err(|e| Error::Start(format!("the relay's port: {e}")))?
            .port();
        let (cut, cuts) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if *cuts.borrow() {
                    continue;
                }
                let (upstream, mut cuts) = (upstream.clone(), cuts.clone());
                tokio::spawn(async move {
                    let Ok(mut outbound) = tokio::net::TcpStream::connect(upstream).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                        _ = cuts.wait_for(|cut| *cut) => {}
                    }
                });
            }
        });
        Ok(Self { port, cut })
    }

    /// The loopback port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Its address, as a kubeconfig's `server` (the local API server's certificate names
    /// 127.0.0.1 whatever the port).
    pub fn server(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }

    /// `config`, through the relay.
    pub fn config(&self, config: &Config) -> Config {
        let mut config = config.clone();
        config.cluster_url = self.server().parse().expect("a loopback URL");
        config
    }

    /// Cut (every connection through it dropped, new ones closed at once) or reconnected.
    pub fn set_cut(&self, cut: bool) {
        self.cut.send_replace(cut);
    }
}

/// Compacts etcd's history up to its current revision, through etcd's JSON gateway: a watch
/// from an older resource version that the API server serves from etcd (not from its watch
/// cache, which keeps a few minutes of history: see `--watch-cache-sizes`) then gets 410 Gone.
pub async fn compact_etcd(plane: &ControlPlane) -> Result<(), Error> {
    let etcd = plane
        .state
        .components
        .iter()
        .find(|c| c.name == "etcd")
        .ok_or_else(|| Error::NotRunning("the control plane has no etcd".into()))?;
    // Any read gives the current revision in its header ("Lw==" is the key "/").
    let range = etcd_post(etcd.port, "/v3/kv/range", r#"{"key": "Lw=="}"#).await?;
    let revision: i64 = range["header"]["revision"]
        .as_str()
        .and_then(|r| r.parse().ok())
        .ok_or_else(|| Error::Start(format!("no revision in etcd's answer {range}")))?;
    etcd_post(
        etcd.port,
        "/v3/kv/compaction",
        &format!(r#"{{"revision": "{revision}", "physical": true}}"#),
    )
    .await?;
    Ok(())
}

/// A JSON POST to etcd's gateway on loopback, over HTTP/1.0 (so the answer comes whole).
async fn etcd_post(port: u16, path: &str, body: &str) -> Result<serde_json::Value, Error> {
    let failed = |what: String| Error::Start(format!("etcd at port {port}, POST {path}: {what}"));
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .map_err(|e| failed(e.to_string()))?;
    let mut request = format!("POST {path} HTTP/1.0\r\nHost: localhost\r\n");
    write!(
        request,
        "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("writing to a String");
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| failed(e.to_string()))?;
    let mut response = String::new();
    stream
        .read_to_string(&mut response)
        .await
        .map_err(|e| failed(e.to_string()))?;
    let (head, answer) = response
        .split_once("\r\n\r\n")
        .ok_or_else(|| failed(format!("not an HTTP answer: {response:?}")))?;
    if head.split_whitespace().nth(1) != Some("200") {
        return Err(failed(format!("{head}: {answer}")));
    }
    serde_json::from_str(answer).map_err(|e| failed(format!("{e}: {answer}")))
}

/// The priority level and flow schema that [`throttle`] makes.
pub const THROTTLED: &str = "operator-throttled";
/// A priority level no request uses, whose shares leave [`THROTTLED`] one seat: API Priority
/// and Fairness gives each level seats in proportion to its shares among all levels' (at
/// least one), and this one lends all of its own to the others, so that the control plane's
/// own clients are not throttled.
const BALLAST: &str = "throttle-ballast";

/// Throttles the service account `account` of `namespace`: every request of its (lease
/// renewals and relists included) goes to a priority level of one seat that rejects (429)
/// whatever finds the seat taken, ahead of the built-in schemas that would take it
/// (`service-accounts` is at 9000). A watch holds its seat only while it starts, so the bite
/// is largest when the account's watches all come back at once (after an API server restart).
pub async fn throttle(client: &Client, namespace: &str, account: &str) -> Result<(), Error> {
    let apply = PatchParams::apply("envtest-faults").force();
    let levels: Api<PriorityLevelConfiguration> = Api::all(client.clone());
    for (name, limited) in [
        (
            BALLAST,
            serde_json::json!({"nominalConcurrencyShares": 2000, "lendablePercent": 100,
                "limitResponse": {"type": "Reject"}}),
        ),
        (
            THROTTLED,
            serde_json::json!({"nominalConcurrencyShares": 1, "lendablePercent": 0,
                "borrowingLimitPercent": 0, "limitResponse": {"type": "Reject"}}),
        ),
    ] {
        let level: PriorityLevelConfiguration = serde_json::from_value(serde_json::json!({
            "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
            "kind": "PriorityLevelConfiguration",
            "metadata": {"name": name},
            "spec": {"type": "Limited", "limited": limited},
        }))
        .expect("a valid PriorityLevelConfiguration");
        levels.patch(name, &apply, &Patch::Apply(&level)).await?;
    }
    let schema: FlowSchema = serde_json::from_value(serde_json::json!({
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "FlowSchema",
        "metadata": {"name": THROTTLED},
        "spec": {
            "matchingPrecedence": 500,
            "priorityLevelConfiguration": {"name": THROTTLED},
            "distinguisherMethod": {"type": "ByUser"},
            "rules": [{
                "subjects": [{"kind": "ServiceAccount",
                    "serviceAccount": {"name": account, "namespace": namespace}}],
                "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"],
                    "namespaces": ["*"], "clusterScope": true}],
                "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
            }],
        },
    }))
    .expect("a valid FlowSchema");
    Api::<FlowSchema>::all(client.clone())
        .patch(THROTTLED, &apply, &Patch::Apply(&schema))
        .await?;
    Ok(())
}

/// Takes [`throttle`]'s objects away.
pub async fn unthrottle(client: &Client) -> Result<(), Error> {
    Api::<FlowSchema>::all(client.clone())
        .delete(THROTTLED, &DeleteParams::default())
        .await?;
    let levels: Api<PriorityLevelConfiguration> = Api::all(client.clone());
    for name in [THROTTLED, BALLAST] {
        levels.delete(name, &DeleteParams::default()).await?;
    }
    Ok(())
}

/// How many requests the API server has served and rejected at [`THROTTLED`]'s priority
/// level since it started, from its metrics: `(served, rejected)`.
pub async fn throttled_requests(client: &Client) -> Result<(u64, u64), Error> {
    let text = api_server_metrics(client).await?;
    Ok(count_throttled(&text))
}

/// The API server's `/metrics` text.
async fn api_server_metrics(client: &Client) -> Result<String, Error> {
    Ok(client
        .request_text(
            http::Request::get("/metrics")
                .body(Vec::new())
                .expect("a valid request"),
        )
        .await?)
}

/// API Priority and Fairness as the API server saw it since it started, one line per priority
/// level: its current limit in seats, the requests it dispatched and rejected, and the time
/// they waited in its queues. It says whether the control plane's own clients (the
/// controller manager at `workload-high`, the scheduler at `system`, ...) were held back.
pub async fn flow_control_report(client: &Client) -> Result<String, Error> {
    let text = api_server_metrics(client).await?;
    Ok(flow_control_lines(&text))
}

fn flow_control_lines(metrics: &str) -> String {
    use std::collections::BTreeMap;
    #[derive(Default)]
    struct Level {
        limit: f64,
        dispatched: f64,
        rejected: f64,
        waited: f64,
    }
    let mut levels: BTreeMap<String, Level> = BTreeMap::new();
    for line in metrics.lines().filter(|l| !l.starts_with('#')) {
        let Some((series, value)) = line.rsplit_once(' ') else {
            continue;
        };
        let Ok(value) = value.parse::<f64>() else {
            continue;
        };
        let Some(level) = series
            .split_once("priority_level=\"")
            .and_then(|(_, rest)| rest.split_once('"'))
            .map(|(level, _)| level.to_string())
        else {
            continue;
        };
        let name = series.split('{').next().unwrap_or_default();
        let entry = levels.entry(level).or_default();
        match name {
            "apiserver_flowcontrol_current_limit_seats" => entry.limit = value,
            "apiserver_flowcontrol_dispatched_requests_total" => entry.dispatched += value,
            "apiserver_flowcontrol_rejected_requests_total" => entry.rejected += value,
            "apiserver_flowcontrol_request_wait_duration_seconds_sum" => entry.waited += value,
            _ => {}
        }
    }
    levels
        .into_iter()
        .filter(|(_, l)| l.limit > 0.0 || l.dispatched > 0.0 || l.rejected > 0.0)
        .map(|(name, l)| {
            format!(
                "{name}: limit {} seats, {} dispatched, {} rejected, {:.1} s waited in queues\n",
                l.limit, l.dispatched, l.rejected, l.waited
            )
        })
        .collect()
}

fn count_throttled(metrics: &str) -> (u64, u64) {
    let level = format!("priority_level=\"{THROTTLED}\"");
    let sum = |family: &str| -> u64 {
        metrics
            .lines()
            .filter(|l| l.starts_with(family) && l.contains(&level))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum::<f64>() as u64
    };
    (
        sum("apiserver_flowcontrol_dispatched_requests_total{"),
        sum("apiserver_flowcontrol_rejected_requests_total{"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_throttled_level_is_counted_alone() {
        let text = "\
# HELP apiserver_flowcontrol_dispatched_requests_total x
apiserver_flowcontrol_dispatched_requests_total{flow_schema=\"operator-throttled\",priority_level=\"operator-throttled\"} 12
apiserver_flowcontrol_dispatched_requests_total{flow_schema=\"exempt\",priority_level=\"exempt\"} 900
apiserver_flowcontrol_rejected_requests_total{flow_schema=\"operator-throttled\",priority_level=\"operator-throttled\",reason=\"concurrency-limit\"} 3
apiserver_flowcontrol_rejected_requests_total{flow_schema=\"operator-throttled\",priority_level=\"operator-throttled\",reason=\"queue-full\"} 2
";
        assert_eq!(count_throttled(text), (12, 5));
    }

    #[test]
    fn flow_control_is_reported_by_level() {
        let text = "\
# HELP apiserver_flowcontrol_current_limit_seats x
apiserver_flowcontrol_current_limit_seats{priority_level=\"workload-high\"} 11
apiserver_flowcontrol_current_limit_seats{priority_level=\"operator-throttled\"} 1
apiserver_flowcontrol_current_limit_seats{priority_level=\"exempt\"} 0
apiserver_flowcontrol_dispatched_requests_total{flow_schema=\"kube-system-service-accounts\",priority_level=\"workload-high\"} 40
apiserver_flowcontrol_dispatched_requests_total{flow_schema=\"other\",priority_level=\"workload-high\"} 2
apiserver_flowcontrol_rejected_requests_total{flow_schema=\"kube-system-service-accounts\",priority_level=\"workload-high\",reason=\"time-out\"} 7
apiserver_flowcontrol_request_wait_duration_seconds_sum{execute=\"true\",flow_schema=\"x\",priority_level=\"workload-high\"} 12.25
apiserver_flowcontrol_request_wait_duration_seconds_bucket{execute=\"true\",flow_schema=\"x\",priority_level=\"workload-high\",le=\"1\"} 3
";
        assert_eq!(
            flow_control_lines(text),
            "operator-throttled: limit 1 seats, 0 dispatched, 0 rejected, 0.0 s waited in queues\n\
             workload-high: limit 11 seats, 42 dispatched, 7 rejected, 12.2 s waited in queues\n"
        );
    }

    #[tokio::test]
    async fn a_cut_relay_drops_its_connections_and_refuses_new_ones() {
        // An echo server stands in for the API server.
        let upstream = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = upstream.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = upstream.accept().await {
                tokio::spawn(async move {
                    let (mut r, mut w) = stream.split();
                    let _ = tokio::io::copy(&mut r, &mut w).await;
                });
            }
        });
        let mut config = Config::new(format!("https://{address}").parse().unwrap());
        config.default_namespace = "default".into();
        let relay = Relay::start(&config).await.unwrap();
        assert_eq!(
            relay.config(&config).cluster_url.to_string(),
            format!("{}/", relay.server())
        );
        let mut open = tokio::net::TcpStream::connect(("127.0.0.1", relay.port()))
            .await
            .unwrap();
        open.write_all(b"ping").await.unwrap();
        let mut echoed = [0; 4];
        open.read_exact(&mut echoed).await.unwrap();
        assert_eq!(&echoed, b"ping");

        relay.set_cut(true);
        // The open connection ends (read gives 0 bytes or an error).
        let mut rest = Vec::new();
        let ended = tokio::time::timeout(
            std::time::Duration::from_secs(5),
            open.read_to_end(&mut rest),
        )
        .await
        .expect("the cut connection ends");
        assert!(ended.is_err() || rest.is_empty(), "{rest:?}");
        // A new one is accepted by the kernel and closed at once.
        let mut new = tokio::net::TcpStream::connect(("127.0.0.1", relay.port()))
            .await
            .unwrap();
        let _ = new.write_all(b"ping").await;
        let mut got = Vec::new();
        let read =
            tokio::time::timeout(std::time::Duration::from_secs(5), new.read_to_end(&mut got))
                .await
                .expect("the refused connection ends");
        assert!(read.is_err() || got.is_empty(), "{got:?}");

        relay.set_cut(false);
        let mut again = tokio::net::TcpStream::connect(("127.0.0.1", relay.port()))
            .await
            .unwrap();
        again.write_all(b"pong").await.unwrap();
        again.read_exact(&mut echoed).await.unwrap();
        assert_eq!(&echoed, b"pong");
    }
}
