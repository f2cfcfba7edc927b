//! The standard flags of a kubebuilder operator, with the same names (so manifests written for
//! Go operators pass the same arguments), each also read from an environment variable.
//! `#[command(flatten)]` them into the operator's own parser, then
//! [`ManagerFlags::options`] turns them into [`ManagerOptions`].

use std::net::SocketAddr;
use std::time::Duration;

use clap::{Args, ValueEnum};

use crate::manager::{LeaderElection, ManagerOptions};
use crate::secure_metrics::{MetricsCertificates, MetricsSecurity, SecureMetrics};

/// Where the manager serves, whether it elects a leader, what it watches, how it logs.
#[derive(Args, Debug, Clone)]
pub struct ManagerFlags {
    /// Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, then the in-cluster service
    /// account, as kubectl).
    #[arg(long, value_name = "PATH")]
    pub kubeconfig: Option<std::path::PathBuf>,
    /// Address of the Prometheus endpoint (/metrics); `0` turns it off. The default port
    /// stays 8080 whether or not it is secure (kubebuilder's main serves nothing unless given
    /// an address; its config/default passes `:8443`, as ours does).
    #[arg(long, env = "METRICS_BIND_ADDRESS", default_value = "0.0.0.0:8080")]
    pub metrics_bind_address: String,
    /// Serve /metrics over HTTPS to callers whose bearer token the API server authenticates
    /// (TokenReview) and authorizes for `get` on /metrics (SubjectAccessReview);
    /// `--metrics-secure=false` serves plain HTTP to anyone.
    #[arg(
        long,
        env = "METRICS_SECURE",
        default_value_t = true,
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true",
        action = clap::ArgAction::Set
    )]
    pub metrics_secure: bool,
    /// Directory of the metrics server's certificate and key, reloaded when they change
    /// (default: a self-signed certificate generated at start).
    #[arg(long, env = "METRICS_CERT_PATH", value_name = "DIR")]
    pub metrics_cert_path: Option<std::path::PathBuf>,
    /// File name of the metrics certificate in that directory.
    #[arg(long, env = "METRICS_CERT_NAME", default_value = crate::webhook::DEFAULT_CERT_NAME)]
    pub metrics_cert_name: String,
    /// File name of the metrics private key in that directory.
    #[arg(long, env = "METRICS_CERT_KEY", default_value = crate::webhook::DEFAULT_KEY_NAME)]
    pub metrics_cert_key: String,
    /// Address of /healthz and /readyz; `0` turns them off.
    #[arg(
        long,
        env = "HEALTH_PROBE_BIND_ADDRESS",
        default_value = "0.0.0.0:8081"
    )]
    pub health_probe_bind_address: String,
    /// Elect a leader on a Lease so that only one instance reconciles.
    #[arg(long, env = "LEADER_ELECT")]
    pub leader_elect: bool,
    /// Namespace of the Lease (default: $POD_NAMESPACE, the pod's namespace, else `default`).
    #[arg(long, env = "LEADER_ELECTION_NAMESPACE")]
    pub leader_election_namespace: Option<String>,
    /// Name of the Lease (default: the operator's own).
    #[arg(long, env = "LEADER_ELECTION_ID")]
    pub leader_election_id: Option<String>,
    /// How long a lease lasts without renewal.
    #[arg(long, default_value = "15", value_name = "SECONDS")]
    pub lease_duration: u64,
    /// Watch only this namespace (default: all).
    #[arg(long, env = "WATCH_NAMESPACE")]
    pub watch_namespace: Option<String>,
    /// Reconcile every object again this long after its last reconcile, also when nothing
    /// changed (a Go duration: `10h`, `30m`, `1h30m`, `90s`; `0` turns it off). Watches
    /// deliver every change, so this only repairs what no event reports; controller-runtime's
    /// cache resyncs every 10 hours by default, and so does this.
    #[arg(long, env = "SYNC_PERIOD", default_value = "10h", value_parser = parse_duration)]
    pub sync_period: Duration,
    /// Wait this long after an object's last event before reconciling it (a Go duration;
    /// `0` reconciles at once). A Deployment rolling out, its pods starting and becoming ready
    /// send a burst of events; one reconcile after the burst writes the status once instead
    /// of once per step. Every event restarts the wait, so keep it well under the time
    /// between an object's changes in steady state.
    #[arg(long, env = "RECONCILE_DEBOUNCE", default_value = "500ms", value_parser = parse_duration)]
    pub reconcile_debounce: Duration,
    /// Progress reports each controller writes per second, all its objects together: status
    /// writes that tell how far work under way has got (a rollout's "2/3 pods ready"), which
    /// the next write supersedes. A change of state (done, failed, lost) is always written at
    /// once; when many objects change at once, most of their interim reports are skipped
    /// so that the API server spends itself on the changes. `0` writes none.
    #[arg(long, env = "PROGRESS_REPORTS", value_name = "PER_SECOND",
          default_value_t = crate::manager::DEFAULT_PROGRESS_REPORTS)]
    pub progress_reports: u32,
    /// Log format.
    #[arg(long, env = "LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

