//! Pushing an image over the registry HTTP API (the OCI distribution spec, "v2"): for each
//! blob a `HEAD` to see whether the registry has it, else a `POST` to start an upload and one
//! `PUT` with the whole blob and its digest; then the manifest `PUT` under the tag, with its
//! media type. A `401` answer says how to authenticate in `WWW-Authenticate`: `Basic` (the
//! credentials on each request) or `Bearer realm=…,service=…,scope=…` (a token fetched from
//! the realm, with the credentials as basic auth when there are any). Plain HTTP only to
//! registries on the loopback interface or with `insecure`.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context as _, Result, bail, ensure};
use base64::Engine as _;
use bytes::Bytes;
use http::{HeaderMap, Method, StatusCode, header};
use http_body_util::{BodyExt as _, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

use super::Reference;
use super::oci;

/// A user name and password (or token) for a registry.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    pub username: String,
    pub password: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("username", &self.username)
            .field("password", &"<hidden>")
            .finish()
    }
}

impl Credentials {
    fn basic(&self) -> String {
        let pair = format!("{}:{}", self.username, self.password);
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(pair)
        )
    }
}

/// How to push.
#[derive(Debug, Clone, Default)]
pub struct PushOptions {
    pub credentials: Option<Credentials>,
    /// Plain HTTP to a registry that is not on loopback.
    pub insecure: bool,
}

/// A pushed image.
#[derive(Debug, Clone)]
pub struct Pushed {
    pub reference: String,
    pub digest: String,
}

/// The credentials for `registry`: `username` with `password` when given, else
/// `$REGISTRY_USERNAME`/`$REGISTRY_PASSWORD`, else the `auths` entry of the Docker config
/// (`$DOCKER_CONFIG/config.json` or `~/.docker/config.json`), else none.
pub fn credentials(
    registry: &str,
    username: Option<String>,
    password: Option<String>,
) -> Result<Option<Credentials>> {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let username = username.or_else(|| env("REGISTRY_USERNAME"));
    let password = password.or_else(|| env("REGISTRY_PASSWORD"));
    match (username, password) {
        (Some(username), Some(password)) => {
            return Ok(Some(Credentials { username, password }));
        }
        (Some(username), None) => bail!(
            "a registry user ({username}) without a password: give --password-stdin or \
             set REGISTRY_PASSWORD"
        ),
        (None, Some(_)) => {
            bail!("a registry password without a user: give --username or set REGISTRY_USERNAME")
        }
        (None, None) => {}
    }
    let config = std::env::var_os("DOCKER_CONFIG")
        .map(|d| Path::new(&d).join("config.json"))
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".docker/config.json")));
    match config {
        Some(path) if path.is_file() => {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            docker_config_credentials(&text, registry)
                .with_context(|| format!("reading {}", path.display()))
        }
        _ => Ok(None),
    }
}

/// The credentials for `registry` in the text of a Docker `config.json`: its `auths` entry
/// (keyed by `host`, `https://host` or, for Docker Hub, `https://index.docker.io/v1/`), whose
/// `auth` is base64 of `user:password`.
pub fn docker_config_credentials(config: &str, registry: &str) -> Result<Option<Credentials>> {
    let config: Value = serde_json::from_str(config)?;
    let Some(auths) = config["auths"].as_object() else {
        return Ok(None);
    };
    let hub = matches!(
        registry,
        "docker.io" | "index.docker.io" | "registry-1.docker.io"
    );
    let entry = auths.iter().find(|(key, _)| {
        let host = key
            .trim_start_matches("https://")
            .trim_start_matches("http://")
            .split('/')
            .next()
            .unwrap_or("");
        host == registry || (hub && (host == "index.docker.io" || host == "docker.io"))
    });
    let Some((key, entry)) = entry else {
        return Ok(None);
    };
    let Some(auth) = entry["auth"].as_str().filter(|a| !a.is_empty()) else {
        return Ok(None);
    };
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(auth.trim())
        .with_context(|| format!("the auth of {key} is not base64"))?;
    let decoded = String::from_utf8(decoded).with_context(|| format!("the auth of {key}"))?;
    let (username, password) = decoded
        .split_once(':')
        .with_context(|| format!("the auth of {key} is not user:password"))?;
    Ok(Some(Credentials {
        username: username.to_string(),
        password: password.to_string(),
    }))
}

