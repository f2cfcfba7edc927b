//! The webhook server over real TLS on 127.0.0.1: defaulting, validation, conversion,
//! certificate reload, shutdown, and a seeded flood of bad requests.

mod support;

use std::sync::Arc;

use futures::StreamExt as _;
use operator_runtime::webhook::{
    AdmissionContext, Certificates, Conversion, Denial, Operation, Outcome, Validator,
    WebhookOptions, Webhooks, defaulter_fn,
};
use serde_json::{Value, json};
use support::*;
use tokio::sync::Notify;

/// Sizes up to 10; shrinking warns; only empty widgets may be deleted.
struct SizeRules;

impl Validator<Widget> for SizeRules {
    async fn validate_create(&self, ctx: &AdmissionContext, w: &Widget) -> Outcome {
        assert_eq!(ctx.operation, Operation::Create);
        if w.spec.size > 10 {
            return Err(Denial::invalid("spec.size must be at most 10"));
        }
        if w.spec.size == 0 {
            return Ok(vec!["a widget of size 0 does nothing".into()]);
        }
        Ok(vec![])
    }

    async fn validate_update(&self, _: &AdmissionContext, old: &Widget, new: &Widget) -> Outcome {
        if new.spec.size > 10 {
            return Err(Denial::invalid("spec.size must be at most 10")
                .with_warning(format!("it was {}", old.spec.size)));
        }
        if new.spec.size < old.spec.size {
            return Ok(vec![format!(
                "shrinking from {} to {}",
                old.spec.size, new.spec.size
            )]);
        }
        Ok(vec![])
    }

    async fn validate_delete(&self, ctx: &AdmissionContext, old: &Widget) -> Outcome {
        assert_eq!(ctx.namespace.as_deref(), Some("ns"));
        if old.spec.size > 0 {
            return Err(Denial::new("scale the widget to 0 before deleting it").with_code(409));
        }
        Ok(vec![])
    }
}

/// Panics on size 13.
struct Unlucky;

impl Validator<Widget> for Unlucky {
    async fn validate_create(&self, _: &AdmissionContext, w: &Widget) -> Outcome {
        assert_ne!(w.spec.size, 13, "unlucky");
        Ok(vec![])
    }
}

fn widget_webhooks() -> Webhooks {
    Webhooks::new()
        .defaulter(defaulter_fn(|_: &AdmissionContext, w: &mut Widget| {
            let mut warnings = vec![];
            if w.spec.size == 0 {
                w.spec.size = 1;
                warnings.push("spec.size defaulted to 1".into());
            }
            w.spec.color.get_or_insert_with(|| "blue".into());
            w.metadata
                .labels
                .get_or_insert_default()
                .insert("example.com/defaulted".into(), "true".into());
            Ok(warnings)
        }))
        .validator(SizeRules)
        .validator_at("/validate-unlucky", Unlucky)
        .conversion(Conversion::<Widget>::hub().spoke::<WidgetV2>())
}

async fn widget_server() -> (Running, Client) {
    let cert = TestCert::new();
    let running = start(widget_webhooks(), cert.certificates()).await;
    let client = Client::connect(running.addr, client_config(&[&cert])).await;
    (running, client)
}

#[tokio::test]
async fn defaulting_answers_with_a_json_patch_that_keeps_unknown_fields() {
    let (_server, mut client) = widget_server().await;
    let response = client
        .review(
            MUTATE,
            &admission_review("d-1", "CREATE", Some(widget(0)), None),
        )
        .await;
    assert_eq!(response["uid"], "d-1");
    assert_eq!(response["allowed"], true);
    assert_eq!(response["patchType"], "JSONPatch");
    assert_eq!(response["warnings"], json!(["spec.size defaulted to 1"]));
    let patch: Value = serde_json::from_slice(&patch_bytes(&response["patch"])).unwrap();
    assert_eq!(
        patch,
        json!([
            {"op": "add", "path": "/metadata/labels", "value": {"example.com/defaulted": "true"}},
            {"op": "add", "path": "/spec/color", "value": "blue"},
            {"op": "replace", "path": "/spec/size", "value": 1},
        ])
    );
    // Applied to the object as sent, the patch keeps what Widget does not know.
    let mut object = widget(0);
    json_patch::patch(
        &mut object,
        &serde_json::from_value::<json_patch::Patch>(patch).unwrap(),
    )
    .unwrap();
    assert_eq!(object["spec"]["futureField"], json!({"kept": true}));
    assert_eq!(object["spec"]["size"], 1);

    // Already defaulted: allowed, no patch.
    let mut done = widget(4);
    done["spec"]["color"] = json!("red");
    done["metadata"]["labels"] = json!({"example.com/defaulted": "true"});
    let response = client
        .review(
            MUTATE,
            &admission_review("d-2", "UPDATE", Some(done.clone()), Some(done)),
        )
        .await;
    assert_eq!(response["allowed"], true);
    assert_eq!(response.get("patch"), None);
    assert_eq!(response.get("patchType"), None);
}

