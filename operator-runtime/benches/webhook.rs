//! Admission round trips over TLS against the webhook server on 127.0.0.1: a validating
//! review of a small object, as the API server sends one.
//!
//! 1. Latency: one keep-alive connection, reviews one after the other; p50, p99, max.
//! 2. Load: 32 keep-alive connections, each sending its next review as soon as the last is
//!    answered, for a fixed time; reviews per second, p50 and p99 under that load.
//! 3. Target load: 32 keep-alive connections sending 5,000 reviews/s between them, evenly
//!    paced; p50 and p99 at that rate (what the API server sees when the webhook is busy but
//!    not saturated).
//!
//! The server runs in its own 2-worker runtime, as in an operator; the clients in another.
//! Both share the machine's cores, so the numbers include the clients' TLS and HTTP work.
//!
//! `cargo bench -p operator-runtime --bench webhook`; `WEBHOOK_BENCH_SECS` sets the time of
//! each measured phase (default 5). Under `cargo test --all-targets` (no `--bench` argument)
//! each phase runs for 0.2 s: a check that the bench works, not a measurement.

#[path = "../tests/support/mod.rs"]
mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::Request;
use http_body_util::Full;
use operator_runtime::webhook::{AdmissionContext, Denial, Outcome, Validator, Webhooks};
use rustls::ClientConfig;
use support::*;

struct SizeRules;

impl Validator<Widget> for SizeRules {
    async fn validate_create(&self, _: &AdmissionContext, w: &Widget) -> Outcome {
        if w.spec.size > 10 {
            return Err(Denial::invalid("spec.size must be at most 10"));
        }
        Ok(vec![])
    }
}

fn review_request(body: &Bytes) -> Request<Full<Bytes>> {
    Request::post(VALIDATE)
        .header("host", "localhost")
        .header("content-type", "application/json")
        .body(Full::new(body.clone()))
        .unwrap()
}

async fn round_trip(client: &mut Client, body: &Bytes) {
    let (status, answer) = client.send(review_request(body)).await;
    assert!(
        status == 200 && memchr(&answer, b"\"allowed\":true"),
        "{status}: {}",
        String::from_utf8_lossy(&answer)
    );
}

fn memchr(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

struct Summary {
    count: usize,
    p50: Duration,
    p99: Duration,
    max: Duration,
}

fn summarize(mut latencies: Vec<Duration>) -> Summary {
    latencies.sort_unstable();
    let at = |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
    Summary {
        count: latencies.len(),
        p50: at(0.50),
        p99: at(0.99),
        max: *latencies.last().unwrap(),
    }
}

/// Reviews on `connections` connections, each waiting for its answer before the next, for
/// `time`: every latency, and the wall time.
async fn load(
    addr: std::net::SocketAddr,
    config: Arc<ClientConfig>,
    body: Bytes,
    connections: usize,
    time: Duration,
) -> (Vec<Duration>, Duration) {
    let mut clients = Vec::new();
    for _ in 0..connections {
        clients.push(Client::connect(addr, config.clone()).await);
    }
    let start = Instant::now();
    let deadline = start + time;
    let tasks: Vec<_> = clients
        .into_iter()
        .map(|mut client| {
            let body = body.clone();
            tokio::spawn(async move {
                let mut latencies = Vec::with_capacity(100_000);
                while Instant::now() < deadline {
                    let sent = Instant::now();
                    round_trip(&mut client, &body).await;
                    latencies.push(sent.elapsed());
                }
                latencies
            })
        })
        .collect();
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.unwrap());
    }
    (all, start.elapsed())
}

/// Reviews on `connections` connections sending `rate` reviews/s between them, each
/// connection at even intervals, for `time`.
async fn paced(
    addr: std::net::SocketAddr,
    config: Arc<ClientConfig>,
    body: Bytes,
    connections: usize,
    rate: f64,
    time: Duration,
) -> (Vec<Duration>, Duration) {
    let mut clients = Vec::new();
    for _ in 0..connections {
        clients.push(Client::connect(addr, config.clone()).await);
    }
    let interval = Duration::from_secs_f64(connections as f64 / rate);
    let start = tokio::time::Instant::now();
    let deadline = start + time;
    let tasks: Vec<_> = clients
        .into_iter()
        .enumerate()
        .map(|(i, mut client)| {
            let body = body.clone();
            // Staggered, so that the connections do not all send at once.
            let mut next = start + interval.mul_f64(i as f64 / connections as f64);
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                while next < deadline {
                    tokio::time::sleep_until(next).await;
                    let sent = Instant::now();
                    round_trip(&mut client, &body).await;
                    latencies.push(sent.elapsed());
                    next += interval;
                }
                latencies
            })
        })
        .collect();
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.unwrap());
    }
    (all, start.elapsed())
}

fn report(name: &str, summary: &Summary, wall: Duration) {
    println!(
        "{name}: {} reviews in {:.2} s = {:.0} reviews/s; latency p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        summary.count,
        wall.as_secs_f64(),
        summary.count as f64 / wall.as_secs_f64(),
        summary.p50.as_secs_f64() * 1e3,
        summary.p99.as_secs_f64() * 1e3,
        summary.max.as_secs_f64() * 1e3,
    );
}

fn main() {
    // libtest's `--ignored` runs the ignored tests alone, and this bench is none:
    // `cargo xtask test` runs those in a lane of their own.
    if std::env::args().any(|a| a == "--ignored") {
        return;
    }
    let secs = std::env::var("WEBHOOK_BENCH_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if std::env::args().any(|a| a == "--bench") {
            5.0
        } else {
            0.2
        });
    let phase = Duration::from_secs_f64(secs);
    let runtime = |name: &str| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name(name)
            .enable_all()
            .build()
            .unwrap()
    };
    let server_runtime = runtime("webhook-server");
    let clients = runtime("clients");

    let cert = TestCert::new();
    let server = server_runtime
        .block_on(async { start(Webhooks::new().validator(SizeRules), cert.certificates()).await });
    let config = client_config(&[&cert]);
    let body = Bytes::from(
        serde_json::to_vec(&admission_review("bench", "CREATE", Some(widget(3)), None)).unwrap(),
    );
    println!(
        "validating AdmissionReview of {} bytes, TLS 1.3, HTTP/1.1 keep-alive, {} s per phase",
        body.len(),
        secs
    );

    // Warm up: connections, allocator, branch predictors.
    clients.block_on(load(
        server.addr,
        config.clone(),
        body.clone(),
        4,
        Duration::from_millis(500),
    ));

    let (latencies, wall) =
        clients.block_on(load(server.addr, config.clone(), body.clone(), 1, phase));
    report("1 connection, sequential", &summarize(latencies), wall);

    let (latencies, wall) =
        clients.block_on(load(server.addr, config.clone(), body.clone(), 32, phase));
    report("32 connections, concurrent", &summarize(latencies), wall);

    let (latencies, wall) = clients.block_on(paced(
        server.addr,
        config.clone(),
        body.clone(),
        32,
        5000.0,
        phase,
    ));
    report(
        "32 connections, 5,000 reviews/s offered",
        &summarize(latencies),
        wall,
    );

    server.shutdown.cancel();
    server_runtime.block_on(server.task).unwrap();
}