/// A `WWW-Authenticate` challenge: its scheme (lowercase) and parameters (keys lowercase).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    pub scheme: String,
    pub params: BTreeMap<String, String>,
}

/// Parses the first challenge of a `WWW-Authenticate` value:
/// `Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull,push"`.
pub fn parse_challenge(value: &str) -> Result<Challenge> {
    let value = value.trim();
    let (scheme, mut rest) = value.split_once(' ').unwrap_or((value, ""));
    ensure!(!scheme.is_empty(), "an empty WWW-Authenticate header");
    let mut params = BTreeMap::new();
    loop {
        rest = rest.trim_start_matches([' ', ',']);
        if rest.is_empty() {
            break;
        }
        let Some((key, after)) = rest.split_once('=') else {
            bail!("WWW-Authenticate {value:?}: expected key=value at {rest:?}");
        };
        let key = key.trim().to_ascii_lowercase();
        let after = after.trim_start();
        let (val, next) = if let Some(quoted) = after.strip_prefix('"') {
            let mut val = String::new();
            let mut chars = quoted.char_indices();
            let mut end = None;
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, escaped)) = chars.next() {
                            val.push(escaped);
                        }
                    }
                    '"' => {
                        end = Some(i + 1);
                        break;
                    }
                    c => val.push(c),
                }
            }
            let end = end.with_context(|| format!("WWW-Authenticate {value:?}: unclosed quote"))?;
            (val, &quoted[end..])
        } else {
            let end = after.find(',').unwrap_or(after.len());
            (after[..end].trim().to_string(), &after[end..])
        };
        params.insert(key, val);
        rest = next;
    }
    Ok(Challenge {
        scheme: scheme.to_ascii_lowercase(),
        params,
    })
}