/// Where the webhook server's certificate comes from: kubebuilder's flags for a certificate
/// in files (cert-manager's, mounted from its Secret), with controller-runtime's defaults, or
/// `--webhook-cert-secret` for one the operator keeps itself
/// ([`CertRotator`](crate::webhook::CertRotator)). The server's other settings are
/// [`WebhookOptions`](crate::webhook::WebhookOptions)' defaults.
#[derive(Args, Debug, Clone)]
pub struct WebhookFlags {
    /// Directory of the webhook server's certificate and key (default:
    /// /tmp/k8s-webhook-server/serving-certs), as cert-manager's Secret is mounted.
    #[arg(long, env = "WEBHOOK_CERT_PATH", value_name = "DIR")]
    pub webhook_cert_path: Option<std::path::PathBuf>,
    /// File name of the certificate in that directory.
    #[arg(long, env = "WEBHOOK_CERT_NAME", default_value = crate::webhook::DEFAULT_CERT_NAME)]
    pub webhook_cert_name: String,
    /// File name of the private key in that directory.
    #[arg(long, env = "WEBHOOK_CERT_KEY", default_value = crate::webhook::DEFAULT_KEY_NAME)]
    pub webhook_cert_key: String,
    /// Keep the certificate in this Secret of the operator's namespace ($POD_NAMESPACE)
    /// instead of reading files: a CA and a serving certificate of the operator's own,
    /// renewed before they expire, the CA bundle written into the configurations named
    /// below. No cert-manager needed; every replica does it, agreeing through the API server.
    #[arg(
        long,
        env = "WEBHOOK_CERT_SECRET",
        value_name = "NAME",
        conflicts_with = "webhook_cert_path"
    )]
    pub webhook_cert_secret: Option<String>,
    /// The webhook Service: the certificate is for `<service>.<namespace>.svc`.
    #[arg(
        long,
        env = "WEBHOOK_SERVICE",
        value_name = "NAME",
        default_value = "webhook-service"
    )]
    pub webhook_service: String,
    /// ValidatingWebhookConfigurations whose webhooks get the CA bundle (comma-separated).
    #[arg(
        long,
        env = "WEBHOOK_VALIDATING_CONFIGURATIONS",
        value_name = "NAMES",
        value_delimiter = ','
    )]
    pub webhook_validating_configurations: Vec<String>,
    /// MutatingWebhookConfigurations whose webhooks get the CA bundle (comma-separated).
    #[arg(
        long,
        env = "WEBHOOK_MUTATING_CONFIGURATIONS",
        value_name = "NAMES",
        value_delimiter = ','
    )]
    pub webhook_mutating_configurations: Vec<String>,
    /// CustomResourceDefinitions whose conversion webhook gets the CA bundle
    /// (comma-separated).
    #[arg(
        long,
        env = "WEBHOOK_CONVERSION_CRDS",
        value_name = "NAMES",
        value_delimiter = ','
    )]
    pub webhook_conversion_crds: Vec<String>,
    /// Further host names or IP addresses the certificate is for, for configurations that
    /// reach the server by URL (comma-separated).
    #[arg(
        long,
        env = "WEBHOOK_CERT_HOSTS",
        value_name = "HOSTS",
        value_delimiter = ','
    )]
    pub webhook_cert_hosts: Vec<String>,
    /// How long a serving certificate the operator makes is valid (a Go duration); it is
    /// renewed after two thirds of it.
    #[arg(long, env = "WEBHOOK_CERT_VALIDITY", default_value = "8760h", value_parser = parse_duration)]
    pub webhook_cert_validity: Duration,
}

