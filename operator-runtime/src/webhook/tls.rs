//! The server's certificate and key: fixed PEM, or two files re-read when they change
//! (the webhook server's and, through [`crate::secure_metrics`], the metrics server's).
//!
//! cert-manager renews the certificate into a Secret; the kubelet updates the Secret's
//! volume by writing the new files into a fresh directory and swapping a symlink, so the
//! mounted `tls.crt` and `tls.key` change under the running server. The server must then
//! present the new certificate without a restart.
//!
//! How a change is noticed, cheaply: every TLS handshake `stat`s the two files (two system
//! calls, no reads) and compares device, inode, size, modification and change times with
//! what they were when last read. The usual case, nothing changed, costs those two calls
//! and a read lock. When anything differs, both files are read again; a pair that parses
//! and whose key matches the certificate replaces the served one, anything else (one file
//! written and not yet the other, a missing file, garbage) is logged once and the previous
//! pair keeps serving. File times are only as fine as the kernel's clock tick, so a file
//! rewritten in place within the tick of the previous write, with the same size, would look
//! unchanged: while the files' times are less than two seconds old the contents are
//! compared too, as git does for "racily clean" files. Handshakes resuming a TLS session do
//! not ask for a certificate; new connections get the new one.

use std::fmt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::{CertifiedKey, SingleCertAndKey};
use rustls::{ServerConfig, version};
use tracing::{info, warn};

use super::{DEFAULT_CERT_DIR, DEFAULT_CERT_NAME, DEFAULT_KEY_NAME, WebhookError};

/// Where the server's certificate chain and private key come from.
#[derive(Clone, PartialEq, Eq)]
pub enum Certificates {
    /// PEM files, re-read when they change (see the module documentation of
    /// [`webhook`](super)).
    Files {
        /// The certificate chain's file.
        cert: PathBuf,
        /// The private key's file.
        key: PathBuf,
    },
    /// PEM held in memory, never reloaded (tests; certificates from elsewhere).
    Pem {
        /// The certificate chain.
        cert: Vec<u8>,
        /// The private key.
        key: Vec<u8>,
    },
    /// A pair replaced while the server runs, by whoever holds the handle: the webhook
    /// certificates the operator manages itself ([`CertRotator`](super::CertRotator)).
    /// Handshakes fail until a first pair is set.
    Shared(SharedCertificate),
}

/// A certificate and key the server presents, replaced at run time with
/// [`SharedCertificate::set_pem`]; clones share it.
#[derive(Clone, Default)]
pub struct SharedCertificate(Arc<RwLock<Option<Arc<CertifiedKey>>>>);

impl SharedCertificate {
    /// None yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// From now on, new connections get this certificate chain and key; an error (not PEM,
    /// a key that does not fit) leaves the previous pair.
    pub fn set_pem(&self, cert: &[u8], key: &[u8]) -> Result<(), String> {
        let provider = rustls::crypto::ring::default_provider();
        let pair = certified_key(cert, key, &provider)?;
        *self.0.write().unwrap_or_else(PoisonError::into_inner) = Some(Arc::new(pair));
        Ok(())
    }

    /// Whether a pair was set.
    pub fn is_set(&self) -> bool {
        self.0
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }
}

/// The same handle.
impl PartialEq for SharedCertificate {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for SharedCertificate {}

impl fmt::Debug for SharedCertificate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedCertificate")
            .field("set", &self.is_set())
            .finish()
    }
}

