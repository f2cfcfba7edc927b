//! The client's answer to an API server that says "too many requests": fewer requests in
//! flight, not only each request waiting its turn.
//!
//! kube's client retries a 429 by itself, after the `Retry-After` the API server sends. That
//! is right for one request, but an operator sends many at once (its workers, its list pages,
//! its status writes), and an API server throttling it with API Priority and Fairness has a
//! few seats for the operator's flow, often none to queue in. Each request retried on its own
//! comes back at the same moment as the others, finds the seats taken, and waits again, longer
//! each time: the seats stand idle between the retries while the operator crawls. Measured at
//! N = 1,000 with one seat (`cargo xtask bench-operator --faults`): about 4 requests a second
//! served, and 12 with the limit below.
//!
//! [`Backpressure`] keeps a limit on the requests in flight, as TCP keeps its congestion
//! window. It starts unlimited, so that an API server that never refuses sees no difference.
//! A 429 halves the limit (what was in flight, halved, at least one), once per burst of
//! refusals; each answer that is not a 429 raises it by a fraction, so that a window of
//! answers (and at least eight) raises it by one, until it is unlimited again.
//! A request over the limit waits in the client, not at the API server, and is sent as soon as
//! another answer comes back: the seat is used back to back.
//!
//! Watches and leases are not limited. A watch holds its connection for minutes, so it would
//! hold a place in the limit for as long; a lease renewal that waited behind a queue of work
//! could lose the operator its leadership.

use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use futures::future::BoxFuture;
use http::{Request, Response, StatusCode};
use prometheus_client::metrics::{counter::Counter, gauge::Gauge};
use tokio::sync::Notify;
use tower::{Layer, Service, buffer::Buffer};

/// The limit at which it stops being enforced again, once raised back after the API server
/// refused: more requests than an operator's workers and list pages have in flight.
const CEILING: f64 = 64.0;

/// Raising the limit by one takes at least this many answers. At a limit of one, TCP's "one
/// over the limit per answer" would double it with the next answer and be refused at once:
/// against an API server with one seat for the flow, half the requests would be 429s.
const PROBE: f64 = 8.0;

/// How many requests a client may have in flight, shared by all its clones.
#[derive(Debug)]
pub struct Limit {
    state: Mutex<State>,
    freed: Notify,
    /// The 429s answered.
    refused: Counter,
    /// The limit as a metric: 0 while unlimited.
    shown: Gauge,
}

#[derive(Debug)]
struct State {
    /// The window; `None` while unlimited. Fractional, so that raising it by a fraction per
    /// answer raises it by one per window of answers.
    limit: Option<f64>,
    in_flight: usize,
    /// Counts the halvings. A 429 to a request sent before the last halving says nothing
    /// about the limit that halving set, so it does not halve again: one burst of refusals
    /// is one halving, as TCP halves once per round trip.
    epoch: u64,
}

impl Default for Limit {
    fn default() -> Self {
        Self {
            state: Mutex::new(State {
                limit: None,
                in_flight: 0,
                epoch: 0,
            }),
            freed: Notify::new(),
            refused: Counter::default(),
            shown: Gauge::default(),
        }
    }
}

impl Limit {
    /// An unlimited limit that counts the 429s in `refused` and shows itself in `limit` (0
    /// while unlimited).
    pub fn reporting(refused: Counter, limit: Gauge) -> Self {
        Self {
            refused,
            shown: limit,
            ..Self::default()
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .expect("the limit's lock is never poisoned")
    }

    /// The current limit on requests in flight, `None` when unlimited.
    pub fn current(&self) -> Option<usize> {
        self.state().limit.map(|limit| limit as usize)
    }

    /// How many answers were 429s.
    pub fn refused(&self) -> u64 {
        self.refused.get()
    }

    fn try_acquire(self: &Arc<Self>) -> Option<Permit> {
        let mut state = self.state();
        if state
            .limit
            .is_some_and(|limit| state.in_flight as f64 >= limit.floor())
        {
            return None;
        }
        state.in_flight += 1;
        Some(Permit {
            limit: self.clone(),
            epoch: state.epoch,
        })
    }

    fn show(&self, state: &State) {
        self.shown.set(state.limit.map_or(0, |limit| limit as i64));
    }

    /// Waits until the limit lets one more request out.
    async fn acquire(self: &Arc<Self>) -> Permit {
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            freed.as_mut().enable();
            if let Some(permit) = self.try_acquire() {
                return permit;
            }
            freed.await;
        }
    }