/// Where the webhook server's certificate comes from, as [`WebhookFlags::source`] reads it.
#[derive(Debug, Clone)]
pub enum WebhookCertSource {
    /// Files (cert-manager's): these options as they are.
    Files(crate::webhook::WebhookOptions),
    /// A Secret the operator keeps: a [`CertRotator`](crate::webhook::CertRotator) with these
    /// options runs beside the server.
    Secret(crate::webhook::RotatorOptions),
}

impl WebhookFlags {
    /// The webhook server's options for certificate files: these, everything else default.
    pub fn options(&self) -> crate::webhook::WebhookOptions {
        let dir = self
            .webhook_cert_path
            .clone()
            .filter(|dir| !dir.as_os_str().is_empty())
            .unwrap_or_else(|| crate::webhook::DEFAULT_CERT_DIR.into());
        crate::webhook::WebhookOptions {
            certificates: crate::webhook::Certificates::files(
                dir.join(&self.webhook_cert_name),
                dir.join(&self.webhook_cert_key),
            ),
            ..Default::default()
        }
    }

    /// Files or a Secret, as the flags say. The Secret is in `$POD_NAMESPACE` (else the
    /// namespace of the pod's service account, else `default`).
    pub fn source(&self) -> Result<WebhookCertSource, FlagError> {
        let Some(secret) = self.webhook_cert_secret.clone().filter(|s| !s.is_empty()) else {
            return Ok(WebhookCertSource::Files(self.options()));
        };
        if self.webhook_cert_validity < Duration::from_secs(30) {
            return Err(FlagError::WebhookCertValidity(self.webhook_cert_validity));
        }
        let names = |list: &[String]| -> Vec<String> {
            list.iter()
                .map(|n| n.trim().to_string())
                .filter(|n| !n.is_empty())
                .collect()
        };
        let namespace = std::env::var("POD_NAMESPACE")
            .ok()
            .filter(|ns| !ns.is_empty())
            .or_else(pod_namespace)
            .unwrap_or_else(|| "default".into());
        let mut options =
            crate::webhook::RotatorOptions::new(namespace, secret, self.webhook_service.clone());
        options.validating = names(&self.webhook_validating_configurations);
        options.mutating = names(&self.webhook_mutating_configurations);
        options.conversion_crds = names(&self.webhook_conversion_crds);
        options.extra_hosts = names(&self.webhook_cert_hosts);
        options.cert_validity = self.webhook_cert_validity;
        if options.validating.is_empty()
            && options.mutating.is_empty()
            && options.conversion_crds.is_empty()
        {
            return Err(FlagError::WebhookCertNoConfiguration);
        }
        Ok(WebhookCertSource::Secret(options))
    }
}

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines (the default), controller-runtime's development encoder.
    Text,
    /// One JSON object per line, controller-runtime's production encoder.
    Json,
}

/// A flag with a value the manager cannot use.
#[derive(Debug, thiserror::Error)]
pub enum FlagError {
    /// An address flag (`--metrics-bind-address`, `--health-probe-bind-address`) that is not
    /// `host:port`, `:port` or `0`.
    #[error("--{flag}={value} is not an address like 0.0.0.0:8080 or :8080")]
    Address {
        /// The flag's name, without the dashes.
        flag: &'static str,
        /// What it was given.
        value: String,
    },
    /// A `--lease-duration` under one second.
    #[error("--lease-duration must be at least 1 second")]
    LeaseDuration,
    /// A `--webhook-cert-validity` too short to renew in time.
    #[error(
        "--webhook-cert-validity={0:?} is too short: a certificate must be valid for at least 30s"
    )]
    WebhookCertValidity(Duration),
    /// `--webhook-cert-secret` without a configuration to write the CA bundle into.
    #[error(
        "--webhook-cert-secret needs the configurations that trust the certificate: name them \
         with --webhook-validating-configurations, --webhook-mutating-configurations or \
         --webhook-conversion-crds"
    )]
    WebhookCertNoConfiguration,
}

