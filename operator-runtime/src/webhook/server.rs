//! The HTTPS server: the registry of webhooks by path ([`Webhooks`]), the listener and its
//! connections ([`WebhookServer`]), and the checks every request passes before a handler
//! sees it.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::fmt;
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::FutureExt as _;
use http::header::{ALLOW, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE};
use http::{HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt as _, Full, LengthLimitError, Limited};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use kube::core::Status;
use kube::core::conversion::{ConversionRequest, ConversionResponse, ConversionReview};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{debug, error, info, warn};

use super::admission::{self, AdmissionHandler, RawReview};
use super::conversion::{ConversionTable, ConvertKind};
use super::{
    CONVERT_PATH, Certificates, Conversion, DEFAULT_MAX_REQUEST_BYTES, DEFAULT_PORT, Defaulter,
    HEALTH_PATH, Validator, WebhookResource, mutate_path, tls, validate_path,
};

const ADMISSION_API_VERSION: &str = "admission.k8s.io/v1";
const CONVERSION_API_VERSION: &str = "apiextensions.k8s.io/v1";

/// How the webhook server listens and what it accepts. `Default` is controller-runtime's:
/// every interface on port 9443, certificates from `/tmp/k8s-webhook-server/serving-certs`.
#[derive(Debug, Clone)]
pub struct WebhookOptions {
    /// Where to listen ([`DEFAULT_PORT`] on every interface).
    pub addr: SocketAddr,
    /// The serving certificate and key ([`Certificates::default`]: controller-runtime's files).
    pub certificates: Certificates,
    /// Larger request bodies are refused with 413 ([`DEFAULT_MAX_REQUEST_BYTES`]).
    pub max_request_bytes: usize,
    /// A client that has not finished its TLS handshake by then is disconnected.
    pub handshake_timeout: Duration,
    /// Time to send a request's headers, and then its body (408 after that).
    pub request_timeout: Duration,
    /// On shutdown, how long requests in flight may take before their connections are
    /// dropped.
    pub shutdown_timeout: Duration,
    /// Where the server counts its requests, their latency, those in flight and handler
    /// panics, under controller-runtime's names (`controller_runtime_webhook_*`): the
    /// manager's [`Metrics`](crate::Metrics), so they are served on its metrics endpoint.
    pub metrics: Option<Arc<crate::Metrics>>,
}

impl Default for WebhookOptions {
    fn default() -> Self {
        Self {
            addr: SocketAddr::from(([0, 0, 0, 0], DEFAULT_PORT)),
            certificates: Certificates::default(),
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
            handshake_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            shutdown_timeout: Duration::from_secs(30),
            metrics: None,
        }
    }
}

/// Why the webhook server does not start.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    /// Handlers that cannot be served together (two at one path, say), each said.
    #[error("webhook registration: {}", .0.join("; "))]
    Registration(Vec<String>),
    /// The serving certificate could not be read or used.
    #[error("webhook certificate ({what}): {message}")]
    Certificate {
        /// Which file or part of it.
        what: String,
        /// What is wrong with it.
        message: String,
    },
    /// The server could not listen on its address.
    #[error("cannot serve webhooks on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// Why it could not.
        source: std::io::Error,
    },
}

enum Route {
    Admission {
        handler: AdmissionHandler,
        /// For logs: `defaulting cache.example.com/v1 Memcached`.
        what: String,
    },
    Conversion(ConversionTable),
}

/// The webhooks an operator serves, by path. Register defaulters, validators and
/// conversions, then hand it to [`WebhookServer::bind`]. Mistakes (a path taken twice, an
/// invalid path, a spoke of another kind) are collected and reported by `bind`.
#[derive(Default)]
pub struct Webhooks {
    routes: BTreeMap<String, Route>,
    errors: Vec<String>,
}

impl fmt::Debug for Webhooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Webhooks")
            .field("paths", &self.routes.keys().collect::<Vec<_>>())
            .field("errors", &self.errors)
            .finish()
    }
}

/// Whether `path` is one controller-runtime accepts for a webhook
/// (`^((/[a-zA-Z0-9-_]+)+|/)$`).
pub fn is_valid_path(path: &str) -> bool {
    path == "/"
        || path.strip_prefix('/').is_some_and(|rest| {
            rest.split('/').all(|segment| {
                !segment.is_empty()
                    && segment
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            })
        })
}