    /// Takes the API server's answer to `permit`'s request into account: a 429 halves the
    /// limit, anything else raises it.
    fn answered(&self, permit: &Permit, refused: bool) {
        let mut state = self.state();
        if refused {
            self.refused.inc();
            if permit.epoch == state.epoch {
                let window = state.limit.unwrap_or(f64::MAX).min(state.in_flight as f64);
                state.limit = Some((window / 2.0).max(1.0));
                state.epoch += 1;
                self.show(&state);
            }
        } else if let Some(limit) = state.limit {
            let raised = limit + 1.0 / limit.max(PROBE);
            state.limit = (raised < CEILING).then_some(raised);
            self.show(&state);
            drop(state);
            // A place may have opened without a request ending.
            self.freed.notify_waiters();
        }
    }
}

/// One request's place in the limit, given back when dropped.
struct Permit {
    limit: Arc<Limit>,
    epoch: u64,
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.limit.state().in_flight -= 1;
        self.limit.freed.notify_waiters();
    }
}

/// Whether a request stays out of the limit: a watch, or a Lease (leader election).
fn exempt<B>(request: &Request<B>) -> bool {
    let watch = request.uri().query().is_some_and(|query| {
        query
            .split('&')
            .any(|pair| pair == "watch=true" || pair == "watch=1")
    });
    watch || request.uri().path().contains("/coordination.k8s.io/")
}

/// A [`Layer`] that puts [`Limit`] on a client's requests. Put it inside the retries, so that
/// every 429 reaches it.
#[derive(Clone, Debug)]
pub struct BackpressureLayer {
    limit: Arc<Limit>,
}

impl BackpressureLayer {
    /// A layer whose services share `limit`.
    pub fn new(limit: Arc<Limit>) -> Self {
        Self { limit }
    }
}

impl<S, B> Layer<S> for BackpressureLayer
where
    S: Service<Request<kube::client::Body>, Response = Response<B>> + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<tower::BoxError> + Send + Sync,
    B: Send + 'static,
{
    type Service = Backpressure<S, B>;

    fn layer(&self, inner: S) -> Self::Service {
        Backpressure {
            // The wait for a place happens in the request's future, so that a watch behind a
            // waiting request is not held up; the future calls the service, which must be
            // shared, and a buffer shares it.
            inner: Buffer::new(inner, 1024),
            limit: self.limit.clone(),
        }
    }
}

/// The service [`BackpressureLayer`] makes.
#[derive(Debug)]
pub struct Backpressure<S, B>
where
    S: Service<Request<kube::client::Body>, Response = Response<B>>,
{
    inner: Buffer<Request<kube::client::Body>, S::Future>,
    limit: Arc<Limit>,
}

impl<S, B> Clone for Backpressure<S, B>
where
    S: Service<Request<kube::client::Body>, Response = Response<B>>,
    S::Future: Send + 'static,
{
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            limit: self.limit.clone(),
        }
    }
}