impl ResolvesServerCert for SharedCertificate {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        self.0
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Certificates {
    /// `tls.crt` and `tls.key` in `dir` (the names of a `kubernetes.io/tls` Secret's keys).
    pub fn in_dir(dir: impl AsRef<Path>) -> Self {
        Self::files(
            dir.as_ref().join(DEFAULT_CERT_NAME),
            dir.as_ref().join(DEFAULT_KEY_NAME),
        )
    }

    /// PEM files at these paths, re-read when they change.
    pub fn files(cert: impl Into<PathBuf>, key: impl Into<PathBuf>) -> Self {
        Self::Files {
            cert: cert.into(),
            key: key.into(),
        }
    }

    /// PEM in memory.
    pub fn pem(cert: impl Into<Vec<u8>>, key: impl Into<Vec<u8>>) -> Self {
        Self::Pem {
            cert: cert.into(),
            key: key.into(),
        }
    }
}

/// controller-runtime's default: `tls.crt` and `tls.key` in
/// `/tmp/k8s-webhook-server/serving-certs`.
impl Default for Certificates {
    fn default() -> Self {
        Self::in_dir(DEFAULT_CERT_DIR)
    }
}

/// Never prints the key.
impl fmt::Debug for Certificates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Files { cert, key } => f
                .debug_struct("Files")
                .field("cert", cert)
                .field("key", key)
                .finish(),
            Self::Pem { cert, .. } => f
                .debug_struct("Pem")
                .field("cert", &format_args!("{} bytes", cert.len()))
                .field("key", &format_args!("<hidden>"))
                .finish(),
            Self::Shared(shared) => f.debug_tuple("Shared").field(shared).finish(),
        }
    }
}

/// TLS 1.2 and 1.3 with ring's algorithms; HTTP/1.1 only (see [`super::WebhookServer`]).
pub(crate) fn server_config(
    certificates: &Certificates,
) -> Result<Arc<ServerConfig>, WebhookError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let resolver: Arc<dyn ResolvesServerCert> = match certificates {
        Certificates::Files { cert, key } => {
            Arc::new(ReloadingCertificate::load(cert, key, provider.clone())?)
        }
        Certificates::Pem { cert, key } => {
            let pair = certified_key(cert, key, &provider).map_err(|message| {
                WebhookError::Certificate {
                    what: "the PEM certificate and key".into(),
                    message,
                }
            })?;
            Arc::new(SingleCertAndKey::from(pair))
        }
        Certificates::Shared(shared) => Arc::new(shared.clone()),
    };
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&version::TLS13, &version::TLS12])
        .map_err(|e| WebhookError::Certificate {
            what: "the TLS configuration".into(),
            message: e.to_string(),
        })?
        .with_no_client_auth()
        .with_cert_resolver(resolver);
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

fn certified_key(
    cert_pem: &[u8],
    key_pem: &[u8],
    provider: &CryptoProvider,
) -> Result<CertifiedKey, String> {
    let chain = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("the certificate is not PEM: {e}"))?;
    if chain.is_empty() {
        return Err("no certificate in the PEM".into());
    }
    let key = PrivateKeyDer::from_pem_slice(key_pem)
        .map_err(|e| format!("no private key in the PEM: {e}"))?;
    CertifiedKey::from_der(chain, key, provider)
        .map_err(|e| format!("the key does not fit the certificate: {e}"))
}

/// What `stat` says about one file; any change of it means the file may have changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileStamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl FileStamp {
    fn of(path: &Path) -> std::io::Result<Self> {
        let meta = std::fs::metadata(path)?;
        Ok(Self {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        })
    }

    /// Nanoseconds since the epoch of the later of the two times.
    fn newest(&self) -> i128 {
        let ns = |(s, n): (i64, i64)| i128::from(s) * 1_000_000_000 + i128::from(n);
        ns(self.mtime).max(ns(self.ctime))
    }
}

/// How old the files' times must be before a later write is sure to change them.
const RACY_WINDOW: Duration = Duration::from_secs(2);

type Stamps = (FileStamp, FileStamp);

fn stamps(cert: &Path, key: &Path) -> Option<Stamps> {
    Some((FileStamp::of(cert).ok()?, FileStamp::of(key).ok()?))
}

/// Whether the files' times are old enough that any later write changes them.
fn settled(stamps: &Stamps) -> bool {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128);
    let newest = stamps.0.newest().max(stamps.1.newest());
    now - newest > RACY_WINDOW.as_nanos() as i128
}

