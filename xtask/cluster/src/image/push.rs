//! Pushing an image over the registry HTTP API (the OCI distribution spec, "v2") with
//! [oci-client](https://docs.rs/oci-client): it authenticates as the registry's `/v2/`
//! challenge asks (`Basic`, or a `Bearer` token from the realm, with the credentials as basic
//! auth when there are any), uploads each blob (in chunks, falling back to one piece for
//! registries that refuse chunks) and puts the manifest. The manifest goes up as the bytes of
//! the layout, so the pushed digest is the built one; a tag that already names that digest is
//! left alone and nothing is uploaded. Plain HTTP only to registries on the loopback interface
//! or with `insecure`.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context as _, Result, bail, ensure};
use base64::Engine as _;
use oci_client::client::{ClientConfig, ClientProtocol};
use oci_client::errors::OciDistributionError;
use oci_client::secrets::RegistryAuth;
use oci_client::{Client, RegistryOperation};
use oci_spec::image::{ImageIndex, ImageManifest, MediaType};
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

/// The scheme for `host` (`host[:port]`): plain HTTP on loopback or when asked, else HTTPS.
pub fn plain_http(host: &str, insecure: bool) -> bool {
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    };
    insecure || matches!(name, "localhost" | "127.0.0.1" | "[::1]" | "::1")
}

/// How long a connection may take to open, and the registry to answer any one read.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
const READ_TIMEOUT: Duration = Duration::from_secs(300);

/// An oci-client for `target`, the reference as it knows it, and the credentials as it takes
/// them.
fn client(
    target: &Reference,
    options: &PushOptions,
) -> (Client, oci_client::Reference, RegistryAuth) {
    let host = target.registry_host().to_string();
    let protocol = if options.insecure {
        ClientProtocol::Http
    } else if plain_http(&host, false) {
        ClientProtocol::HttpsExcept(vec![host.clone()])
    } else {
        ClientProtocol::Https
    };
    let client = Client::new(ClientConfig {
        protocol,
        connect_timeout: Some(CONNECT_TIMEOUT),
        read_timeout: Some(READ_TIMEOUT),
        user_agent: concat!("operator-xtask-cluster/", env!("CARGO_PKG_VERSION")),
        ..ClientConfig::default()
    });
    let reference =
        oci_client::Reference::with_tag(host, target.remote_repository(), target.tag.clone());
    let auth = match &options.credentials {
        Some(c) => RegistryAuth::Basic(c.username.clone(), c.password.clone()),
        None => RegistryAuth::Anonymous,
    };
    (client, reference, auth)
}

/// What to tell the user when the registry refuses: who was refused and how to give
/// credentials, instead of a bare status.
fn explain(err: OciDistributionError, options: &PushOptions, what: &str) -> anyhow::Error {
    const HOW: &str = "give credentials with --username and --password-stdin, \
                       REGISTRY_USERNAME/REGISTRY_PASSWORD or `docker login`";
    let who = match &options.credentials {
        Some(c) => format!("the credentials of {}", c.username),
        None => "an anonymous client (no credentials given)".to_string(),
    };
    let context = match &err {
        OciDistributionError::AuthenticationFailure(_) => match &options.credentials {
            Some(c) => format!(
                "{what}: the registry's token service refused a token for user {}",
                c.username
            ),
            None => format!(
                "{what}: the registry's token service refused a token without credentials (none given); {HOW}"
            ),
        },
        OciDistributionError::UnauthorizedError { .. }
        | OciDistributionError::ServerError {
            code: 401 | 403, ..
        } => match &options.credentials {
            Some(_) => format!("{what}: the registry refused {who}"),
            None => format!("{what}: the registry wants a user and password; {HOW}"),
        },
        OciDistributionError::RegistryError { envelope, .. }
            if envelope.errors.iter().any(|e| {
                matches!(
                    e.code,
                    oci_client::errors::OciErrorCode::Unauthorized
                        | oci_client::errors::OciErrorCode::Denied
                )
            }) =>
        {
            format!("{what}: the registry refused {who}")
        }
        _ => what.to_string(),
    };
    anyhow::Error::new(err).context(context)
}

/// Whether the registry has the blob `digest`: the first byte of it reads back. (oci-client
/// has no `HEAD` of a blob; the stream is dropped unread.) Any error counts as no.
async fn has_blob(client: &Client, reference: &oci_client::Reference, digest: &str) -> bool {
    client
        .pull_blob_stream_partial(reference, digest, 0, Some(1))
        .await
        .is_ok()
}