impl<S, B> Service<Request<kube::client::Body>> for Backpressure<S, B>
where
    S: Service<Request<kube::client::Body>, Response = Response<B>> + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<tower::BoxError> + Send + Sync,
    B: Send + 'static,
{
    type Response = Response<B>;
    type Error = tower::BoxError;
    type Future = BoxFuture<'static, Result<Response<B>, tower::BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<kube::client::Body>) -> Self::Future {
        // The buffer's slot reserved by `poll_ready` belongs to this clone; the request is
        // sent by another, made ready when its place in the limit comes.
        let mut inner = self.inner.clone();
        std::mem::swap(&mut inner, &mut self.inner);
        let limit = self.limit.clone();
        Box::pin(async move {
            if exempt(&request) {
                return inner.call(request).await;
            }
            let permit = limit.acquire().await;
            let response = inner.call(request).await;
            if let Ok(answer) = &response {
                limit.answered(&permit, answer.status() == StatusCode::TOO_MANY_REQUESTS);
            }
            drop(permit);
            response
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
    use std::time::Duration;

    fn get(uri: &str) -> Request<kube::client::Body> {
        Request::get(uri).body(kube::client::Body::empty()).unwrap()
    }

    #[test]
    fn watches_and_leases_are_not_limited() {
        assert!(exempt(&get("/api/v1/pods?watch=true&resourceVersion=5")));
        assert!(exempt(&get(
            "/apis/coordination.k8s.io/v1/namespaces/ns/leases/op"
        )));
        assert!(!exempt(&get("/api/v1/pods?limit=500")));
        assert!(!exempt(&get("/api/v1/namespaces/watch/pods/watch")));
    }

    #[tokio::test]
    async fn a_burst_of_refusals_halves_the_limit_once() {
        let (refused, shown) = (Counter::default(), Gauge::default());
        let limit = Arc::new(Limit::reporting(refused.clone(), shown.clone()));
        let mut permits = Vec::new();
        for _ in 0..8 {
            permits.push(limit.try_acquire().expect("unlimited"));
        }
        assert_eq!(limit.current(), None);
        // All eight were sent before any refusal: one halving, from eight in flight.
        for permit in &permits {
            limit.answered(permit, true);
        }
        assert_eq!(limit.current(), Some(4));
        assert_eq!(limit.refused(), 8);
        assert_eq!((refused.get(), shown.get()), (8, 4));
        permits.truncate(3);
        let late = limit.try_acquire().expect("three of four in flight");
        assert!(
            limit.try_acquire().is_none(),
            "four in flight, at the limit"
        );
        // Refused although sent under the new limit: halves again.
        limit.answered(&late, true);
        assert_eq!(limit.current(), Some(2));
    }

    #[tokio::test]
    async fn answers_raise_the_limit_until_it_is_lifted() {
        let limit = Arc::new(Limit::default());
        let first = limit.try_acquire().unwrap();
        limit.answered(&first, true);
        assert_eq!(limit.current(), Some(1));
        drop(first);
        let mut answers = 0;
        while limit.current().is_some() {
            let permit = limit.try_acquire().expect("below the limit");
            limit.answered(&permit, false);
            answers += 1;
            assert!(answers < 10_000, "the limit never lifted");
        }
        // Eight answers a step up to the probe, then one window of answers a step.
        assert!((2_000..2_200).contains(&answers), "{answers} answers");
    }

    #[tokio::test]
    async fn a_request_over_the_limit_waits_for_a_place() {
        let limit = Arc::new(Limit::default());
        let first = limit.try_acquire().unwrap();
        limit.answered(&first, true);
        let waiting = tokio::spawn({
            let limit = limit.clone();
            async move { limit.acquire().await.epoch }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(
            !waiting.is_finished(),
            "sent while the only place was taken"
        );
        drop(first);
        let epoch = tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("woken when the place was given back")
            .unwrap();
        assert_eq!(epoch, 1);
    }

    /// An API server with one seat for the flow and no queue: a request that arrives while
    /// another is served is refused. Sixteen clients share it, each sending its requests one
    /// after the other and sending a refused one again after a millisecond.
    async fn one_seat(limited: bool) -> (u64, u64) {
        let busy = Arc::new(AtomicUsize::new(0));
        let refused = Arc::new(AtomicU64::new(0));
        let served = Arc::new(AtomicU64::new(0));
        let server = tower::service_fn({
            let (busy, refused, served) = (busy.clone(), refused.clone(), served.clone());
            move |_: Request<kube::client::Body>| {
                let (busy, refused, served) = (busy.clone(), refused.clone(), served.clone());
                async move {
                    if busy.fetch_add(1, Ordering::SeqCst) > 0 {
                        busy.fetch_sub(1, Ordering::SeqCst);
                        refused.fetch_add(1, Ordering::SeqCst);
                        let answer = Response::builder().status(429).body(()).unwrap();
                        return Ok::<_, tower::BoxError>(answer);
                    }
                    tokio::time::sleep(Duration::from_millis(2)).await;
                    busy.fetch_sub(1, Ordering::SeqCst);
                    served.fetch_add(1, Ordering::SeqCst);
                    Ok(Response::new(()))
                }
            }
        });
        let service = tower::util::BoxCloneService::new(server);
        let service = if limited {
            let layer = BackpressureLayer::new(Default::default());
            tower::util::BoxCloneService::new(layer.layer(service))
        } else {
            service
        };
        let mut clients = Vec::new();
        for _ in 0..16 {
            let mut service = service.clone();
            clients.push(tokio::spawn(async move {
                for _ in 0..10 {
                    loop {
                        use tower::ServiceExt;
                        let answer = service
                            .ready()
                            .await
                            .unwrap()
                            .call(get("/api/v1/pods"))
                            .await;
                        if answer.unwrap().status() != StatusCode::TOO_MANY_REQUESTS {
                            break;
                        }
                        tokio::time::sleep(Duration::from_millis(1)).await;
                    }
                }
            }));
        }
        for client in clients {
            client.await.unwrap();
        }
        (
            served.load(Ordering::SeqCst),
            refused.load(Ordering::SeqCst),
        )
    }

    #[tokio::test]
    async fn against_one_seat_the_limit_keeps_refusals_few() {
        let (served, refused_raw) = one_seat(false).await;
        assert_eq!(served, 160);
        assert!(
            refused_raw > 320,
            "without the limit: {refused_raw} refusals"
        );
        let (served, refused) = one_seat(true).await;
        eprintln!("one seat, 160 requests: {refused_raw} refusals unlimited, {refused} limited");
        assert_eq!(served, 160);
        assert!(
            refused < 80,
            "with the limit: {refused} refusals for 160 answers (without: {refused_raw})"
        );
    }
}