impl ManagerFlags {
    /// The manager's options. `name` is the operator's (field manager of the Lease, log
    /// lines); `default_lease` names the Lease when `--leader-election-id` is not given
    /// (kubebuilder uses `<hash>.<domain>`; any stable DNS name does).
    pub fn options(&self, name: &str, default_lease: &str) -> Result<ManagerOptions, FlagError> {
        if self.leader_elect && self.lease_duration == 0 {
            return Err(FlagError::LeaseDuration);
        }
        let leader_election = self.leader_elect.then(|| LeaderElection {
            namespace: self
                .leader_election_namespace
                .clone()
                .filter(|ns| !ns.is_empty())
                .or_else(|| {
                    std::env::var("POD_NAMESPACE")
                        .ok()
                        .filter(|ns| !ns.is_empty())
                })
                .or_else(pod_namespace)
                .unwrap_or_else(|| "default".into()),
            lease_name: self
                .leader_election_id
                .clone()
                .filter(|id| !id.is_empty())
                .unwrap_or_else(|| default_lease.to_string()),
            identity: identity(name),
            lease_duration: Duration::from_secs(self.lease_duration),
            renew_grace: Duration::from_secs((self.lease_duration / 3).max(1)),
        });
        Ok(ManagerOptions {
            name: name.to_string(),
            metrics_addr: address("metrics-bind-address", &self.metrics_bind_address)?,
            health_addr: address("health-probe-bind-address", &self.health_probe_bind_address)?,
            leader_election,
            reconcile: self.reconcile_settings(),
        })
    }

    /// `--sync-period`, `--reconcile-debounce` and `--progress-reports`.
    pub fn reconcile_settings(&self) -> crate::ReconcileSettings {
        crate::ReconcileSettings {
            sync_period: self.sync_period(),
            debounce: self.reconcile_debounce,
            progress_reports: self.progress_reports,
        }
    }

    /// How `/metrics` is served, for
    /// [`Manager::metrics_security`](crate::Manager::metrics_security):
    /// HTTPS with authentication and authorization unless `--metrics-secure=false`.
    pub fn metrics_security(&self) -> MetricsSecurity {
        if !self.metrics_secure {
            return MetricsSecurity::Plain;
        }
        let certificates = match self
            .metrics_cert_path
            .as_ref()
            .filter(|dir| !dir.as_os_str().is_empty())
        {
            Some(dir) => {
                MetricsCertificates::in_dir(dir, &self.metrics_cert_name, &self.metrics_cert_key)
            }
            None => MetricsCertificates::SelfSigned,
        };
        MetricsSecurity::Secure(SecureMetrics {
            certificates,
            ..SecureMetrics::default()
        })
    }

    /// The namespace to watch, `None` for all (an empty value means all too).
    pub fn watch_namespace(&self) -> Option<String> {
        self.watch_namespace.clone().filter(|ns| !ns.is_empty())
    }

    /// `--sync-period`, `None` when it is `0`.
    pub fn sync_period(&self) -> Option<Duration> {
        (!self.sync_period.is_zero()).then_some(self.sync_period)
    }
}

/// A Go duration as flags take them: a sequence of numbers with units `h`, `m`, `s`, `ms`
/// (`1h30m`, `90s`, `1.5h`), or `0`.
pub fn parse_duration(value: &str) -> Result<Duration, String> {
    let bad = || {
        format!("{value:?} is not a duration like 10h, 30m, 1h30m, 90s or 500ms (0 turns it off)")
    };
    let value = value.trim();
    if value == "0" {
        return Ok(Duration::ZERO);
    }
    let mut total = 0f64;
    let mut rest = value;
    if rest.is_empty() {
        return Err(bad());
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        let number: f64 = rest[..digits].parse().map_err(|_| bad())?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let seconds = match &rest[..unit_len] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 0.001,
            _ => return Err(bad()),
        };
        total += number * seconds;
        rest = &rest[unit_len..];
    }
    Duration::try_from_secs_f64(total).map_err(|_| bad())
}

/// `0` or nothing: off; Go's `:8080` means every interface.
fn address(flag: &'static str, value: &str) -> Result<Option<SocketAddr>, FlagError> {
    if value == "0" || value.is_empty() {
        return Ok(None);
    }
    let full = if value.starts_with(':') {
        format!("0.0.0.0{value}")
    } else {
        value.to_string()
    };
    full.parse().map(Some).map_err(|_| FlagError::Address {
        flag,
        value: value.to_string(),
    })
}