/// [`push`] inside a runtime.
pub async fn push_async(
    layout: &Path,
    target: &Reference,
    options: &PushOptions,
) -> Result<Pushed> {
    let index_path = layout.join("index.json");
    let index = ImageIndex::from_file(&index_path)
        .with_context(|| format!("reading {}", index_path.display()))?;
    let manifest_digest = index
        .manifests()
        .first()
        .context("index.json lists no manifest")?
        .digest()
        .to_string();
    let read_blob = |digest: &str| -> Result<Vec<u8>> {
        let path = layout.join(oci::blob_path(digest));
        let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        ensure!(
            oci::digest(&bytes) == digest,
            "{} is damaged",
            path.display()
        );
        Ok(bytes)
    };
    let manifest_bytes = read_blob(&manifest_digest)?;
    let manifest = ImageManifest::from_reader(manifest_bytes.as_slice())
        .with_context(|| format!("the manifest {manifest_digest}"))?;
    let media_type = manifest
        .media_type()
        .clone()
        .unwrap_or(MediaType::ImageManifest)
        .to_string();
    let mut blobs: Vec<String> = manifest
        .layers()
        .iter()
        .chain(std::iter::once(manifest.config()))
        .map(|d| d.digest().to_string())
        .collect();
    blobs.dedup();

    let (client, reference, auth) = client(target, options);
    let scheme = if plain_http(target.registry_host(), options.insecure) {
        "http"
    } else {
        "https"
    };
    eprintln!(
        "==> pushing to {target} ({scheme}://{})",
        reference.resolve_registry()
    );
    client
        .auth(&reference, &auth, RegistryOperation::Push)
        .await
        .map_err(|e| {
            explain(
                e,
                options,
                &format!("authenticating to {}", reference.resolve_registry()),
            )
        })?;
    // The same image pushed again: the tag names it already, nothing to upload. Any error
    // here (no such tag, no pull access) just means pushing.
    if let Ok(theirs) = client.fetch_manifest_digest(&reference, &auth).await
        && theirs == manifest_digest
    {
        eprintln!("    {}: already {manifest_digest}", target.tag);
        return Ok(Pushed {
            reference: target.to_string(),
            digest: manifest_digest,
        });
    }
    for digest in &blobs {
        if has_blob(&client, &reference, digest).await {
            eprintln!("    {digest}: already there");
            continue;
        }
        let bytes = read_blob(digest)?;
        match client.push_blob(&reference, &bytes, digest).await {
            Ok(_) => {}
            // The closing PUT answered 201 Created without the Location the spec asks for
            // (go-containerregistry's registry, which crane and ko serve, does that), and
            // oci-client takes that for a failure. The blob is stored if it reads back.
            Err(OciDistributionError::RegistryNoLocationError)
                if has_blob(&client, &reference, digest).await => {}
            Err(e) => return Err(explain(e, options, &format!("uploading {digest}"))),
        }
        eprintln!("    {digest}: uploaded ({} bytes)", bytes.len());
    }
    let content_type = media_type
        .parse()
        .with_context(|| format!("the manifest's media type {media_type:?}"))?;
    client
        .push_manifest_raw(&reference, manifest_bytes, content_type)
        .await
        .map_err(|e| {
            explain(
                e,
                options,
                &format!("putting the manifest under {}", target.tag),
            )
        })?;
    // A registry that stored something else (a converted manifest) under the tag.
    if let Ok(theirs) = client.fetch_manifest_digest(&reference, &auth).await {
        ensure!(
            theirs == manifest_digest,
            "the registry stored the manifest as {theirs}, not {manifest_digest}"
        );
    }
    Ok(Pushed {
        reference: target.to_string(),
        digest: manifest_digest,
    })
}