/// Percent-encodes a query value.
fn query_escape(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~:/,".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

type HttpsClient = Client<hyper_rustls::HttpsConnector<HttpConnector>, Full<Bytes>>;

/// A response, read whole.
#[derive(Debug)]
pub struct Response {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Response {
    fn header(&self, name: header::HeaderName) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body as text for an error message, shortened.
    fn text(&self) -> String {
        let text = String::from_utf8_lossy(&self.body);
        let text = text.trim();
        if text.len() > 500 {
            let mut end = 500;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            format!("{}…", &text[..end])
        } else {
            text.to_string()
        }
    }
}

/// A client of one repository of one registry, which authenticates when asked to.
#[derive(Debug)]
pub struct Registry {
    http: HttpsClient,
    /// `http://host:port` or `https://host`.
    base: String,
    repository: String,
    credentials: Option<Credentials>,
    /// The `Authorization` value that the last challenge asked for.
    authorization: Option<String>,
}

const TIMEOUT: Duration = Duration::from_secs(300);

impl Registry {
    /// A client of `reference`'s repository.
    pub fn new(reference: &Reference, options: &PushOptions) -> Result<Registry> {
        let host = reference.registry_host();
        let host = if host == "docker.io" {
            "registry-1.docker.io"
        } else {
            host
        };
        let name = host.rsplit_once(':').map_or(host, |(h, port)| {
            if port.bytes().all(|b| b.is_ascii_digit()) {
                h
            } else {
                host
            }
        });
        let loopback = matches!(name, "localhost" | "127.0.0.1" | "[::1]" | "::1");
        let scheme = if loopback || options.insecure {
            "http"
        } else {
            "https"
        };
        let builder = hyper_rustls::HttpsConnectorBuilder::new();
        let connector = match builder.with_provider_and_native_roots(std::sync::Arc::new(
            rustls::crypto::ring::default_provider(),
        )) {
            Ok(b) => b.https_or_http().enable_http1().build(),
            // No system roots: fine for plain HTTP, which never uses them.
            Err(_) if scheme == "http" => {
                let config = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
                    rustls::crypto::ring::default_provider(),
                ))
                .with_safe_default_protocol_versions()?
                .with_root_certificates(rustls::RootCertStore::empty())
                .with_no_client_auth();
                hyper_rustls::HttpsConnectorBuilder::new()
                    .with_tls_config(config)
                    .https_or_http()
                    .enable_http1()
                    .build()
            }
            Err(err) => return Err(err).context("loading the system's root certificates"),
        };
        Ok(Registry {
            http: Client::builder(TokioExecutor::new()).build(connector),
            base: format!("{scheme}://{host}"),
            repository: reference.remote_repository(),
            credentials: options.credentials.clone(),
            authorization: None,
        })
    }

    /// `path` (starting with `/`) or an absolute URL, as a URL.
    fn url(&self, path_or_url: &str) -> String {
        if path_or_url.starts_with("http://") || path_or_url.starts_with("https://") {
            path_or_url.to_string()
        } else {
            format!("{}{path_or_url}", self.base)
        }
    }

    async fn send_once(
        &self,
        method: &Method,
        url: &str,
        headers: &[(header::HeaderName, String)],
        body: &Bytes,
        authorization: Option<&str>,
    ) -> Result<Response> {
        let mut request = http::Request::builder().method(method.clone()).uri(url);
        for (name, value) in headers {
            request = request.header(name, value);
        }
        if let Some(auth) = authorization {
            request = request.header(header::AUTHORIZATION, auth);
        }
        let request = request
            .body(Full::new(body.clone()))
            .with_context(|| format!("{method} {url}"))?;
        let response = tokio::time::timeout(TIMEOUT, async {
            let response = self.http.request(request).await?;
            let (parts, body) = response.into_parts();
            let body = body.collect().await?.to_bytes();
            anyhow::Ok(Response {
                status: parts.status,
                headers: parts.headers,
                body,
            })
        })
        .await
        .with_context(|| format!("{method} {url}: no answer in {} s", TIMEOUT.as_secs()))?
        .with_context(|| format!("{method} {url}"))?;
        Ok(response)
    }

    /// Sends a request; on `401`, authenticates as the challenge asks and sends it again.
    pub async fn send(
        &mut self,
        method: Method,
        path_or_url: &str,
        headers: &[(header::HeaderName, String)],
        body: Bytes,
    ) -> Result<Response> {
        let url = self.url(path_or_url);
        let response = self
            .send_once(&method, &url, headers, &body, self.authorization.as_deref())
            .await?;
        if response.status != StatusCode::UNAUTHORIZED {
            return Ok(response);
        }
        let challenge = response
            .header(header::WWW_AUTHENTICATE)
            .with_context(|| {
                format!("{method} {url}: 401 Unauthorized without a WWW-Authenticate header")
            })
            .and_then(parse_challenge)?;
        self.authorization = Some(self.authorize(&challenge).await?);
        let response = self
            .send_once(&method, &url, headers, &body, self.authorization.as_deref())
            .await?;
        if response.status == StatusCode::UNAUTHORIZED {
            bail!(
                "{method} {url}: the registry refused the {} ({}): {}",
                match &self.credentials {
                    Some(c) => format!("credentials of {}", c.username),
                    None => "anonymous token; give credentials with --username and \
                             --password-stdin, REGISTRY_USERNAME/REGISTRY_PASSWORD or \
                             `docker login`"
                        .to_string(),
                },
                response.status,
                response.text()
            );
        }
        Ok(response)
    }

    /// The `Authorization` value for `challenge`.
    async fn authorize(&self, challenge: &Challenge) -> Result<String> {
        match challenge.scheme.as_str() {
            "basic" => match &self.credentials {
                Some(c) => Ok(c.basic()),
                None => bail!(
                    "{} asks for a user and password (basic auth): give them with --username \
                     and --password-stdin, REGISTRY_USERNAME/REGISTRY_PASSWORD or `docker login`",
                    self.base
                ),
            },
            "bearer" => self.token(challenge).await.map(|t| format!("Bearer {t}")),
            other => bail!(
                "{} asks for {other} authentication, which is not supported (only Basic and Bearer)",
                self.base
            ),
        }
    }

    /// Fetches a token from the challenge's realm for its scope and ours (pull and push on
    /// the repository), with the credentials as basic auth when there are any.
    async fn token(&self, challenge: &Challenge) -> Result<String> {
        let realm = challenge
            .params
            .get("realm")
            .context("a Bearer challenge without a realm")?;
        let mut query = Vec::new();
        if let Some(service) = challenge.params.get("service") {
            query.push(format!("service={}", query_escape(service)));
        }
        let ours = format!("repository:{}:pull,push", self.repository);
        let mut scopes: Vec<&str> = challenge
            .params
            .get("scope")
            .map(|s| s.split(' ').collect())
            .unwrap_or_default();
        if !scopes.contains(&ours.as_str()) {
            scopes.push(&ours);
        }
        for scope in scopes {
            query.push(format!("scope={}", query_escape(scope)));
        }
        let url = if query.is_empty() {
            realm.clone()
        } else {
            let sep = if realm.contains('?') { '&' } else { '?' };
            format!("{realm}{sep}{}", query.join("&"))
        };
        let basic = self.credentials.as_ref().map(Credentials::basic);
        let response = self
            .send_once(&Method::GET, &url, &[], &Bytes::new(), basic.as_deref())
            .await
            .context("fetching a registry token")?;
        if !response.status.is_success() {
            let who = match &self.credentials {
                Some(c) => format!("for user {}", c.username),
                None => "without credentials (none given)".to_string(),
            };
            bail!(
                "the token service {realm} refused a token {who} ({}): {}",
                response.status,
                response.text()
            );
        }
        let body: Value = serde_json::from_slice(&response.body)
            .with_context(|| format!("the token service {realm} answered no JSON"))?;
        body["token"]
            .as_str()
            .or_else(|| body["access_token"].as_str())
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .with_context(|| format!("the token service {realm} answered no token"))
    }

    fn repo_path(&self, rest: &str) -> String {
        format!("/v2/{}/{rest}", self.repository)
    }

    /// Whether the registry has the blob `digest`.
    pub async fn has_blob(&mut self, digest: &str) -> Result<bool> {
        let path = self.repo_path(&format!("blobs/{digest}"));
        let response = self.send(Method::HEAD, &path, &[], Bytes::new()).await?;
        match response.status {
            StatusCode::OK => Ok(true),
            StatusCode::NOT_FOUND => Ok(false),
            status => bail!("HEAD {path}: {status}: {}", response.text()),
        }
    }

    /// Uploads `bytes` as the blob `digest` in one piece.
    pub async fn upload_blob(&mut self, digest: &str, bytes: Bytes) -> Result<()> {
        let path = self.repo_path("blobs/uploads/");
        let started = self.send(Method::POST, &path, &[], Bytes::new()).await?;
        ensure!(
            started.status == StatusCode::ACCEPTED,
            "POST {path}: {} (expected 202 Accepted): {}",
            started.status,
            started.text()
        );
        let location = started
            .header(header::LOCATION)
            .with_context(|| format!("POST {path}: 202 without a Location"))?;
        let sep = if location.contains('?') { '&' } else { '?' };
        let url = format!("{location}{sep}digest={}", query_escape(digest));
        let len = bytes.len().to_string();
        let done = self
            .send(
                Method::PUT,
                &url,
                &[
                    (header::CONTENT_TYPE, "application/octet-stream".into()),
                    (header::CONTENT_LENGTH, len),
                ],
                bytes,
            )
            .await?;
        ensure!(
            done.status == StatusCode::CREATED,
            "uploading {digest}: {} (expected 201 Created): {}",
            done.status,
            done.text()
        );
        Ok(())
    }

    /// Puts the manifest `bytes` of `media_type` under `tag`; returns the digest the registry
    /// reports (or ours when it reports none).
    pub async fn put_manifest(
        &mut self,
        tag: &str,
        media_type: &str,
        bytes: Bytes,
    ) -> Result<String> {
        let ours = oci::digest(&bytes);
        let path = self.repo_path(&format!("manifests/{tag}"));
        let response = self
            .send(
                Method::PUT,
                &path,
                &[(header::CONTENT_TYPE, media_type.to_string())],
                bytes,
            )
            .await?;
        ensure!(
            response.status == StatusCode::CREATED,
            "PUT {path}: {} (expected 201 Created): {}",
            response.status,
            response.text()
        );
        if let Some(theirs) =
            response.header(http::HeaderName::from_static("docker-content-digest"))
        {
            ensure!(
                theirs == ours,
                "the registry stored the manifest as {theirs}, not {ours}"
            );
        }
        Ok(ours)
    }

    /// `GET` of `path` under the repository (`manifests/<tag>`, `blobs/<digest>`), with
    /// `accept`.
    pub async fn get(&mut self, rest: &str, accept: &str) -> Result<Response> {
        let path = self.repo_path(rest);
        self.send(
            Method::GET,
            &path,
            &[(header::ACCEPT, accept.to_string())],
            Bytes::new(),
        )
        .await
    }
}