#[tokio::test]
async fn validation_allows_denies_and_warns_on_create_update_and_delete() {
    let (_server, mut client) = widget_server().await;
    let review = |uid, operation, object, old| admission_review(uid, operation, object, old);

    let ok = client
        .review(VALIDATE, &review("v-1", "CREATE", Some(widget(3)), None))
        .await;
    assert_eq!(
        (ok["uid"].as_str(), ok["allowed"].as_bool()),
        (Some("v-1"), Some(true))
    );
    assert_eq!(ok.get("warnings"), None);

    let warned = client
        .review(VALIDATE, &review("v-2", "CREATE", Some(widget(0)), None))
        .await;
    assert_eq!(warned["allowed"], true);
    assert_eq!(
        warned["warnings"],
        json!(["a widget of size 0 does nothing"])
    );

    let denied = client
        .review(VALIDATE, &review("v-3", "CREATE", Some(widget(11)), None))
        .await;
    assert_eq!(denied["allowed"], false);
    assert_eq!(denied["status"]["message"], "spec.size must be at most 10");
    assert_eq!(denied["status"]["reason"], "Invalid");
    assert_eq!(denied["status"]["code"], 422);

    let shrink = client
        .review(
            VALIDATE,
            &review("v-4", "UPDATE", Some(widget(2)), Some(widget(5))),
        )
        .await;
    assert_eq!(shrink["allowed"], true);
    assert_eq!(shrink["warnings"], json!(["shrinking from 5 to 2"]));

    let grow = client
        .review(
            VALIDATE,
            &review("v-5", "UPDATE", Some(widget(12)), Some(widget(5))),
        )
        .await;
    assert_eq!(grow["allowed"], false);
    assert_eq!(grow["warnings"], json!(["it was 5"]));

    let delete_full = client
        .review(VALIDATE, &review("v-6", "DELETE", None, Some(widget(5))))
        .await;
    assert_eq!(delete_full["allowed"], false);
    assert_eq!(
        delete_full["status"]["message"],
        "scale the widget to 0 before deleting it"
    );
    assert_eq!(delete_full["status"]["code"], 409);

    let delete_empty = client
        .review(VALIDATE, &review("v-7", "DELETE", None, Some(widget(0))))
        .await;
    assert_eq!(delete_empty["allowed"], true);
}

#[tokio::test]
async fn conversion_both_ways_through_the_hub() {
    let (_server, mut client) = widget_server().await;
    let mut v1 = widget(3);
    v1["spec"]["color"] = json!("green");
    v1["metadata"]["annotations"] = json!({"note": "n"});
    let review = client
        .review(
            "/convert",
            &conversion_review("c-1", "example.com/v2", vec![v1.clone(), widget(1)]),
        )
        .await;
    assert_eq!(review["uid"], "c-1");
    assert_eq!(review["result"]["status"], "Success");
    let converted = review["convertedObjects"].as_array().unwrap().clone();
    assert_eq!(
        converted[0],
        json!({
            "apiVersion": "example.com/v2",
            "kind": "Widget",
            "metadata": v1["metadata"],
            "spec": {"replicas": 3, "paint": "green"},
        })
    );
    assert_eq!(converted[1]["spec"], json!({"replicas": 1}));

    let back = client
        .review(
            "/convert",
            &conversion_review("c-2", "example.com/v1", converted),
        )
        .await;
    assert_eq!(back["result"]["status"], "Success");
    assert_eq!(
        back["convertedObjects"][0],
        json!({
            "apiVersion": "example.com/v1",
            "kind": "Widget",
            "metadata": v1["metadata"],
            "spec": {"size": 3, "color": "green"},
        })
    );

    let failed = client
        .review(
            "/convert",
            &conversion_review("c-3", "example.com/v2", vec![widget(-2)]),
        )
        .await;
    assert_eq!(failed["uid"], "c-3");
    assert_eq!(failed["result"]["status"], "Failure");
    assert_eq!(
        failed["result"]["message"],
        "object 0 (ns/w): converting example.com/v1 to example.com/v2: size -2 is not a replica count"
    );
}

