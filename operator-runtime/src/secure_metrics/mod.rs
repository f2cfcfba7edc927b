//! `/metrics` as kubebuilder v4 serves it by default: over HTTPS, to callers the API server
//! authenticates (TokenReview) and authorizes (SubjectAccessReview for `get` on the
//! non-resource URL `/metrics`); see [`auth`] for the answers (401, 403, 200, 500) and the
//! caching of decisions.
//!
//! The certificate comes from files ([`MetricsCertificates::Given`] with files, kubebuilder's
//! `--metrics-cert-path` with `--metrics-cert-name` and `--metrics-cert-key`), re-read when
//! they change exactly as the webhook server's are, or is generated, self-signed, when the
//! manager starts ([`MetricsCertificates::SelfSigned`], what controller-runtime does without
//! a path; Prometheus then scrapes with `insecureSkipVerify`, as kubebuilder's ServiceMonitor
//! does, and still has to present its token).
//!
//! The manager's client must be allowed to create TokenReviews and SubjectAccessReviews
//! (`config/rbac/metrics_auth_role.yaml`); a scraper needs `get` on the non-resource URL
//! `/metrics` (`config/rbac/metrics_reader_role.yaml`). HTTP/1.1 only, as the webhook server
//! (kubebuilder turns HTTP/2 off for both).

pub mod auth;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;
use tower::Service as _;
use tracing::{debug, error, info, warn};

pub use auth::{AuthOptions, MetricsAuth, Reviews};

use crate::metrics::Metrics;
use crate::webhook::Certificates;

/// How `/metrics` is served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetricsSecurity {
    /// Plain HTTP to anyone who connects (`--metrics-secure=false`).
    Plain,
    /// HTTPS, with authentication and authorization of every caller (the default).
    Secure(SecureMetrics),
}

impl Default for MetricsSecurity {
    fn default() -> Self {
        Self::Secure(SecureMetrics::default())
    }
}

/// The certificate and the caching of [`MetricsSecurity::Secure`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecureMetrics {
    /// The serving certificate: files (reloaded when they change) or a self-signed one.
    pub certificates: MetricsCertificates,
    /// How long the TokenReview and SubjectAccessReview answers are cached.
    pub auth: AuthOptions,
}

/// Where the metrics server's certificate comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum MetricsCertificates {
    /// Generated at start, self-signed, for `localhost`, `127.0.0.1` and the host's name
    /// (the pod's name in a cluster); never written anywhere.
    #[default]
    SelfSigned,
    /// From files or PEM, as the webhook server's ([`Certificates`]); files are reloaded.
    Given(Certificates),
}

/// The metrics server could not start.
#[derive(Debug, thiserror::Error)]
pub enum MetricsServerError {
    /// The certificate files could not be read, or a self-signed one made.
    #[error("the metrics server's certificate: {0}")]
    Certificate(String),
}

impl MetricsCertificates {
    /// `name` and `key` in `dir`.
    pub fn in_dir(dir: impl Into<PathBuf>, name: &str, key: &str) -> Self {
        let dir = dir.into();
        Self::Given(Certificates::files(dir.join(name), dir.join(key)))
    }

    fn resolve(&self) -> Result<Certificates, MetricsServerError> {
        match self {
            Self::Given(certificates) => Ok(certificates.clone()),
            Self::SelfSigned => {
                let mut names = vec!["localhost".to_string(), "127.0.0.1".to_string()];
                if let Some(host) = std::fs::read_to_string("/etc/hostname")
                    .ok()
                    .map(|h| h.trim().to_string())
                    .filter(|h| !h.is_empty() && h != "localhost")
                {
                    names.push(host);
                }
                let generated = rcgen::generate_simple_self_signed(names)
                    .map_err(|e| MetricsServerError::Certificate(e.to_string()))?;
                info!("metrics: serving a self-signed certificate generated at start");
                Ok(Certificates::pem(
                    generated.cert.pem(),
                    generated.signing_key.serialize_pem(),
                ))
            }
        }
    }
}

/// The secure metrics server, bound and ready to serve.
pub(crate) struct SecureServer {
    acceptor: TlsAcceptor,
    app: Router,
}