/// The namespace this pod runs in, from the service account mount.
fn pod_namespace() -> Option<String> {
    std::fs::read_to_string("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// Who holds the lease: the pod's name (the hostname in a pod) and the process id.
fn identity(name: &str) -> String {
    let host = std::env::var("POD_NAME")
        .ok()
        .filter(|n| !n.is_empty())
        .or_else(|| {
            std::fs::read_to_string("/etc/hostname")
                .ok()
                .map(|h| h.trim().to_string())
                .filter(|h| !h.is_empty())
        })
        .unwrap_or_else(|| name.to_string());
    format!("{host}_{}", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn durations_are_read_as_go_writes_them() {
        let d = |s| parse_duration(s).unwrap();
        assert_eq!(d("10h"), Duration::from_secs(36_000));
        assert_eq!(d("1h30m"), Duration::from_secs(5_400));
        assert_eq!(d("90s"), Duration::from_secs(90));
        assert_eq!(d("1.5h"), Duration::from_secs(5_400));
        assert_eq!(d("500ms"), Duration::from_millis(500));
        assert_eq!(d("0"), Duration::ZERO);
        for bad in ["", "10", "h", "10x", "1h30", "-5m", "1..5h", "10 h"] {
            let err = parse_duration(bad).unwrap_err();
            assert!(err.contains("is not a duration"), "{bad:?}: {err}");
        }
        let flags = parse(&["--sync-period", "0"]);
        assert_eq!(flags.sync_period(), None);
        let flags = parse(&[]);
        assert_eq!(flags.sync_period(), Some(Duration::from_secs(36_000)));
        assert_eq!(flags.reconcile_debounce, Duration::from_millis(500));
        let flags = parse(&["--reconcile-debounce", "0"]);
        assert_eq!(flags.reconcile_debounce, Duration::ZERO);
        assert_eq!(parse(&[]).reconcile_settings().progress_reports, 5);
        let flags = parse(&["--progress-reports", "0"]);
        assert_eq!(flags.reconcile_settings().progress_reports, 0);
    }

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(flatten)]
        manager: ManagerFlags,
    }

    #[derive(Parser, Debug)]
    struct WebhookCli {
        #[command(flatten)]
        webhook: WebhookFlags,
    }

    fn webhook(args: &[&str]) -> Result<WebhookFlags, clap::Error> {
        WebhookCli::try_parse_from(std::iter::once("op").chain(args.iter().copied()))
            .map(|cli| cli.webhook)
    }

    #[test]
    fn webhook_certificates_come_from_files_or_from_a_secret_the_operator_keeps() {
        let files = webhook(&["--webhook-cert-path", "/certs"]).unwrap();
        let WebhookCertSource::Files(options) = files.source().unwrap() else {
            panic!("files expected");
        };
        assert!(format!("{:?}", options.certificates).contains("/certs/tls.crt"));

        let kept = webhook(&[
            "--webhook-cert-secret=op-webhook-cert",
            "--webhook-service=op-webhook-service",
            "--webhook-validating-configurations=op-validating,",
            "--webhook-mutating-configurations",
            "op-mutating",
            "--webhook-conversion-crds=widgets.example.com,gadgets.example.com",
            "--webhook-cert-hosts=127.0.0.1",
            "--webhook-cert-validity=1h",
        ])
        .unwrap();
        let WebhookCertSource::Secret(rotator) = kept.source().unwrap() else {
            panic!("a Secret expected");
        };
        assert_eq!(rotator.secret, "op-webhook-cert");
        assert_eq!(rotator.service, "op-webhook-service");
        assert_eq!(rotator.validating, ["op-validating"]);
        assert_eq!(rotator.mutating, ["op-mutating"]);
        assert_eq!(
            rotator.conversion_crds,
            ["widgets.example.com", "gadgets.example.com"]
        );
        assert_eq!(rotator.cert_validity, Duration::from_secs(3600));
        let names = rotator.dns_names();
        assert!(names[0].starts_with("op-webhook-service."), "{names:?}");
        assert_eq!(names.last().map(String::as_str), Some("127.0.0.1"));

        // Both sources at once, nothing that would trust the certificate, too short a life.
        let both = webhook(&["--webhook-cert-path=/certs", "--webhook-cert-secret=s"]);
        assert!(
            both.unwrap_err()
                .to_string()
                .contains("--webhook-cert-path")
        );
        let alone = webhook(&["--webhook-cert-secret=s"]).unwrap();
        let err = alone.source().unwrap_err().to_string();
        assert!(err.contains("--webhook-validating-configurations"), "{err}");
        let short = webhook(&[
            "--webhook-cert-secret=s",
            "--webhook-validating-configurations=v",
            "--webhook-cert-validity=10s",
        ])
        .unwrap();
        let err = short.source().unwrap_err().to_string();
        assert!(
            err.contains("--webhook-cert-validity=10s is too short"),
            "{err}"
        );
    }

    fn parse(args: &[&str]) -> ManagerFlags {
        Cli::try_parse_from(std::iter::once("op").chain(args.iter().copied()))
            .unwrap()
            .manager
    }

    #[test]
    fn go_style_addresses_and_zero_are_understood() {
        let flags = parse(&[
            "--metrics-bind-address",
            ":9090",
            "--health-probe-bind-address=0",
        ]);
        let options = flags.options("op", "op.example.com").unwrap();
        assert_eq!(options.metrics_addr, Some("0.0.0.0:9090".parse().unwrap()));
        assert_eq!(options.health_addr, None);
        assert!(options.leader_election.is_none());
        assert_eq!(options.name, "op");
    }

    #[test]
    fn a_bad_address_names_the_flag_and_the_value() {
        let flags = parse(&["--metrics-bind-address", "localhost"]);
        let err = flags.options("op", "op.example.com").unwrap_err();
        assert_eq!(
            err.to_string(),
            "--metrics-bind-address=localhost is not an address like 0.0.0.0:8080 or :8080"
        );
    }

    #[test]
    fn leader_election_takes_the_flags_or_the_operator_defaults() {
        let flags = parse(&[
            "--leader-elect",
            "--leader-election-namespace",
            "ops",
            "--lease-duration",
            "9",
        ]);
        let election = flags
            .options("op", "op.example.com")
            .unwrap()
            .leader_election
            .unwrap();
        assert_eq!(election.namespace, "ops");
        assert_eq!(election.lease_name, "op.example.com");
        assert_eq!(election.lease_duration, Duration::from_secs(9));
        assert_eq!(election.renew_grace, Duration::from_secs(3));
        assert!(
            election
                .identity
                .ends_with(&format!("_{}", std::process::id()))
        );

        let named = parse(&["--leader-elect", "--leader-election-id", "mine"]);
        let election = named.options("op", "op.example.com").unwrap();
        assert_eq!(election.leader_election.unwrap().lease_name, "mine");

        let zero = parse(&["--leader-elect", "--lease-duration", "0"]);
        assert!(matches!(
            zero.options("op", "x"),
            Err(FlagError::LeaseDuration)
        ));
    }

    #[test]
    fn webhook_certificates_default_to_controller_runtimes_files() {
        #[derive(Parser, Debug)]
        struct WebhookCli {
            #[command(flatten)]
            webhook: WebhookFlags,
        }
        let parse = |args: &[&str]| {
            WebhookCli::try_parse_from(std::iter::once("op").chain(args.iter().copied()))
                .unwrap()
                .webhook
                .options()
        };
        let options = parse(&[]);
        assert_eq!(
            options.certificates,
            crate::webhook::Certificates::files(
                "/tmp/k8s-webhook-server/serving-certs/tls.crt",
                "/tmp/k8s-webhook-server/serving-certs/tls.key"
            )
        );
        assert_eq!(options.addr, "0.0.0.0:9443".parse().unwrap());
        let options = parse(&[
            "--webhook-cert-path",
            "/certs",
            "--webhook-cert-name",
            "a.pem",
            "--webhook-cert-key=b.pem",
        ]);
        assert_eq!(
            options.certificates,
            crate::webhook::Certificates::files("/certs/a.pem", "/certs/b.pem")
        );
    }

    #[test]
    fn metrics_are_secure_unless_turned_off_with_a_self_signed_certificate_unless_given() {
        assert_eq!(parse(&[]).metrics_security(), MetricsSecurity::default());
        assert_eq!(
            parse(&["--metrics-secure"]).metrics_security(),
            MetricsSecurity::Secure(SecureMetrics::default())
        );
        assert_eq!(
            parse(&["--metrics-secure=false"]).metrics_security(),
            MetricsSecurity::Plain
        );
        let MetricsSecurity::Secure(secure) =
            parse(&["--metrics-cert-path", "/certs", "--metrics-cert-key=k.pem"])
                .metrics_security()
        else {
            panic!("secure by default")
        };
        assert_eq!(
            secure.certificates,
            MetricsCertificates::Given(crate::webhook::Certificates::files(
                "/certs/tls.crt",
                "/certs/k.pem"
            ))
        );
        assert_eq!(secure.auth, Default::default());
        // Flag values are strict booleans.
        assert!(Cli::try_parse_from(["op", "--metrics-secure=no"]).is_err());
    }

    #[test]
    fn an_empty_watch_namespace_means_all() {
        assert_eq!(parse(&["--watch-namespace", ""]).watch_namespace(), None);
        assert_eq!(
            parse(&["--watch-namespace", "a"]).watch_namespace(),
            Some("a".into())
        );
    }
}