#[tokio::test]
async fn a_panicking_handler_is_a_denial_and_the_server_goes_on() {
    let (_server, mut client) = widget_server().await;
    for uid in ["p-1", "p-2"] {
        let response = client
            .review(
                "/validate-unlucky",
                &admission_review(uid, "CREATE", Some(widget(13)), None),
            )
            .await;
        assert_eq!(response["uid"], uid);
        assert_eq!(response["allowed"], false);
        assert_eq!(response["status"]["code"], 500);
    }
    let response = client
        .review(
            "/validate-unlucky",
            &admission_review("p-3", "CREATE", Some(widget(12)), None),
        )
        .await;
    assert_eq!(response["allowed"], true);
}

/// The server counts every request to a webhook's path under controller-runtime's names,
/// on the metrics the manager serves: answers by status code, latency, requests in flight,
/// handler panics.
#[tokio::test]
async fn webhook_requests_are_counted_in_the_managers_metrics() {
    let cert = TestCert::new();
    let metrics = Arc::new(operator_runtime::Metrics::new());
    let server = start_with(
        WebhookOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            certificates: cert.certificates(),
            metrics: Some(metrics.clone()),
            ..Default::default()
        },
        widget_webhooks(),
    )
    .await;
    let mut client = Client::connect(server.addr, client_config(&[&cert])).await;
    for (uid, size) in [("m-1", 0), ("m-2", 4)] {
        let review = admission_review(uid, "CREATE", Some(widget(size)), None);
        assert_eq!(client.review(MUTATE, &review).await["allowed"], true);
    }
    let review = admission_review("m-3", "CREATE", Some(widget(13)), None);
    assert_eq!(
        client.review("/validate-unlucky", &review).await["allowed"],
        false
    );
    let not_json = http::Request::post(MUTATE)
        .header("host", "localhost")
        .header("content-type", "text/plain")
        .body(http_body_util::Full::new(bytes::Bytes::from_static(b"hi")))
        .unwrap();
    assert_eq!(client.send(not_json).await.0, 415);
    // What the metrics endpoint serves.
    let scraped = metrics.encode();
    for line in [
        format!("controller_runtime_webhook_requests_total{{webhook=\"{MUTATE}\",code=\"200\"}} 2"),
        format!("controller_runtime_webhook_requests_total{{webhook=\"{MUTATE}\",code=\"415\"}} 1"),
        "controller_runtime_webhook_requests_total{webhook=\"/validate-unlucky\",code=\"200\"} 1"
            .into(),
        format!("controller_runtime_webhook_latency_seconds_count{{webhook=\"{MUTATE}\"}} 3"),
        format!("controller_runtime_webhook_requests_in_flight{{webhook=\"{MUTATE}\"}} 0"),
        "controller_runtime_webhook_panics_total 1".into(),
    ] {
        assert!(scraped.contains(&line), "{line} missing from\n{scraped}");
    }
}

fn free_addr() -> std::net::SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