impl SecureServer {
    /// Loads (or makes) the certificate; callers are checked by `reviews`.
    pub(crate) fn new(
        metrics: Arc<Metrics>,
        options: &SecureMetrics,
        reviews: Arc<dyn Reviews>,
    ) -> Result<Self, MetricsServerError> {
        let certificates = options.certificates.resolve()?;
        let config = crate::webhook::tls::server_config(&certificates)
            .map_err(|e| MetricsServerError::Certificate(e.to_string()))?;
        let state = Arc::new(Guarded {
            metrics,
            auth: MetricsAuth::new(reviews, options.auth.clone()),
        });
        let app = Router::new()
            .route("/metrics", axum::routing::get(guarded_metrics))
            .with_state(state);
        Ok(Self {
            acceptor: TlsAcceptor::from(config),
            app,
        })
    }

    /// Serves on `listener` until `stop`, in a task of its own.
    pub(crate) fn spawn(self, listener: TcpListener, stop: CancellationToken) {
        tokio::spawn(self.run(listener, stop));
    }

    async fn run(self, listener: TcpListener, stop: CancellationToken) {
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(Duration::from_secs(30))
            .keep_alive(true);
        let http = Arc::new(http);
        loop {
            let (stream, peer) = tokio::select! {
                () = stop.cancelled() => break,
                accepted = listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        warn!(error = %e, "accepting a metrics connection");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
            };
            let (acceptor, app, http, stop) = (
                self.acceptor.clone(),
                self.app.clone(),
                http.clone(),
                stop.clone(),
            );
            tokio::spawn(async move {
                let handshake =
                    tokio::time::timeout(Duration::from_secs(10), acceptor.accept(stream));
                let tls = tokio::select! {
                    () = stop.cancelled() => return,
                    done = handshake => match done {
                        Ok(Ok(tls)) => tls,
                        Ok(Err(e)) => {
                            debug!(%peer, error = %e, "metrics TLS handshake failed");
                            return;
                        }
                        Err(_) => {
                            debug!(%peer, "metrics TLS handshake timed out");
                            return;
                        }
                    },
                };
                let service = hyper::service::service_fn(move |request| {
                    let mut app = app.clone();
                    async move { app.call(request).await }
                });
                let connection = http.serve_connection(TokioIo::new(tls), service);
                tokio::pin!(connection);
                let result = tokio::select! {
                    result = connection.as_mut() => result,
                    () = stop.cancelled() => {
                        connection.as_mut().graceful_shutdown();
                        match tokio::time::timeout(Duration::from_secs(5), connection).await {
                            Ok(result) => result,
                            Err(_) => return,
                        }
                    }
                };
                if let Err(e) = result {
                    debug!(%peer, error = %e, "metrics connection ended with an error");
                }
            });
        }
        info!("metrics server stopped");
    }
}

struct Guarded {
    metrics: Arc<Metrics>,
    auth: MetricsAuth,
}

async fn guarded_metrics(
    State(state): State<Arc<Guarded>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let verb = method.as_str().to_ascii_lowercase();
    let verdict = state.auth.check(&headers, &verb, uri.path()).await;
    let (status, text) = verdict.status();
    if status == StatusCode::OK {
        return crate::manager::metrics_response(&state.metrics).into_response();
    }
    if status == StatusCode::INTERNAL_SERVER_ERROR {
        error!(reason = %text, "metrics request failed");
    }
    let mut response = (status, text + "\n").into_response();
    if status == StatusCode::UNAUTHORIZED {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    response
}

/// The address to log: `https://` or `http://`.
pub(crate) fn scheme(security: &MetricsSecurity) -> &'static str {
    match security {
        MetricsSecurity::Plain => "http",
        MetricsSecurity::Secure(_) => "https",
    }
}

