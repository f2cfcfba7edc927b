//! Plain HTTP GETs on loopback, for an operator's `/metrics` and `/readyz` (the benchmark
//! starts it with `--metrics-secure=false`). Through hyper's client, which kube already builds
//! in: it reads what a server may send, a chunked body (Go's server chunks large `/metrics`
//! answers), a length or a closed connection.

use anyhow::{Context as _, Result, bail};
use http_body_util::{BodyExt as _, Empty};
use hyper::StatusCode;
use hyper::body::Bytes;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

/// The body of `GET http://127.0.0.1:<port><path>`; an error unless the answer is 200 OK.
pub(super) async fn get(port: u16, path: &str) -> Result<String> {
    let client = Client::builder(TokioExecutor::new()).build_http::<Empty<Bytes>>();
    let uri: hyper::Uri = format!("http://127.0.0.1:{port}{path}")
        .parse()
        .with_context(|| format!("GET {path}: not a path"))?;
    let response = client
        .get(uri)
        .await
        .with_context(|| format!("GET {path} on port {port}"))?;
    let status = response.status();
    if status != StatusCode::OK {
        bail!("GET {path}: {status}");
    }
    let body = response
        .into_body()
        .collect()
        .await
        .with_context(|| format!("GET {path}: reading the body"))?
        .to_bytes();
    Ok(String::from_utf8_lossy(&body).into_owned())
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    use tokio::net::TcpListener;
    use tokio::task::JoinHandle;

    use super::*;

    /// A server on a loopback port that answers one request with `response` (the raw bytes)
    /// and returns the request's head.
    async fn serve_once(response: &'static str) -> (u16, JoinHandle<String>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut request = Vec::new();
            let mut buf = [0; 1024];
            while !request.ends_with(b"\r\n\r\n") {
                let n = stream.read(&mut buf).await.unwrap();
                assert!(n > 0, "the client closed before its request's end");
                request.extend_from_slice(&buf[..n]);
            }
            stream.write_all(response.as_bytes()).await.unwrap();
            stream.shutdown().await.unwrap();
            String::from_utf8(request).unwrap()
        });
        (port, server)
    }

    #[tokio::test]
    async fn chunked_bodies_are_joined() {
        let (port, server) = serve_once(
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n\
             5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n",
        )
        .await;
        assert_eq!(get(port, "/metrics").await.unwrap(), "hello world");
        let request = server.await.unwrap();
        assert!(
            request.starts_with("GET /metrics HTTP/1.1\r\n"),
            "{request}"
        );
    }

    #[tokio::test]
    async fn a_body_of_a_length_or_to_the_close_is_read_whole() {
        let (port, _server) = serve_once("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n").await;
        assert_eq!(get(port, "/readyz").await.unwrap(), "ok\n");
        let (port, _server) =
            serve_once("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it").await;
        assert_eq!(get(port, "/metrics").await.unwrap(), "all of it");
    }

    #[tokio::test]
    async fn anything_but_200_is_an_error() {
        let (port, _server) =
            serve_once("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 9\r\n\r\nnot ready")
                .await;
        let err = get(port, "/readyz").await.unwrap_err().to_string();
        assert_eq!(err, "GET /readyz: 503 Service Unavailable");
    }

    #[tokio::test]
    async fn nothing_listening_is_an_error() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        // The listener is dropped: nothing answers on the port.
        assert!(get(port, "/readyz").await.is_err());
    }
}