/// The status code of `GET /readyz` on `addr`, once something answers there.
async fn readyz(addr: std::net::SocketAddr) -> u16 {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    for _ in 0..500 {
        if let Ok(mut stream) = tokio::net::TcpStream::connect(addr).await {
            let request = "GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
            stream.write_all(request.as_bytes()).await.unwrap();
            let mut response = String::new();
            stream.read_to_string(&mut response).await.unwrap();
            return response[9..12].parse().unwrap();
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("nothing serves {addr}");
}

/// The manager owns the webhook server when given the handlers: it serves them before the
/// controllers start, `/readyz` waits for it, its requests are counted in the manager's
/// metrics, and it stops with the manager.
#[tokio::test]
async fn the_manager_serves_the_webhooks_it_is_given() {
    let cert = TestCert::new();
    let (webhooks, health) = (free_addr(), free_addr());
    let metrics = Arc::new(operator_runtime::Metrics::new());
    let shutdown = tokio_util::sync::CancellationToken::new();
    // No leader election: the manager makes no request with this client.
    let client =
        kube::Client::try_from(kube::Config::new("http://127.0.0.1:9".parse().unwrap())).unwrap();
    let options = operator_runtime::ManagerOptions {
        name: "test-operator".into(),
        metrics_addr: None,
        health_addr: Some(health),
        leader_election: None,
        reconcile: Default::default(),
    };
    let manager = tokio::spawn(
        operator_runtime::Manager::new(client, metrics.clone(), options)
            .webhooks(
                WebhookOptions {
                    addr: webhooks,
                    certificates: cert.certificates(),
                    ..Default::default()
                },
                widget_webhooks(),
            )
            .shutdown(shutdown.clone())
            .run(|runtime| async move { runtime.stopped().await }),
    );
    let mut ready = readyz(health).await;
    for _ in 0..200 {
        if ready == 200 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        ready = readyz(health).await;
    }
    assert_eq!(ready, 200);
    let mut client = Client::connect(webhooks, client_config(&[&cert])).await;
    let review = admission_review("mgr-1", "CREATE", Some(widget(0)), None);
    assert_eq!(client.review(MUTATE, &review).await["allowed"], true);
    let line =
        format!("controller_runtime_webhook_requests_total{{webhook=\"{MUTATE}\",code=\"200\"}} 1");
    assert!(metrics.encode().contains(&line), "{}", metrics.encode());
    shutdown.cancel();
    manager.await.unwrap().unwrap();
    assert!(
        tokio::net::TcpStream::connect(webhooks).await.is_err(),
        "the webhook server stopped with the manager"
    );
}

/// A mistake in the handlers' registration stops the manager before anything starts.
#[tokio::test]
async fn the_manager_reports_webhook_registration_mistakes() {
    let client =
        kube::Client::try_from(kube::Config::new("http://127.0.0.1:9".parse().unwrap())).unwrap();
    let options = operator_runtime::ManagerOptions {
        name: "test-operator".into(),
        metrics_addr: None,
        health_addr: None,
        leader_election: None,
        reconcile: Default::default(),
    };
    let taken_twice = Webhooks::new()
        .validator_at("/validate-x", SizeRules)
        .validator_at("/validate-x", SizeRules);
    let err =
        operator_runtime::Manager::new(client, Arc::new(operator_runtime::Metrics::new()), options)
            .webhooks(WebhookOptions::default(), taken_twice)
            .shutdown(tokio_util::sync::CancellationToken::new())
            .run(|_| async { panic!("the controllers must not start") })
            .await
            .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("starting the webhook server: webhook registration"),
        "{err}"
    );
}

#[tokio::test]
async fn health_path_and_readiness() {
    let (server, mut client) = widget_server().await;
    let get = |path: &str| {
        http::Request::get(path)
            .header("host", "localhost")
            .body(http_body_util::Full::default())
            .unwrap()
    };
    let (status, body) = client.send(get("/healthz")).await;
    assert_eq!((status, &body[..]), (200, &b"ok\n"[..]));
    assert_eq!(client.send(get("/nowhere")).await.0, 404);
    // `run` has answered, so it has marked itself ready.
    assert!(server.readiness.is_ready());
    server.shutdown.cancel();
    server.task.await.unwrap();
    assert!(!server.readiness.is_ready());
}

#[tokio::test]
async fn certificates_are_reloaded_when_the_files_change() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (TestCert::new(), TestCert::new());
    // As the kubelet does: new files renamed into place.
    let install = |cert: &TestCert| {
        for (name, pem) in [("tls.crt", &cert.cert_pem), ("tls.key", &cert.key_pem)] {
            let tmp = dir.path().join(format!(".{name}.tmp"));
            std::fs::write(&tmp, pem).unwrap();
            std::fs::rename(&tmp, dir.path().join(name)).unwrap();
        }
    };
    install(&first);
    let server = start(widget_webhooks(), Certificates::in_dir(dir.path())).await;
    let trusts_both = client_config(&[&first, &second]);
    assert_eq!(
        served_certificate(server.addr, trusts_both.clone()).await,
        first.der
    );

    install(&second);
    assert_eq!(
        served_certificate(server.addr, trusts_both.clone()).await,
        second.der
    );
    // A client that only knows the new certificate gets answers.
    let mut client = Client::connect(server.addr, client_config(&[&second])).await;
    let response = client
        .review(
            VALIDATE,
            &admission_review("r-1", "CREATE", Some(widget(1)), None),
        )
        .await;
    assert_eq!(response["allowed"], true);

    // A broken renewal keeps the working certificate.
    std::fs::write(dir.path().join("tls.crt"), "not a certificate").unwrap();
    assert_eq!(
        served_certificate(server.addr, trusts_both).await,
        second.der
    );
}