/// For the log line of [`crate::manager`]: where and how metrics are served.
pub(crate) fn describe(local: SocketAddr, security: &MetricsSecurity) -> String {
    format!("{}://{local}/metrics", scheme(security))
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::future::BoxFuture;
    use rustls::pki_types::{CertificateDer, ServerName, pem::PemObject as _};
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    use auth::{Access, User};

    /// `reader` may get /metrics; `other` is known but may not; anything else is unknown.
    struct Fake;

    impl Reviews for Fake {
        fn authenticate<'a>(
            &'a self,
            token: &'a str,
        ) -> BoxFuture<'a, Result<Option<User>, String>> {
            Box::pin(async move {
                Ok(["reader", "other"].contains(&token).then(|| User {
                    name: token.to_string(),
                    ..User::default()
                }))
            })
        }

        fn authorize<'a>(
            &'a self,
            user: &'a User,
            verb: &'a str,
            path: &'a str,
        ) -> BoxFuture<'a, Result<Access, String>> {
            Box::pin(async move {
                Ok(Access {
                    allowed: user.name == "reader" && verb == "get" && path == "/metrics",
                    reason: String::new(),
                })
            })
        }
    }

    /// `GET path` over TLS trusting `cert_pem`: the status line's code and the whole answer.
    async fn get(addr: SocketAddr, cert_pem: &str, token: Option<&str>) -> (u16, String) {
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(CertificateDer::from_pem_slice(cert_pem.as_bytes()).unwrap())
            .unwrap();
        let config = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
        let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        let mut tls = tokio_rustls::TlsConnector::from(Arc::new(config))
            .connect(ServerName::try_from("localhost").unwrap(), tcp)
            .await
            .unwrap();
        let authorization = token
            .map(|t| format!("Authorization: Bearer {t}\r\n"))
            .unwrap_or_default();
        let request = format!(
            "GET /metrics HTTP/1.1\r\nHost: localhost\r\n{authorization}Connection: close\r\n\r\n"
        );
        tls.write_all(request.as_bytes()).await.unwrap();
        let mut response = String::new();
        let _ = tls.read_to_string(&mut response).await;
        (response[9..12].parse().unwrap(), response)
    }

    #[tokio::test]
    async fn the_https_server_answers_401_403_and_200() {
        let generated = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        let cert_pem = generated.cert.pem();
        let options = SecureMetrics {
            certificates: MetricsCertificates::Given(Certificates::pem(
                cert_pem.clone(),
                generated.signing_key.serialize_pem(),
            )),
            ..SecureMetrics::default()
        };
        let metrics = Arc::new(Metrics::new());
        metrics.set_leader(true);
        let server = SecureServer::new(metrics, &options, Arc::new(Fake)).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = CancellationToken::new();
        server.spawn(listener, stop.clone());

        let (status, text) = get(addr, &cert_pem, None).await;
        assert_eq!(status, 401, "{text}");
        assert!(
            text.to_ascii_lowercase()
                .contains("www-authenticate: bearer"),
            "{text}"
        );
        assert_eq!(get(addr, &cert_pem, Some("garbage")).await.0, 401);
        let (status, text) = get(addr, &cert_pem, Some("other")).await;
        assert_eq!(status, 403, "{text}");
        assert!(text.contains("\"other\""), "{text}");
        let (status, text) = get(addr, &cert_pem, Some("reader")).await;
        assert_eq!(status, 200, "{text}");
        assert!(text.contains("leader_election_master_status"), "{text}");

        stop.cancel();
        let mut closed = false;
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(addr).await.is_err() {
                closed = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(closed, "the server stops with its token");
    }

    #[test]
    fn a_self_signed_certificate_is_made_for_localhost() {
        let Certificates::Pem { cert, .. } = MetricsCertificates::SelfSigned.resolve().unwrap()
        else {
            panic!("generated in memory")
        };
        let der = CertificateDer::from_pem_slice(&cert).unwrap();
        // The SAN is in the DER as the bare name.
        assert!(der.windows(9).any(|w| w == b"localhost"));
        let certificates = MetricsCertificates::SelfSigned.resolve().unwrap();
        crate::webhook::tls::server_config(&certificates).unwrap();
    }

    #[test]
    fn given_files_that_do_not_exist_are_an_error_naming_them() {
        let metrics = Arc::new(Metrics::new());
        let options = SecureMetrics {
            certificates: MetricsCertificates::in_dir("/nonexistent/certs", "a.crt", "a.key"),
            ..SecureMetrics::default()
        };
        let err = SecureServer::new(metrics, &options, Arc::new(Fake))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("/nonexistent/certs/a.crt"), "{err}");
    }
}