impl Webhooks {
    /// No webhooks yet: add them with the methods below.
    pub fn new() -> Self {
        Self::default()
    }

    /// A mutating webhook for `K` at controller-runtime's path for it
    /// ([`mutate_path`]: `/mutate-<group>-<version>-<kind>`).
    #[must_use]
    pub fn defaulter<K: WebhookResource, D: Defaulter<K>>(self, defaulter: D) -> Self {
        self.defaulter_at(&mutate_path::<K>(), defaulter)
    }

    /// A mutating webhook for `K` at `path`.
    #[must_use]
    pub fn defaulter_at<K: WebhookResource, D: Defaulter<K>>(
        self,
        path: &str,
        defaulter: D,
    ) -> Self {
        let what = format!("defaulting {} {}", K::api_version(&()), K::kind(&()));
        self.admission(path, admission::defaulting_handler::<K, D>(defaulter), what)
    }

    /// A validating webhook for `K` at controller-runtime's path for it
    /// ([`validate_path`]: `/validate-<group>-<version>-<kind>`).
    #[must_use]
    pub fn validator<K: WebhookResource, V: Validator<K>>(self, validator: V) -> Self {
        self.validator_at(&validate_path::<K>(), validator)
    }

    /// A validating webhook for `K` at `path`.
    #[must_use]
    pub fn validator_at<K: WebhookResource, V: Validator<K>>(
        self,
        path: &str,
        validator: V,
    ) -> Self {
        let what = format!("validating {} {}", K::api_version(&()), K::kind(&()));
        self.admission(path, admission::validating_handler::<K, V>(validator), what)
    }

    /// Conversions of one kind at `/convert`, the path every CRD's conversion webhook
    /// points to; the kinds registered there are told apart by the objects' group and kind.
    #[must_use]
    pub fn conversion<H: WebhookResource>(self, conversion: Conversion<H>) -> Self {
        self.conversion_at(CONVERT_PATH, conversion)
    }

    /// Conversions of one kind at `path`.
    #[must_use]
    pub fn conversion_at<H: WebhookResource>(
        mut self,
        path: &str,
        conversion: Conversion<H>,
    ) -> Self {
        if !self.check_path(path) {
            return self;
        }
        self.errors
            .extend(conversion.registration_errors().iter().cloned());
        let route = self
            .routes
            .entry(path.to_string())
            .or_insert_with(|| Route::Conversion(ConversionTable::default()));
        match route {
            Route::Conversion(table) => {
                if let Err(e) = table.add(Box::new(conversion)) {
                    self.errors.push(e);
                }
            }
            Route::Admission { what, .. } => self
                .errors
                .push(format!("{path} serves {what}, it cannot also convert")),
        }
        self
    }

    /// The registered paths, sorted.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.routes.keys().map(String::as_str)
    }

    fn check_path(&mut self, path: &str) -> bool {
        if !is_valid_path(path) {
            self.errors.push(format!(
                "{path:?} is not a webhook path (one or more /segments of letters, digits, - and _)"
            ));
            return false;
        }
        if path == HEALTH_PATH {
            self.errors
                .push(format!("{HEALTH_PATH} is the server's health check"));
            return false;
        }
        true
    }

    fn admission(mut self, path: &str, handler: AdmissionHandler, what: String) -> Self {
        if !self.check_path(path) {
            return self;
        }
        if self.routes.contains_key(path) {
            self.errors
                .push(format!("{path} is registered twice (now for {what})"));
            return self;
        }
        self.routes
            .insert(path.to_string(), Route::Admission { handler, what });
        self
    }
}

/// Whether the webhook server accepts connections: for the manager's `/readyz`
/// (see [`crate::Manager::ready_check`]), as controller-runtime's
/// `StartedChecker`.
#[derive(Debug, Clone, Default)]
pub struct Readiness(Arc<AtomicBool>);

impl Readiness {
    /// Whether the server is listening with its certificate loaded.
    pub fn is_ready(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    fn set(&self, ready: bool) {
        self.0.store(ready, Ordering::Relaxed);
    }
}

impl crate::manager::ReadyCheck for Readiness {
    fn name(&self) -> &str {
        "webhook server"
    }