/// Blocks each review until released, to hold a request in flight.
struct Gate {
    entered: Arc<Notify>,
    release: Arc<Notify>,
}

impl Validator<Widget> for Gate {
    async fn validate_create(&self, _: &AdmissionContext, _: &Widget) -> Outcome {
        self.entered.notify_one();
        self.release.notified().await;
        Ok(vec!["released".into()])
    }
}

#[tokio::test]
async fn shutdown_lets_the_request_in_flight_finish_and_refuses_new_connections() {
    let cert = TestCert::new();
    let (entered, release) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let gate = Gate {
        entered: entered.clone(),
        release: release.clone(),
    };
    let server = start(Webhooks::new().validator(gate), cert.certificates()).await;
    let mut client = Client::connect(server.addr, client_config(&[&cert])).await;
    let in_flight = tokio::spawn(async move {
        client
            .review(
                VALIDATE,
                &admission_review("s-1", "CREATE", Some(widget(1)), None),
            )
            .await
    });
    entered.notified().await;
    server.shutdown.cancel();
    // The listener closes (polling until it has: no timing is asserted).
    while tokio::net::TcpStream::connect(server.addr).await.is_ok() {
        tokio::task::yield_now().await;
    }
    assert!(!server.task.is_finished(), "a request is still in flight");
    release.notify_one();
    let response = in_flight.await.unwrap();
    assert_eq!(response["uid"], "s-1");
    assert_eq!(response["warnings"], json!(["released"]));
    server.task.await.unwrap();
}

/// splitmix64: a fixed seed gives the same requests on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())].clone()
    }

    /// Up to `max` random bytes.
    fn bytes(&mut self, max: usize) -> Vec<u8> {
        let n = self.below(max + 1);
        (0..n).map(|_| self.next() as u8).collect()
    }

    fn json(&mut self, depth: usize) -> Value {
        match self.below(if depth > 2 { 4 } else { 6 }) {
            0 => Value::Null,
            1 => json!(self.next() as i64),
            2 => {
                json!(String::from_utf8_lossy(&self.bytes(12)).into_owned())
            }
            3 => json!(self.below(2) == 0),
            4 => Value::Array((0..self.below(4)).map(|_| self.json(depth + 1)).collect()),
            _ => {
                let keys = [
                    "apiVersion",
                    "kind",
                    "request",
                    "uid",
                    "object",
                    "spec",
                    "x",
                ];
                Value::Object(
                    (0..self.below(4))
                        .map(|_| (self.pick(&keys).to_string(), self.json(depth + 1)))
                        .collect(),
                )
            }
        }
    }
}

fn http_request(method: &str, path: &str, content_type: Option<&str>, body: &[u8]) -> Vec<u8> {
    let content_type = content_type.map_or(String::new(), |ct| format!("Content-Type: {ct}\r\n"));
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n{content_type}Content-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    request
}

/// What a bad request must get.
#[derive(Debug)]
enum Expect {
    Status(u16),
    /// A client error from the HTTP parser.
    AnyClientError,
    /// 200 with a denial carrying the request's uid.
    Denied(String),
    /// 200 with a failed conversion.
    ConversionFailed,
}