struct Served {
    key: Arc<CertifiedKey>,
    /// The files' stamps when last read (whether or not that read gave a usable pair).
    seen: Option<Stamps>,
    /// `seen` can be trusted to change with the files.
    settled: bool,
    /// The bytes last read, usable or not: rereading the same bytes changes nothing.
    last_read: (Vec<u8>, Vec<u8>),
}

/// A certificate resolver that follows two files.
pub(crate) struct ReloadingCertificate {
    cert: PathBuf,
    key: PathBuf,
    provider: Arc<CryptoProvider>,
    served: RwLock<Served>,
}

impl fmt::Debug for ReloadingCertificate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReloadingCertificate")
            .field("cert", &self.cert)
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

fn read_pair(cert: &Path, key: &Path) -> Result<(Vec<u8>, Vec<u8>), (PathBuf, std::io::Error)> {
    let read = |path: &Path| std::fs::read(path).map_err(|e| (path.to_path_buf(), e));
    Ok((read(cert)?, read(key)?))
}

impl ReloadingCertificate {
    /// Reads the files; the server does not start without a usable pair.
    pub(crate) fn load(
        cert: &Path,
        key: &Path,
        provider: Arc<CryptoProvider>,
    ) -> Result<Self, WebhookError> {
        let what = || format!("{} and {}", cert.display(), key.display());
        let seen = stamps(cert, key);
        let bytes = read_pair(cert, key).map_err(|(path, e)| WebhookError::Certificate {
            what: what(),
            message: format!("cannot read {}: {e}", path.display()),
        })?;
        let pair = certified_key(&bytes.0, &bytes.1, &provider).map_err(|message| {
            WebhookError::Certificate {
                what: what(),
                message,
            }
        })?;
        Ok(Self {
            cert: cert.to_path_buf(),
            key: key.to_path_buf(),
            provider,
            served: RwLock::new(Served {
                key: Arc::new(pair),
                settled: seen.as_ref().is_some_and(settled),
                seen,
                last_read: bytes,
            }),
        })
    }

    /// The pair to present now, reread first if the files changed.
    pub(crate) fn current(&self) -> Arc<CertifiedKey> {
        let now = stamps(&self.cert, &self.key);
        {
            let served = self.served.read().unwrap_or_else(PoisonError::into_inner);
            // Files missing (in the middle of a swap, or deleted): keep what works.
            if now.is_none() || (served.settled && served.seen == now) {
                return served.key.clone();
            }
        }
        let mut served = self.served.write().unwrap_or_else(PoisonError::into_inner);
        if served.settled && served.seen == now {
            // Another handshake reread them meanwhile.
            return served.key.clone();
        }
        served.seen = now;
        served.settled = now.as_ref().is_some_and(settled);
        let bytes = match read_pair(&self.cert, &self.key) {
            Ok(bytes) => bytes,
            Err((path, e)) => {
                warn!(path = %path.display(), error = %e, "cannot reread the serving certificate; serving the previous one");
                return served.key.clone();
            }
        };
        if bytes == served.last_read {
            return served.key.clone();
        }
        match certified_key(&bytes.0, &bytes.1, &self.provider) {
            Ok(pair) => {
                info!(cert = %self.cert.display(), "serving certificate reloaded");
                served.key = Arc::new(pair);
            }
            Err(message) => {
                warn!(cert = %self.cert.display(), key = %self.key.display(), %message,
                    "the serving certificate files changed but are not usable; serving the previous certificate");
            }
        }
        served.last_read = bytes;
        served.key.clone()
    }
}

impl ResolvesServerCert for ReloadingCertificate {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(name: &str) -> (String, String) {
        let generated = rcgen::generate_simple_self_signed(vec![name.to_string()]).unwrap();
        (generated.cert.pem(), generated.signing_key.serialize_pem())
    }

    fn der(cert_pem: &str) -> Vec<u8> {
        CertificateDer::from_pem_slice(cert_pem.as_bytes())
            .unwrap()
            .to_vec()
    }