    fn is_ready(&self) -> bool {
        Readiness::is_ready(self)
    }
}

struct Shared {
    routes: BTreeMap<String, Route>,
    max_request_bytes: usize,
    request_timeout: Duration,
    metrics: Option<Arc<crate::Metrics>>,
}

/// The admission and conversion webhook server: HTTPS on one port, the registered
/// webhooks by path, and `GET /healthz`.
///
/// HTTP/1.1 only, with keep-alive: kubebuilder's scaffold turns HTTP/2 off for webhooks
/// since the HTTP/2 "rapid reset" attacks (CVE-2023-44487), and the API server's webhook
/// client is just as fast over HTTP/1.1 connections it keeps open.
pub struct WebhookServer {
    listener: TcpListener,
    acceptor: TlsAcceptor,
    shared: Arc<Shared>,
    options: WebhookOptions,
    readiness: Readiness,
    local_addr: SocketAddr,
}

impl fmt::Debug for WebhookServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebhookServer")
            .field("local_addr", &self.local_addr)
            .field("paths", &self.shared.routes.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl WebhookServer {
    /// Checks the registrations, loads the certificate and binds the port; serving starts
    /// with [`WebhookServer::run`].
    pub async fn bind(options: WebhookOptions, webhooks: Webhooks) -> Result<Self, WebhookError> {
        if !webhooks.errors.is_empty() {
            return Err(WebhookError::Registration(webhooks.errors));
        }
        let config = tls::server_config(&options.certificates)?;
        let listener =
            TcpListener::bind(options.addr)
                .await
                .map_err(|source| WebhookError::Bind {
                    addr: options.addr,
                    source,
                })?;
        let local_addr = listener.local_addr().unwrap_or(options.addr);
        Ok(Self {
            listener,
            acceptor: TlsAcceptor::from(config),
            shared: Arc::new(Shared {
                routes: webhooks.routes,
                max_request_bytes: options.max_request_bytes,
                request_timeout: options.request_timeout,
                metrics: options.metrics.clone(),
            }),
            options,
            readiness: Readiness::default(),
            local_addr,
        })
    }

    /// The bound address (the port chosen when asked for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Ready from the moment [`WebhookServer::run`] accepts connections until shutdown.
    pub fn readiness(&self) -> Readiness {
        self.readiness.clone()
    }

    /// Serves until `shutdown` is cancelled, then stops accepting, lets requests in flight
    /// finish (up to [`WebhookOptions::shutdown_timeout`]) and closes idle connections.
    pub async fn run(self, shutdown: CancellationToken) {
        let Self {
            listener,
            acceptor,
            shared,
            options,
            readiness,
            local_addr,
        } = self;
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(options.request_timeout)
            .keep_alive(true);
        let http = Arc::new(http);
        let connections = TaskTracker::new();
        // Cancelled when the grace period is over: connections still open are dropped.
        let abort = CancellationToken::new();
        for (path, route) in &shared.routes {
            match route {
                Route::Admission { what, .. } => info!(path, "webhook: {what}"),
                Route::Conversion(table) => {
                    let kinds = table.kinds().collect::<Vec<_>>().join(", ");
                    info!(path, "webhook: converting {kinds}");
                }
            }
        }
        info!(addr = %local_addr, "serving webhooks");
        readiness.set(true);
        loop {
            let (stream, peer) = tokio::select! {
                () = shutdown.cancelled() => break,
                accepted = listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        // Out of file descriptors and the like: wait rather than spin.
                        warn!(error = %e, "accepting a webhook connection");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
            };
            connections.spawn(serve_connection(
                stream,
                peer,
                acceptor.clone(),
                http.clone(),
                shared.clone(),
                options.handshake_timeout,
                shutdown.clone(),
                abort.clone(),
            ));
        }
        readiness.set(false);
        drop(listener);
        connections.close();
        info!(
            open = connections.len(),
            "webhook server stopping; finishing requests in flight"
        );
        if tokio::time::timeout(options.shutdown_timeout, connections.wait())
            .await
            .is_err()
        {
            warn!(
                open = connections.len(),
                timeout = ?options.shutdown_timeout,
                "webhook requests still running at the end of the shutdown grace period; dropping them"
            );
            abort.cancel();
            connections.wait().await;
        }
        info!("webhook server stopped");
    }
}

#[allow(clippy::too_many_arguments)]
async fn serve_connection(
    stream: TcpStream,
    peer: SocketAddr,
    acceptor: TlsAcceptor,
    http: Arc<hyper::server::conn::http1::Builder>,
    shared: Arc<Shared>,
    handshake_timeout: Duration,
    shutdown: CancellationToken,
    abort: CancellationToken,
) {
    let _ = stream.set_nodelay(true);
    let handshake = tokio::time::timeout(handshake_timeout, acceptor.accept(stream));
    let tls = tokio::select! {
        () = shutdown.cancelled() => return,
        done = handshake => match done {
            Ok(Ok(tls)) => tls,
            Ok(Err(e)) => {
                debug!(%peer, error = %e, "webhook TLS handshake failed");
                return;
            }
            Err(_) => {
                debug!(%peer, "webhook TLS handshake timed out");
                return;
            }
        },
    };
    let service = hyper::service::service_fn(move |request| {
        let shared = shared.clone();
        async move { Ok::<_, Infallible>(answer(&shared, request).await) }
    });
    let connection = http.serve_connection(TokioIo::new(tls), service);
    tokio::pin!(connection);
    let result = tokio::select! {
        result = connection.as_mut() => result,
        () = shutdown.cancelled() => {
            // Finish the request in flight, if any, then close.
            connection.as_mut().graceful_shutdown();
            tokio::select! {
                result = connection.as_mut() => result,
                () = abort.cancelled() => return,
            }
        }
    };
    if let Err(e) = result {
        debug!(%peer, error = %e, "webhook connection ended with an error");
    }
}

type Body = Full<Bytes>;

fn text(status: StatusCode, message: impl Into<String>) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(message.into() + "\n")));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