/// [`push`] inside a runtime.
pub async fn push_async(
    layout: &Path,
    target: &Reference,
    options: &PushOptions,
) -> Result<Pushed> {
    let index: Value = serde_json::from_slice(
        &std::fs::read(layout.join("index.json"))
            .with_context(|| format!("reading {}/index.json", layout.display()))?,
    )?;
    let manifest_digest = index["manifests"][0]["digest"]
        .as_str()
        .context("index.json lists no manifest")?
        .to_string();
    let read_blob = |digest: &str| -> Result<Bytes> {
        let path = layout.join(oci::blob_path(digest));
        let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        ensure!(
            oci::digest(&bytes) == digest,
            "{} is damaged",
            path.display()
        );
        Ok(Bytes::from(bytes))
    };
    let manifest_bytes = read_blob(&manifest_digest)?;
    let manifest: Value = serde_json::from_slice(&manifest_bytes)?;
    let media_type = manifest["mediaType"]
        .as_str()
        .unwrap_or(oci::MANIFEST_MEDIA_TYPE)
        .to_string();
    let mut blobs: Vec<String> = manifest["layers"]
        .as_array()
        .context("the manifest has no layers")?
        .iter()
        .chain(std::iter::once(&manifest["config"]))
        .map(|d| {
            d["digest"]
                .as_str()
                .map(str::to_string)
                .context("a descriptor without a digest")
        })
        .collect::<Result<_>>()?;
    blobs.dedup();

    let mut registry = Registry::new(target, options)?;
    eprintln!("==> pushing to {} ({})", target, registry.base);
    for digest in &blobs {
        if registry.has_blob(digest).await? {
            eprintln!("    {digest}: already there");
            continue;
        }
        let bytes = read_blob(digest)?;
        let size = bytes.len();
        registry.upload_blob(digest, bytes).await?;
        eprintln!("    {digest}: uploaded ({size} bytes)");
    }
    let digest = registry
        .put_manifest(&target.tag, &media_type, manifest_bytes)
        .await?;
    ensure!(
        digest == manifest_digest,
        "pushed {digest}, expected {manifest_digest}"
    );
    Ok(Pushed {
        reference: target.to_string(),
        digest,
    })
}