    fn served(resolver: &ReloadingCertificate) -> Vec<u8> {
        resolver.current().cert[0].to_vec()
    }

    fn provider() -> Arc<CryptoProvider> {
        Arc::new(rustls::crypto::ring::default_provider())
    }

    #[test]
    fn files_rewritten_in_place_are_served_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let (cert, key) = (dir.path().join("tls.crt"), dir.path().join("tls.key"));
        let first = pair("first.example.com");
        std::fs::write(&cert, &first.0).unwrap();
        std::fs::write(&key, &first.1).unwrap();
        let resolver = ReloadingCertificate::load(&cert, &key, provider()).unwrap();
        assert_eq!(served(&resolver), der(&first.0));

        // Same inodes, very likely the same clock tick and sizes: only the contents differ.
        let second = pair("second.example.com");
        std::fs::write(&cert, &second.0).unwrap();
        std::fs::write(&key, &second.1).unwrap();
        assert_eq!(served(&resolver), der(&second.0));
    }

    #[test]
    fn unusable_files_keep_the_previous_certificate() {
        let dir = tempfile::tempdir().unwrap();
        let (cert, key) = (dir.path().join("tls.crt"), dir.path().join("tls.key"));
        let first = pair("first.example.com");
        std::fs::write(&cert, &first.0).unwrap();
        std::fs::write(&key, &first.1).unwrap();
        let resolver = ReloadingCertificate::load(&cert, &key, provider()).unwrap();

        // Half a rotation: the new certificate with the old key.
        let second = pair("second.example.com");
        std::fs::write(&cert, &second.0).unwrap();
        assert_eq!(served(&resolver), der(&first.0));
        // The key follows: now the pair is usable.
        std::fs::write(&key, &second.1).unwrap();
        assert_eq!(served(&resolver), der(&second.0));

        std::fs::write(&cert, "garbage").unwrap();
        assert_eq!(served(&resolver), der(&second.0));
        std::fs::remove_file(&key).unwrap();
        assert_eq!(served(&resolver), der(&second.0));
    }

    #[test]
    fn a_kubelet_style_symlink_swap_is_followed() {
        let dir = tempfile::tempdir().unwrap();
        let write_generation = |name: &str, pair: &(String, String)| {
            let generation = dir.path().join(name);
            std::fs::create_dir(&generation).unwrap();
            std::fs::write(generation.join("tls.crt"), &pair.0).unwrap();
            std::fs::write(generation.join("tls.key"), &pair.1).unwrap();
            let link = dir.path().join("..data_tmp");
            std::os::unix::fs::symlink(name, &link).unwrap();
            std::fs::rename(&link, dir.path().join("..data")).unwrap();
        };
        let first = pair("first.example.com");
        write_generation("..gen1", &first);
        for file in ["tls.crt", "tls.key"] {
            std::os::unix::fs::symlink(format!("..data/{file}"), dir.path().join(file)).unwrap();
        }
        let resolver = ReloadingCertificate::load(
            &dir.path().join("tls.crt"),
            &dir.path().join("tls.key"),
            provider(),
        )
        .unwrap();
        assert_eq!(served(&resolver), der(&first.0));
        let second = pair("second.example.com");
        write_generation("..gen2", &second);
        assert_eq!(served(&resolver), der(&second.0));
    }

    #[test]
    fn missing_or_bad_files_at_start_are_an_error_naming_them() {
        let dir = tempfile::tempdir().unwrap();
        let err = server_config(&Certificates::in_dir(dir.path())).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("tls.crt") && text.contains("cannot read"),
            "{text}"
        );

        let err = server_config(&Certificates::pem("nope", "nope")).unwrap_err();
        assert!(err.to_string().contains("no certificate"), "{err}");
    }

    #[test]
    fn debug_output_never_shows_the_key() {
        let (cert, key) = pair("a.example.com");
        let text = format!("{:?}", Certificates::pem(cert, key.clone()));
        assert!(!text.contains(&key[40..80]), "{text}");
    }
}