/// Pushes the image of the OCI layout `layout` (as [`super::build`] writes it) to `target`:
/// its blobs, then the manifest under the tag.
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

    use bytes::Bytes;
    use http::{Method, header};
    use http_body_util::{BodyExt as _, Full};
    use hyper::service::service_fn;
    use hyper_util::rt::TokioIo;

    use super::*;
    use crate::image::oci::{Metadata, assemble, write_layout};

    /// idna's Unicode back end is unicode-rs (idna_adapter 1.1, chosen in Cargo.toml), not
    /// the stub of 1.0 that refuses every host name outside ASCII: a registry's
    /// internationalised name still goes out as punycode.
    #[test]
    fn internationalised_registry_hosts_become_punycode() {
        let url = url::Url::parse("https://bücher.example:5000/v2/").unwrap();
        assert_eq!(url.host_str(), Some("xn--bcher-kva.example"));
    }

    /// The pin holds: the workspace's lock file (which every scaffolded project starts from)
    /// has no ICU4X crate, which idna_adapter 1.2 would bring back (18 crates).
    #[test]
    fn the_lock_file_has_no_icu4x() {
        let lock = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.lock");
        let lock = std::fs::read_to_string(&lock).unwrap();
        let icu: Vec<&str> = lock
            .lines()
            .filter_map(|l| l.strip_prefix("name = \"")?.strip_suffix('"'))
            .filter(|name| name.starts_with("icu_"))
            .collect();
        assert!(icu.is_empty(), "ICU4X is back in Cargo.lock: {icu:?}");
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
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Scheme {
        /// Bearer tokens from `/token`, which wants basic auth as alice:wonderland.
        Bearer,
        /// Basic auth as alice:wonderland on every request, and an upload's closing `PUT`
        /// answered without a `Location`, as go-containerregistry's registry answers it.
        Basic,
    }

    #[derive(Default, Debug)]
    struct State {
        blobs: HashMap<String, Vec<u8>>,
        /// upload id -> the bytes so far
        uploads_open: HashMap<usize, Vec<u8>>,
        /// tag -> (content type, bytes)
        manifests: HashMap<String, (String, Vec<u8>)>,
        /// Blobs completed.
        uploads: usize,
        /// Tokens given, by the scope asked for.
        tokens: Vec<String>,
    }

    const GOOD_TOKEN: &str = "t0ken-for-alice";

    fn basic_of(user: &str, pass: &str) -> String {
        let pair = format!("{user}:{pass}");
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(pair)
        )
    }

    /// A query's parameters, percent-decoded.
    fn query_params(query: &str) -> HashMap<String, String> {
        let decode = |s: &str| {
            let bytes = s.as_bytes();
            let mut out = Vec::new();
            let mut i = 0;
            while i < bytes.len() {
                match bytes[i] {
                    b'%' => {
                        out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
                        i += 3;
                    }
                    b'+' => {
                        out.push(b' ');
                        i += 1;
                    }
                    b => {
                        out.push(b);
                        i += 1;
                    }
                }
            }
            String::from_utf8(out).unwrap()
        };
        query
            .split('&')
            .filter(|kv| !kv.is_empty())
            .map(|kv| {
                let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
                (decode(k), decode(v))
            })
            .collect()
    }

    /// The distribution API as the spec has it (and as far as a push needs it): `/v2/`
    /// challenges, uploads started with `POST`, chunks `PATCH`ed, closed with `PUT ?digest=`,
    /// manifests `PUT` and `HEAD`.
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
        let query = query_params(parts.uri.query().unwrap_or(""));
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
            assert_eq!(query["service"], "fake");
            let scope = query["scope"].clone();
            assert!(scope.starts_with("repository:team/op:pull"), "{scope}");
            state.lock().unwrap().tokens.push(scope);
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
                b"{\"errors\":[{\"code\":\"UNAUTHORIZED\",\"message\":\"authentication required\"}]}"
                    .to_vec(),
            );
        }
        if path == "/v2/" {
            return reply(200, &[], b"{}".to_vec());
        }
        let mut state = state.lock().unwrap();
        let method = parts.method.clone();
        if path == "/v2/team/op/blobs/uploads/" && method == Method::POST {
            let id = state.uploads_open.len() + state.uploads + 1;
            state.uploads_open.insert(id, Vec::new());
            return reply(
                202,
                &[(
                    "location",
                    format!("/v2/team/op/blobs/uploads/{id}?state=x"),
                )],
                Vec::new(),
            );
        }
        if let Some(id) = path.strip_prefix("/v2/team/op/blobs/uploads/") {
            let id: usize = id.parse().unwrap();
            assert_eq!(query["state"], "x", "the upload's location is kept whole");
            let Some(so_far) = state.uploads_open.get_mut(&id) else {
                return reply(404, &[], b"BLOB_UPLOAD_UNKNOWN".to_vec());
            };
            so_far.extend_from_slice(&body);
            let location = format!("/v2/team/op/blobs/uploads/{id}?state=x");
            if method == Method::PATCH {
                let range = format!("0-{}", so_far.len().saturating_sub(1));
                return reply(202, &[("location", location), ("range", range)], Vec::new());
            }
            assert_eq!(method, Method::PUT);
            let digest = query["digest"].clone();
            let bytes = state.uploads_open.remove(&id).unwrap();
            if oci::digest(&bytes) != digest {
                return reply(400, &[], b"DIGEST_INVALID".to_vec());
            }
            state.uploads += 1;
            state.blobs.insert(digest.clone(), bytes);
            let location = match scheme {
                Scheme::Bearer => vec![("location", format!("/v2/team/op/blobs/{digest}"))],
                Scheme::Basic => vec![],
            };
            return reply(201, &location, Vec::new());
        }
        if let Some(digest) = path.strip_prefix("/v2/team/op/blobs/")
            && method == Method::GET
        {
            return match state.blobs.get(digest) {
                Some(bytes) => reply(200, &[], bytes.clone()),
                None => reply(404, &[], b"BLOB_UNKNOWN".to_vec()),
            };
        }
        if let Some(tag) = path.strip_prefix("/v2/team/op/manifests/") {
            if method == Method::PUT {
                let content_type = parts.headers[header::CONTENT_TYPE]
                    .to_str()
                    .unwrap()
                    .to_string();
                let digest = oci::digest(&body);
                state
                    .manifests
                    .insert(tag.to_string(), (content_type, body.to_vec()));
                return reply(
                    201,
                    &[
                        ("docker-content-digest", digest.clone()),
                        ("location", format!("/v2/team/op/manifests/{digest}")),
                    ],
                    Vec::new(),
                );
            }
            return match state.manifests.get(tag) {
                Some((content_type, bytes)) => reply(
                    200,
                    &[
                        ("docker-content-digest", oci::digest(bytes)),
                        ("content-type", content_type.clone()),
                    ],
                    if method == Method::HEAD {
                        Vec::new()
                    } else {
                        bytes.clone()
                    },
                ),
                None => reply(404, &[], b"MANIFEST_UNKNOWN".to_vec()),
            };
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
    /// credentials: the push gets one for pushing, uploads both blobs and puts the manifest,
    /// byte for byte, with its media type; a second push of the same image finds the tag
    /// naming it and uploads nothing.
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
            assert!(
                state
                    .tokens
                    .contains(&"repository:team/op:pull,push".to_string()),
                "{:?}",
                state.tokens
            );
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
        assert!(err.contains("incorrect username or password"), "{err}");
        let err = format!(
            "{:#}",
            push_async(dir.path(), &target, &PushOptions::default())
                .await
                .unwrap_err()
        );
        assert!(err.contains("without credentials"), "{err}");
        assert!(err.contains("--password-stdin"), "{err}");
        assert!(state.lock().unwrap().manifests.is_empty());
    }

    /// A registry that wants basic auth gets the credentials (and an upload closed without a
    /// `Location` is taken once the blob reads back); without any it is an error that says
    /// how to give them.
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
        assert_eq!(state.lock().unwrap().uploads, 2);
        // The same image under another tag: the blobs are there, only the manifest goes up.
        let again: Reference = format!("localhost:{port}/team/op:v2-again")
            .parse()
            .unwrap();
        push_async(dir.path(), &again, &alice("wonderland"))
            .await
            .unwrap();
        assert_eq!(state.lock().unwrap().uploads, 2, "nothing uploaded twice");
        assert_eq!(
            state.lock().unwrap().manifests["v2-again"].1,
            image.manifest.bytes
        );
        let other: Reference = format!("localhost:{port}/team/op:v3").parse().unwrap();
        let err = format!(
            "{:#}",
            push_async(dir.path(), &other, &PushOptions::default())
                .await
                .unwrap_err()
        );
        assert!(
            err.contains("wants a user and password") && err.contains("--password-stdin"),
            "{err}"
        );
        let err = format!(
            "{:#}",
            push_async(dir.path(), &other, &alice("nope"))
                .await
                .unwrap_err()
        );
        assert!(err.contains("refused the credentials of alice"), "{err}");
        assert!(!state.lock().unwrap().manifests.contains_key("v3"));
    }

    /// Plain HTTP only on loopback, unless asked for.
    #[test]
    fn https_unless_loopback_or_insecure() {
        assert!(plain_http("127.0.0.1:5000", false));
        assert!(plain_http("localhost:5000", false));
        assert!(plain_http("localhost", false));
        assert!(plain_http("[::1]:5000", false));
        assert!(!plain_http("registry.example:5000", false));
        assert!(!plain_http("localhost.example", false));
        assert!(plain_http("registry.example", true));
        let target: Reference = "a:1".parse().unwrap();
        let (_, reference, _) = client(&target, &PushOptions::default());
        assert_eq!(reference.resolve_registry(), "index.docker.io");
        assert_eq!(reference.repository(), "library/a");
        assert_eq!(reference.tag(), Some("1"));
    }
}