fn json(body: Vec<u8>) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A response after which the connection closes (the rest of the request's body is unread).
fn closing(mut response: Response<Body>) -> Response<Body> {
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    response
}

fn method_not_allowed(allowed: &'static str) -> Response<Body> {
    let mut response = text(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("only {allowed} is allowed here"),
    );
    response
        .headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allowed));
    response
}

fn is_json(content_type: Option<&HeaderValue>) -> bool {
    content_type
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

async fn answer(shared: &Shared, request: Request<Incoming>) -> Response<Body> {
    let path = request.uri().path();
    if path == HEALTH_PATH {
        return match *request.method() {
            Method::GET | Method::HEAD => text(StatusCode::OK, "ok"),
            _ => method_not_allowed("GET"),
        };
    }
    let Some((path, route)) = shared.routes.get_key_value(path) else {
        return text(StatusCode::NOT_FOUND, format!("no webhook at {path}"));
    };
    // Every request to a webhook's path counts, whatever its answer (as controller-runtime
    // counts them).
    let Some(metrics) = &shared.metrics else {
        return answer_webhook(shared, route, request).await;
    };
    let _in_flight = metrics.webhook_started(path);
    let started = Instant::now();
    let response = answer_webhook(shared, route, request).await;
    metrics.webhook_answered(path, response.status().as_u16(), started.elapsed());
    response
}

async fn answer_webhook(
    shared: &Shared,
    route: &Route,
    request: Request<Incoming>,
) -> Response<Body> {
    let metrics = shared.metrics.as_deref();
    if request.method() != Method::POST {
        return method_not_allowed("POST");
    }
    if !is_json(request.headers().get(CONTENT_TYPE)) {
        let found = request
            .headers()
            .get(CONTENT_TYPE)
            .map_or("none".into(), |v| format!("{v:?}"));
        return text(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!("the content type must be application/json, not {found}"),
        );
    }
    let body = match read_body(shared, request).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    match route {
        Route::Admission { handler, .. } => admit(handler, &body, metrics).await,
        Route::Conversion(table) => convert(table, &body, metrics),
    }
}

async fn read_body(shared: &Shared, request: Request<Incoming>) -> Result<Bytes, Response<Body>> {
    let limit = shared.max_request_bytes;
    let too_large = || {
        closing(text(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body is over the limit of {limit} bytes"),
        ))
    };
    let declared = request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    let body = Limited::new(request.into_body(), limit).collect();
    match tokio::time::timeout(shared.request_timeout, body).await {
        Err(_) => Err(closing(text(
            StatusCode::REQUEST_TIMEOUT,
            "the request body did not arrive in time",
        ))),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => Err(too_large()),
        Ok(Err(e)) => Err(closing(text(
            StatusCode::BAD_REQUEST,
            format!("cannot read the request body: {e}"),
        ))),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
    }
}

/// 400 for a body that is not the review it should be, saying whether it is JSON at all.
fn not_a_review(body: &[u8], what: &str, error: &serde_json::Error) -> Response<Body> {
    let is_json = serde_json::from_slice::<serde::de::IgnoredAny>(body).is_ok();
    let message = if is_json {
        format!("the body is not {what}: {error}")
    } else {
        format!("the body is not JSON: {error}")
    };
    text(StatusCode::BAD_REQUEST, message)
}

fn wrong_type(expected: &str, kind: &str, api_version: &str, found_kind: &str) -> Response<Body> {
    text(
        StatusCode::BAD_REQUEST,
        format!("expected a {expected} {kind}, got apiVersion {api_version:?} kind {found_kind:?}"),
    )
}

async fn admit(
    handler: &AdmissionHandler,
    body: &[u8],
    metrics: Option<&crate::Metrics>,
) -> Response<Body> {
    let review: RawReview = match serde_json::from_slice(body) {
        Ok(review) => review,
        Err(e) => return not_a_review(body, "an AdmissionReview", &e),
    };
    if review.api_version != ADMISSION_API_VERSION || review.kind != "AdmissionReview" {
        return wrong_type(
            ADMISSION_API_VERSION,
            "AdmissionReview",
            &review.api_version,
            &review.kind,
        );
    }
    let Some(request) = review.request else {
        return text(
            StatusCode::BAD_REQUEST,
            "the AdmissionReview has no request",
        );
    };
    let uid = request.uid.clone();
    let response = match AssertUnwindSafe(handler(request)).catch_unwind().await {
        Ok(response) => response,
        Err(panic) => {
            error!(%uid, panic = crate::panic_message(&*panic), "admission webhook handler panicked");
            if let Some(metrics) = metrics {
                metrics.webhook_panicked(false);
            }
            admission::panicked(uid)
        }
    };
    match serde_json::to_vec(&response.into_review()) {
        Ok(body) => json(body),
        Err(e) => text(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("encoding the AdmissionReview: {e}"),
        ),
    }
}

fn convert(
    table: &ConversionTable,
    body: &[u8],
    metrics: Option<&crate::Metrics>,
) -> Response<Body> {
    let review: ConversionReview = match serde_json::from_slice(body) {
        Ok(review) => review,
        Err(e) => return not_a_review(body, "a ConversionReview", &e),
    };
    if review.types.api_version != CONVERSION_API_VERSION || review.types.kind != "ConversionReview"
    {
        return wrong_type(
            CONVERSION_API_VERSION,
            "ConversionReview",
            &review.types.api_version,
            &review.types.kind,
        );
    }
    let Ok(mut request) = ConversionRequest::from_review(review) else {
        return text(
            StatusCode::BAD_REQUEST,
            "the ConversionReview has no request",
        );
    };
    let objects = std::mem::take(&mut request.objects);
    let desired = std::mem::take(&mut request.desired_api_version);
    let uid = request.uid.clone();
    let converted =
        std::panic::catch_unwind(AssertUnwindSafe(|| table.convert_all(objects, &desired)));
    let response = ConversionResponse::for_request(request);
    let response = match converted {
        Ok(Ok(objects)) => response.success(objects),
        Ok(Err(message)) => {
            debug!(%uid, %message, "conversion failed");
            response.failure(Status::failure(&message, ""))
        }
        Err(panic) => {
            error!(%uid, panic = crate::panic_message(&*panic), "conversion panicked");
            if let Some(metrics) = metrics {
                metrics.webhook_panicked(true);
            }
            response.failure(Status::failure(
                "internal error in the conversion webhook (a conversion panicked; see the operator's log)",
                "InternalError",
            ))
        }
    };
    match serde_json::to_vec(&response.into_review()) {
        Ok(body) => json(body),
        Err(e) => text(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("encoding the ConversionReview: {e}"),
        ),
    }
}
