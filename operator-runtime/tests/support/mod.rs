//! What the webhook server's tests and benchmark share: certificates, a TLS client, the
//! `Widget` kind in two versions, and reviews.
#![allow(dead_code)]

use std::borrow::Cow;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http::Request;
use http_body_util::{BodyExt as _, Full};
use hyper_util::rt::TokioIo;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_runtime::webhook::{Certificates, Readiness, WebhookOptions, WebhookServer, Webhooks};
use rustls::ClientConfig;
use rustls::client::Resumption;
use rustls::pki_types::ServerName;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;
use tokio_rustls::TlsConnector;
use tokio_util::sync::CancellationToken;

/// A self-signed certificate for `localhost`.
#[derive(Clone)]
pub struct TestCert {
    pub cert_pem: String,
    pub key_pem: String,
    pub der: Vec<u8>,
}

impl TestCert {
    pub fn new() -> Self {
        let generated = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
        Self {
            cert_pem: generated.cert.pem(),
            key_pem: generated.signing_key.serialize_pem(),
            der: generated.cert.der().to_vec(),
        }
    }

    pub fn certificates(&self) -> Certificates {
        Certificates::pem(self.cert_pem.clone(), self.key_pem.clone())
    }
}

/// A client trusting `certs`, without session resumption (every handshake asks the server
/// for its certificate).
pub fn client_config(certs: &[&TestCert]) -> Arc<ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in certs {
        roots.add(cert.der.clone().into()).unwrap();
    }
    let mut config =
        ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
    config.resumption = Resumption::disabled();
    Arc::new(config)
}

pub type TlsStream = tokio_rustls::client::TlsStream<TcpStream>;

pub async fn tls_connect(addr: SocketAddr, config: Arc<ClientConfig>) -> TlsStream {
    let tcp = TcpStream::connect(addr).await.unwrap();
    tcp.set_nodelay(true).unwrap();
    TlsConnector::from(config)
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .unwrap()
}

/// The certificate the server presents to a new connection.
pub async fn served_certificate(addr: SocketAddr, config: Arc<ClientConfig>) -> Vec<u8> {
    let stream = tls_connect(addr, config).await;
    stream.get_ref().1.peer_certificates().unwrap()[0].to_vec()
}

/// One HTTP/1.1 connection kept open for many requests.
pub struct Client {
    sender: hyper::client::conn::http1::SendRequest<Full<Bytes>>,
}

impl Client {
    pub async fn connect(addr: SocketAddr, config: Arc<ClientConfig>) -> Self {
        let stream = tls_connect(addr, config).await;
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .unwrap();
        tokio::spawn(connection);
        Self { sender }
    }

    pub async fn send(&mut self, request: Request<Full<Bytes>>) -> (u16, Bytes) {
        self.sender.ready().await.unwrap();
        let response = self.sender.send_request(request).await.unwrap();
        let status = response.status().as_u16();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (status, body)
    }

    /// POSTs JSON; the answer's status and body.
    pub async fn post(&mut self, path: &str, body: &Value) -> (u16, Value) {
        let request = Request::post(path)
            .header("host", "localhost")
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(serde_json::to_vec(body).unwrap())))
            .unwrap();
        let (status, body) = self.send(request).await;
        let body = serde_json::from_slice(&body)
            .unwrap_or_else(|_| panic!("{status}: not JSON: {}", String::from_utf8_lossy(&body)));
        (status, body)
    }

    /// POSTs a review and returns its `response`, checking the status is 200.
    pub async fn review(&mut self, path: &str, review: &Value) -> Value {
        let (status, body) = self.post(path, review).await;
        assert_eq!(status, 200, "{body}");
        body["response"].clone()
    }
}

/// Sends `request` as it is on a new connection and reads until the server closes it: the
/// status code and the body, or `None` when the server closed without a response.
pub async fn raw_exchange(
    addr: SocketAddr,
    config: Arc<ClientConfig>,
    request: &[u8],
) -> Option<(u16, Vec<u8>)> {
    let mut stream = tls_connect(addr, config).await;
    // The server may answer (413) and close before it has read everything: a write error
    // then is not the test's concern, the answer is.
    let _ = stream.write_all(request).await;
    let _ = stream.flush().await;
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response).await;
    parse_response(&response)
}

pub fn parse_response(response: &[u8]) -> Option<(u16, Vec<u8>)> {
    let status = std::str::from_utf8(response.get(9..12)?)
        .ok()?
        .parse()
        .ok()?;
    let body_start = response.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    Some((status, response[body_start..].to_vec()))
}