const LIMIT: usize = 64 * 1024;

fn bad_request(rng: &mut Rng, case: usize) -> (Vec<u8>, Expect) {
    let admission_paths = [MUTATE, VALIDATE];
    let webhook_paths = [MUTATE, VALIDATE, "/convert"];
    let json_types = [
        "application/json",
        "application/json; charset=utf-8",
        "Application/JSON",
    ];
    match rng.below(12) {
        // Random bytes as the body.
        0 => {
            let body = rng.bytes(2048);
            let path = rng.pick(&webhook_paths);
            (
                http_request("POST", path, Some(rng.pick(&json_types)), &body),
                Expect::Status(400),
            )
        }
        // A valid review cut short.
        1 => {
            let review = if rng.below(3) == 0 {
                conversion_review("t", "example.com/v2", vec![widget(1)])
            } else {
                admission_review("t", "UPDATE", Some(widget(1)), Some(widget(2)))
            };
            let path = if review["kind"] == "ConversionReview" {
                "/convert"
            } else {
                rng.pick(&admission_paths)
            };
            let full = serde_json::to_vec(&review).unwrap();
            let body = &full[..rng.below(full.len())];
            (
                http_request("POST", path, Some("application/json"), body),
                Expect::Status(400),
            )
        }
        // A content type other than JSON, or none.
        2 => {
            let body = serde_json::to_vec(&admission_review("ct", "CREATE", Some(widget(1)), None))
                .unwrap();
            let types = [
                None,
                Some("text/plain"),
                Some("application/yaml"),
                Some("application/jsonx"),
                Some("application/x-www-form-urlencoded"),
                Some(""),
                Some("json"),
            ];
            let path = rng.pick(&webhook_paths);
            (
                http_request("POST", path, rng.pick(&types), &body),
                Expect::Status(415),
            )
        }
        // A method other than POST.
        3 => {
            let method = rng.pick(&["GET", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]);
            let path = rng.pick(&webhook_paths);
            (
                http_request(method, path, Some("application/json"), b"{}"),
                Expect::Status(405),
            )
        }
        // A body declared over the limit (only its start is sent).
        4 => {
            let declared = LIMIT + 1 + rng.below(4 * LIMIT);
            let path = rng.pick(&webhook_paths);
            let mut request = format!(
                "POST {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {declared}\r\n\r\n"
            )
            .into_bytes();
            request.extend(rng.bytes(1024));
            (request, Expect::Status(413))
        }
        // A chunked body that grows over the limit.
        5 => {
            let path = rng.pick(&webhook_paths);
            let mut request = format!(
                "POST {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            )
            .into_bytes();
            let total = LIMIT + 1 + rng.below(LIMIT);
            let mut sent = 0;
            while sent < total {
                let chunk = (1 + rng.below(16 * 1024)).min(total - sent);
                request.extend(format!("{chunk:x}\r\n").bytes());
                request.extend(std::iter::repeat_n(b' ', chunk));
                request.extend(b"\r\n");
                sent += chunk;
            }
            request.extend(b"0\r\n\r\n");
            (request, Expect::Status(413))
        }
        // A well-formed review of something that is not a v1 Widget.
        6 | 7 => {
            let uid = format!("wrong-kind-{case}");
            let mut object = widget(1);
            let mut old = None;
            let mut operation = "CREATE";
            let mut request_kind = None;
            match rng.below(9) {
                0 => object["kind"] = json!("Gadget"),
                1 => object["apiVersion"] = json!("example.com/v2"),
                2 => object["spec"]["size"] = json!("ten"),
                3 => {
                    object.as_object_mut().unwrap().remove("spec");
                }
                4 => object = rng.pick(&[json!(5), json!("widget"), json!([1, 2]), json!(true)]),
                5 => object["metadata"] = json!(5),
                6 => {
                    request_kind =
                        Some(json!({"group": "apps", "version": "v1", "kind": "Deployment"}))
                }
                7 => {
                    operation = "UPDATE";
                    old = None;
                }
                _ => {
                    operation = "UPDATE";
                    old = Some(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}}));
                }
            }
            let mut review = admission_review(&uid, operation, Some(object), old);
            if let Some(kind) = request_kind {
                review["request"]["kind"] = kind;
            }
            // Defaulting reads only `object`: mistakes in `oldObject` are validation's.
            let path = if operation == "UPDATE" {
                VALIDATE
            } else {
                rng.pick(&admission_paths)
            };
            let body = serde_json::to_vec(&review).unwrap();
            (
                http_request("POST", path, Some("application/json"), &body),
                Expect::Denied(uid),
            )
        }
        // Reviews of the wrong type or version, or without a request.
        8 => {
            let mut review = admission_review("x", "CREATE", Some(widget(1)), None);
            match rng.below(6) {
                0 => review["apiVersion"] = json!("admission.k8s.io/v1beta1"),
                1 => review["kind"] = json!("ConversionReview"),
                2 => {
                    review.as_object_mut().unwrap().remove("request");
                }
                3 => {
                    review["request"].as_object_mut().unwrap().remove("uid");
                }
                4 => review["request"]["operation"] = json!("EXPLODE"),
                _ => review["request"]["userInfo"] = json!("root"),
            }
            let path = rng.pick(&admission_paths);
            let body = serde_json::to_vec(&review).unwrap();
            if rng.below(4) == 0 {
                // The same mistakes at the conversion path.
                let mut review = conversion_review("x", "example.com/v2", vec![]);
                match rng.below(3) {
                    0 => review["apiVersion"] = json!("apiextensions.k8s.io/v1beta1"),
                    1 => {
                        review.as_object_mut().unwrap().remove("request");
                    }
                    _ => review["request"]["objects"] = json!({}),
                }
                let body = serde_json::to_vec(&review).unwrap();
                return (
                    http_request("POST", "/convert", Some("application/json"), &body),
                    Expect::Status(400),
                );
            }
            (
                http_request("POST", path, Some("application/json"), &body),
                Expect::Status(400),
            )
        }
        // Random JSON.
        9 => {
            let body = serde_json::to_vec(&rng.json(0)).unwrap();
            let path = rng.pick(&webhook_paths);
            (
                http_request("POST", path, Some("application/json"), &body),
                Expect::Status(400),
            )
        }
        // Conversions of what the webhook does not convert.
        10 => {
            let mut object = widget(1);
            match rng.below(4) {
                0 => object["kind"] = json!("Gadget"),
                1 => object["apiVersion"] = json!("example.com/v9"),
                2 => object["spec"] = json!("nope"),
                _ => {
                    object.as_object_mut().unwrap().remove("apiVersion");
                }
            }
            let review = conversion_review(
                "cv",
                // Not the object's own version: that is returned as it is.
                rng.pick(&["example.com/v2", "other.io/v1"]),
                vec![object],
            );
            let body = serde_json::to_vec(&review).unwrap();
            (
                http_request("POST", "/convert", Some("application/json"), &body),
                Expect::ConversionFailed,
            )
        }
        // Paths that serve nothing, and bytes that are not HTTP.
        _ => {
            if rng.below(2) == 0 {
                let path = format!(
                    "/{}",
                    rng.pick(&["mutate", "validate-x", "convert/x", "healthz/x", "a/b/c"])
                );
                (
                    http_request("POST", &path, Some("application/json"), b"{}"),
                    Expect::Status(404),
                )
            } else {
                let mut garbage = b"X".to_vec();
                garbage.extend(rng.bytes(200).into_iter().map(|b| b' ' + b % 95));
                garbage.extend(b"\r\n\r\n");
                (garbage, Expect::AnyClientError)
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_bad_requests_are_answered_and_the_server_keeps_serving() {
    let cert = TestCert::new();
    let server = start_with(
        WebhookOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            certificates: cert.certificates(),
            max_request_bytes: LIMIT,
            ..Default::default()
        },
        widget_webhooks(),
    )
    .await;
    let config = client_config(&[&cert]);
    let mut rng = Rng(0x0005_eed0_fbad_1e57);
    let cases: Vec<_> = (0..1200).map(|case| bad_request(&mut rng, case)).collect();
    let answers: Vec<_> = futures::stream::iter(cases.iter())
        .map(|(request, _)| raw_exchange(server.addr, config.clone(), request))
        .buffered(8)
        .collect()
        .await;

    let mut failures = Vec::new();
    let mut counts = std::collections::BTreeMap::new();
    for (index, ((request, expect), answer)) in cases.iter().zip(&answers).enumerate() {
        let ok = match (expect, answer) {
            (_, None) => false,
            (Expect::Status(want), Some((status, _))) => status == want,
            (Expect::AnyClientError, Some((status, _))) => (400..500).contains(status),
            (Expect::Denied(uid), Some((200, body))) => {
                let review: Value = serde_json::from_slice(body).unwrap_or_default();
                let response = &review["response"];
                response["uid"] == uid.as_str()
                    && response["allowed"] == false
                    && response["status"]["code"] == 400
                    && !response["status"]["message"]
                        .as_str()
                        .unwrap_or("")
                        .is_empty()
            }
            (Expect::ConversionFailed, Some((200, body))) => {
                let review: Value = serde_json::from_slice(body).unwrap_or_default();
                review["response"]["result"]["status"] == "Failure"
                    && review["response"]["uid"] == "cv"
            }
            _ => false,
        };
        *counts.entry(answer.as_ref().map(|a| a.0)).or_insert(0) += 1;
        if !ok {
            failures.push(format!(
                "case {index}: expected {expect:?}, got {:?} for {:?}",
                answer
                    .as_ref()
                    .map(|(s, b)| (s, String::from_utf8_lossy(b).into_owned())),
                String::from_utf8_lossy(&request[..request.len().min(300)])
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} wrong:\n{}",
        failures.len(),
        cases.len(),
        failures[..failures.len().min(10)].join("\n")
    );
    eprintln!("answers by status: {counts:?}");
    // Every kind of answer was exercised.
    for status in [200, 400, 404, 405, 413, 415] {
        assert!(
            counts.get(&Some(status)).copied().unwrap_or(0) > 10,
            "{counts:?}"
        );
    }

    let mut client = Client::connect(server.addr, config).await;
    let response = client
        .review(
            VALIDATE,
            &admission_review("after", "CREATE", Some(widget(2)), None),
        )
        .await;
    assert_eq!(response["uid"], "after");
    assert_eq!(response["allowed"], true);
}

#[tokio::test]
async fn the_default_body_limit_refuses_more_than_7_mib() {
    let cert = TestCert::new();
    let server = start(widget_webhooks(), cert.certificates()).await;
    let mut object = widget(1);
    object["spec"]["padding"] = json!("x".repeat(7 * 1024 * 1024));
    let body = serde_json::to_vec(&admission_review("big", "CREATE", Some(object), None)).unwrap();
    let answer = raw_exchange(
        server.addr,
        client_config(&[&cert]),
        &http_request("POST", VALIDATE, Some("application/json"), &body),
    )
    .await;
    assert_eq!(answer.map(|a| a.0), Some(413));

    // 3 MiB objects (the API server's limit), twice in an UPDATE, fit.
    let mut object = widget(1);
    object["spec"]["padding"] = json!("x".repeat(3 * 1024 * 1024 - 512));
    let review = admission_review("fits", "UPDATE", Some(object.clone()), Some(object));
    let mut client = Client::connect(server.addr, client_config(&[&cert])).await;
    assert_eq!(client.review(VALIDATE, &review).await["allowed"], true);
}

/// The bytes of `response.patch`: Go's JSON decoder takes a byte slice as base64 or as an
/// array of numbers (what kube's `AdmissionResponse` writes).
fn patch_bytes(patch: &Value) -> Vec<u8> {
    match patch {
        Value::String(text) => base64_decode(text),
        Value::Array(numbers) => numbers.iter().map(|n| n.as_u64().unwrap() as u8).collect(),
        other => panic!("patch is {other}"),
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=').map(value).collect();
    digits
        .chunks(4)
        .flat_map(|chunk| {
            let n =
                chunk.iter().fold(0u32, |n, &d| n << 6 | u32::from(d)) << (6 * (4 - chunk.len()));
            let bytes = n.to_be_bytes();
            bytes[1..chunk.len()].to_vec()
        })
        .collect()
}