/// Pushes the image of the OCI layout `layout` (as [`super::build`] writes it) to `target`:
/// the blobs the registry does not have, then the manifest under the tag.
pub fn push(layout: &Path, target: &Reference, options: &PushOptions) -> Result<Pushed> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(push_async(layout, target, options))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};

    use http_body_util::BodyExt as _;
    use hyper::service::service_fn;
    use hyper_util::rt::TokioIo;

    use super::*;
    use crate::image::oci::{Metadata, assemble, write_layout};

    #[test]
    fn parses_challenges() {
        let c = parse_challenge(
            r#"Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:samalba/my-app:pull,push""#,
        )
        .unwrap();
        assert_eq!(c.scheme, "bearer");
        assert_eq!(c.params["realm"], "https://auth.docker.io/token");
        assert_eq!(c.params["service"], "registry.docker.io");
        assert_eq!(c.params["scope"], "repository:samalba/my-app:pull,push");

        let c = parse_challenge(r#"Basic realm="Registry \"x\" realm", charset=UTF-8"#).unwrap();
        assert_eq!(c.scheme, "basic");
        assert_eq!(c.params["realm"], r#"Registry "x" realm"#);
        assert_eq!(c.params["charset"], "UTF-8");

        assert_eq!(parse_challenge("Bearer").unwrap().params.len(), 0);
        assert!(parse_challenge(r#"Bearer realm="open"#).is_err());
        assert!(parse_challenge("Bearer realm").is_err());
    }

    #[test]
    fn reads_docker_config_auths() {
        let auth = base64::engine::general_purpose::STANDARD.encode("bob:s3:cret");
        let config = format!(
            r#"{{"auths":{{"ghcr.io":{{"auth":"{auth}"}},"https://index.docker.io/v1/":{{"auth":"{auth}"}},"quay.io":{{}}}}}}"#
        );
        let bob = Some(Credentials {
            username: "bob".into(),
            password: "s3:cret".into(),
        });
        assert_eq!(docker_config_credentials(&config, "ghcr.io").unwrap(), bob);
        assert_eq!(
            docker_config_credentials(&config, "docker.io").unwrap(),
            bob
        );
        assert_eq!(docker_config_credentials(&config, "quay.io").unwrap(), None);
        assert_eq!(docker_config_credentials(&config, "gcr.io").unwrap(), None);
        assert!(docker_config_credentials(r#"{"auths":{"x.io":{"auth":"%%"}}}"#, "x.io").is_err());
    }

    /// How the fake registry wants to be talked to.
    #[derive(Clone, Copy, Debug)]
    enum Scheme {
        /// Bearer tokens from `/token`, which wants basic auth as alice:wonderland.
        Bearer,
        /// Basic auth as alice:wonderland on every request.
        Basic,
    }

    #[derive(Default, Debug)]
    struct State {
        blobs: HashMap<String, Vec<u8>>,
        /// tag -> (content type, bytes)
        manifests: HashMap<String, (String, Vec<u8>)>,
        uploads: usize,
        tokens: usize,
    }

    const GOOD_TOKEN: &str = "t0ken-for-alice";

    fn basic_of(user: &str, pass: &str) -> String {
        Credentials {
            username: user.into(),
            password: pass.into(),
        }
        .basic()
    }

    async fn handle(
        scheme: Scheme,
        port: u16,
        state: Arc<Mutex<State>>,
        req: http::Request<hyper::body::Incoming>,
    ) -> Result<http::Response<Full<Bytes>>, std::convert::Infallible> {
        let (parts, body) = req.into_parts();
        let body = body.collect().await.unwrap().to_bytes();
        let auth = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let path = parts.uri.path().to_string();
        let query = parts.uri.query().unwrap_or("").to_string();
        let reply = |status: u16, headers: &[(&str, String)], body: Vec<u8>| {
            let mut r = http::Response::builder().status(status);
            for (k, v) in headers {
                r = r.header(*k, v);
            }
            Ok(r.body(Full::new(Bytes::from(body))).unwrap())
        };
        let alice = basic_of("alice", "wonderland");
        if path == "/token" {
            if auth != alice {
                return reply(
                    401,
                    &[],
                    b"{\"details\":\"incorrect username or password\"}".to_vec(),
                );
            }
            assert!(
                query.contains("scope=repository:team/op:pull,push"),
                "{query}"
            );
            assert!(query.contains("service=fake"), "{query}");
            state.lock().unwrap().tokens += 1;
            return reply(
                200,
                &[],
                format!("{{\"token\":\"{GOOD_TOKEN}\"}}").into_bytes(),
            );
        }
        let (expected, challenge) = match scheme {
            Scheme::Bearer => (
                format!("Bearer {GOOD_TOKEN}"),
                format!(
                    "Bearer realm=\"http://127.0.0.1:{port}/token\",service=\"fake\",scope=\"repository:team/op:pull\""
                ),
            ),
            Scheme::Basic => (alice, "Basic realm=\"fake\"".to_string()),
        };
        if auth != expected {
            return reply(
                401,
                &[("www-authenticate", challenge)],
                b"{\"errors\":[{\"code\":\"UNAUTHORIZED\"}]}".to_vec(),
            );
        }
        let mut state = state.lock().unwrap();
        let method = parts.method.clone();
        if let Some(digest) = path.strip_prefix("/v2/team/op/blobs/")
            && method == Method::HEAD
        {
            let status = if state.blobs.contains_key(digest) {
                200
            } else {
                404
            };
            return reply(status, &[], Vec::new());
        }
        if path == "/v2/team/op/blobs/uploads/" && method == Method::POST {
            return reply(202, &[("location", "/upload/1?state=x".into())], Vec::new());
        }
        if path == "/upload/1" && method == Method::PUT {
            let digest = query
                .split('&')
                .find_map(|kv| kv.strip_prefix("digest="))
                .unwrap()
                .to_string();
            assert!(query.contains("state=x"), "{query}");
            if oci::digest(&body) != digest {
                return reply(400, &[], b"DIGEST_INVALID".to_vec());
            }
            state.uploads += 1;
            state.blobs.insert(digest, body.to_vec());
            return reply(201, &[], Vec::new());
        }
        if let Some(tag) = path.strip_prefix("/v2/team/op/manifests/")
            && method == Method::PUT
        {
            let content_type = parts.headers[header::CONTENT_TYPE]
                .to_str()
                .unwrap()
                .to_string();
            let digest = oci::digest(&body);
            state
                .manifests
                .insert(tag.to_string(), (content_type, body.to_vec()));
            return reply(201, &[("docker-content-digest", digest)], Vec::new());
        }
        reply(404, &[], format!("no route {method} {path}").into_bytes())
    }

    /// Starts the fake registry on a loopback port.
    async fn fake_registry(scheme: Scheme) -> (u16, Arc<Mutex<State>>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let state = Arc::new(Mutex::new(State::default()));
        let shared = state.clone();
        tokio::spawn(async move {
            loop {
                let (stream, _) = listener.accept().await.unwrap();
                let state = shared.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |req| handle(scheme, port, state.clone(), req));
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        (port, state)
    }

    fn layout() -> (tempfile::TempDir, oci::Image) {
        let dir = tempfile::tempdir().unwrap();
        let meta = Metadata {
            source: "s".into(),
            revision: "r".into(),
            version: "1".into(),
            title: "op".into(),
            architecture: "amd64".into(),
            epoch: 0,
        };
        let image = assemble(b"a small binary", &meta).unwrap();
        let reference: Reference = "op:1".parse().unwrap();
        write_layout(dir.path(), &image, &reference).unwrap();
        (dir, image)
    }

    fn alice(password: &str) -> PushOptions {
        PushOptions {
            credentials: Some(Credentials {
                username: "alice".into(),
                password: password.into(),
            }),
            insecure: false,
        }
    }

    /// A registry that wants a bearer token, which its token service gives for basic
    /// credentials: the push gets one, uploads both blobs and puts the manifest with its
    /// media type; a second push finds the blobs there.
    #[tokio::test]
    async fn pushes_with_a_bearer_token_obtained_with_basic_credentials() {
        let (port, state) = fake_registry(Scheme::Bearer).await;
        let (dir, image) = layout();
        let target: Reference = format!("127.0.0.1:{port}/team/op:v1").parse().unwrap();
        let pushed = push_async(dir.path(), &target, &alice("wonderland"))
            .await
            .unwrap();
        assert_eq!(pushed.digest, image.manifest.digest);
        {
            let state = state.lock().unwrap();
            assert_eq!(state.uploads, 2);
            assert_eq!(state.tokens, 1, "one token for the whole push");
            assert_eq!(state.blobs[&image.layer.digest], image.layer.bytes);
            assert_eq!(state.blobs[&image.config.digest], image.config.bytes);
            let (content_type, bytes) = &state.manifests["v1"];
            assert_eq!(content_type, oci::MANIFEST_MEDIA_TYPE);
            assert_eq!(bytes, &image.manifest.bytes);
        }
        push_async(dir.path(), &target, &alice("wonderland"))
            .await
            .unwrap();
        assert_eq!(state.lock().unwrap().uploads, 2, "nothing uploaded twice");
    }

    /// Wrong or missing credentials end in an error that says what was refused.
    #[tokio::test]
    async fn wrong_credentials_are_a_clear_error() {
        let (port, state) = fake_registry(Scheme::Bearer).await;
        let (dir, _) = layout();
        let target: Reference = format!("127.0.0.1:{port}/team/op:v1").parse().unwrap();
        let err = format!(
            "{:#}",
            push_async(dir.path(), &target, &alice("looking-glass"))
                .await
                .unwrap_err()
        );
        assert!(err.contains("refused a token for user alice"), "{err}");
        assert!(err.contains("401"), "{err}");
        assert!(err.contains("incorrect username or password"), "{err}");
        let err = format!(
            "{:#}",
            push_async(dir.path(), &target, &PushOptions::default())
                .await
                .unwrap_err()
        );
        assert!(err.contains("without credentials"), "{err}");
        assert!(state.lock().unwrap().manifests.is_empty());
    }

    /// A registry that wants basic auth gets the credentials; without any it is an error
    /// that says how to give them.
    #[tokio::test]
    async fn pushes_with_basic_auth() {
        let (port, state) = fake_registry(Scheme::Basic).await;
        let (dir, image) = layout();
        let target: Reference = format!("localhost:{port}/team/op:v2").parse().unwrap();
        let pushed = push_async(dir.path(), &target, &alice("wonderland"))
            .await
            .unwrap();
        assert_eq!(pushed.digest, image.manifest.digest);
        assert!(state.lock().unwrap().manifests.contains_key("v2"));
        let err = format!(
            "{:#}",
            push_async(dir.path(), &target, &PushOptions::default())
                .await
                .unwrap_err()
        );
        assert!(
            err.contains("basic auth") && err.contains("--password-stdin"),
            "{err}"
        );
        let err = format!(
            "{:#}",
            push_async(dir.path(), &target, &alice("nope"))
                .await
                .unwrap_err()
        );
        assert!(err.contains("refused the credentials of alice"), "{err}");
    }

    /// Plain HTTP only on loopback, unless asked for.
    #[test]
    fn https_unless_loopback_or_insecure() {
        let base = |r: &str, insecure: bool| {
            let options = PushOptions {
                insecure,
                ..PushOptions::default()
            };
            Registry::new(&r.parse().unwrap(), &options).unwrap().base
        };
        assert_eq!(base("127.0.0.1:5000/a:1", false), "http://127.0.0.1:5000");
        assert_eq!(base("localhost:5000/a:1", false), "http://localhost:5000");
        assert_eq!(
            base("registry.example:5000/a:1", false),
            "https://registry.example:5000"
        );
        assert_eq!(
            base("registry.example/a:1", true),
            "http://registry.example"
        );
        assert_eq!(base("a:1", false), "https://registry-1.docker.io");
    }
}