/// A server with `webhooks` on 127.0.0.1, serving until the token is cancelled.
pub struct Running {
    pub addr: SocketAddr,
    pub shutdown: CancellationToken,
    pub task: JoinHandle<()>,
    pub readiness: Readiness,
}

pub async fn start(webhooks: Webhooks, certificates: Certificates) -> Running {
    start_with(
        WebhookOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            certificates,
            ..Default::default()
        },
        webhooks,
    )
    .await
}

pub async fn start_with(options: WebhookOptions, webhooks: Webhooks) -> Running {
    let server = WebhookServer::bind(options, webhooks).await.unwrap();
    let addr = server.local_addr();
    let readiness = server.readiness();
    let shutdown = CancellationToken::new();
    let task = tokio::spawn(server.run(shutdown.clone()));
    Running {
        addr,
        shutdown,
        task,
        readiness,
    }
}

macro_rules! widget_resource {
    ($ty:ty, $version:literal) => {
        impl kube::Resource for $ty {
            type DynamicType = ();
            type Scope = kube::core::NamespaceResourceScope;
            fn kind(_: &()) -> Cow<'_, str> {
                "Widget".into()
            }
            fn group(_: &()) -> Cow<'_, str> {
                "example.com".into()
            }
            fn version(_: &()) -> Cow<'_, str> {
                $version.into()
            }
            fn plural(_: &()) -> Cow<'_, str> {
                "widgets".into()
            }
            fn meta(&self) -> &ObjectMeta {
                &self.metadata
            }
            fn meta_mut(&mut self) -> &mut ObjectMeta {
                &mut self.metadata
            }
        }
    };
}

/// `example.com/v1` Widget, the hub.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Widget {
    pub metadata: ObjectMeta,
    pub spec: WidgetSpec,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpec {
    pub size: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
}

widget_resource!(Widget, "v1");

/// `example.com/v2` Widget: `size` became `replicas`, `color` became `paint`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WidgetV2 {
    pub metadata: ObjectMeta,
    pub spec: WidgetV2Spec,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct WidgetV2Spec {
    pub replicas: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paint: Option<String>,
}

widget_resource!(WidgetV2, "v2");

impl From<WidgetV2> for Widget {
    fn from(w: WidgetV2) -> Self {
        Widget {
            metadata: w.metadata,
            spec: WidgetSpec {
                size: w.spec.replicas as i32,
                color: w.spec.paint,
            },
        }
    }
}

impl TryFrom<Widget> for WidgetV2 {
    type Error = String;
    fn try_from(w: Widget) -> Result<Self, String> {
        Ok(WidgetV2 {
            metadata: w.metadata,
            spec: WidgetV2Spec {
                replicas: u32::try_from(w.spec.size)
                    .map_err(|_| format!("size {} is not a replica count", w.spec.size))?,
                paint: w.spec.color,
            },
        })
    }
}

pub const MUTATE: &str = "/mutate-example-com-v1-widget";
pub const VALIDATE: &str = "/validate-example-com-v1-widget";

pub fn widget(size: i32) -> Value {
    json!({
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "ns", "uid": "0a1b", "generation": 1},
        "spec": {"size": size, "futureField": {"kept": true}},
    })
}

/// An `admission.k8s.io/v1` AdmissionReview of a Widget.
pub fn admission_review(
    uid: &str,
    operation: &str,
    object: Option<Value>,
    old_object: Option<Value>,
) -> Value {
    json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": uid,
            "kind": {"group": "example.com", "version": "v1", "kind": "Widget"},
            "resource": {"group": "example.com", "version": "v1", "resource": "widgets"},
            "requestKind": {"group": "example.com", "version": "v1", "kind": "Widget"},
            "requestResource": {"group": "example.com", "version": "v1", "resource": "widgets"},
            "name": "w",
            "namespace": "ns",
            "operation": operation,
            "userInfo": {"username": "alice", "groups": ["system:authenticated"]},
            "object": object,
            "oldObject": old_object,
            "dryRun": false,
            "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"},
        },
    })
}

/// An `apiextensions.k8s.io/v1` ConversionReview.
pub fn conversion_review(uid: &str, desired: &str, objects: Vec<Value>) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {"uid": uid, "desiredAPIVersion": desired, "objects": objects},
    })
}
