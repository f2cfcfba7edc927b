//! The control plane's PKI: one CA, the API server's serving certificate, a client certificate per
//! identity, and the service-account signing key. Everything is generated fresh for each `up` and
//! lives in the state directory, so no secret outlives the control plane.

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose,
};

use crate::Error;

/// The names and addresses the API server's certificate is valid for: loopback, and the in-cluster
/// names of the `kubernetes` Service (10.0.0.1 is the first address of the service range we pass).
const SERVING_NAMES: &[&str] = &[
    "127.0.0.1",
    "localhost",
    "10.0.0.1",
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    "kubernetes.default.svc.cluster.local",
];

/// A PEM certificate and its PEM private key, kept in memory for kubeconfigs and on disk for flags.
#[derive(Debug, Clone)]
pub struct CertPair {
    pub cert_pem: String,
    pub key_pem: String,
    pub cert_path: PathBuf,
    pub key_path: PathBuf,
}

/// Everything the components need to trust each other.
#[derive(Debug)]
pub struct Pki {
    pub ca: CertPair,
    pub serving: CertPair,
    /// `system:masters`: the operator author's admin credential.
    pub admin: CertPair,
    pub controller_manager: CertPair,
    pub scheduler: CertPair,
    pub kwok: CertPair,
    /// The service-account token signing key (private) and its public half.
    pub service_account_key: PathBuf,
    pub service_account_pub: PathBuf,
}

impl Pki {
    /// Generates the PKI and writes it to `dir` (created if missing).
    pub fn generate(dir: &Path) -> Result<Self, Error> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let pki = |what: &str, e: rcgen::Error| Error::Pki(format!("{what}: {e}"));

        let ca_key = KeyPair::generate().map_err(|e| pki("CA key", e))?;
        let mut ca_params =
            CertificateParams::new(Vec::<String>::new()).map_err(|e| pki("CA", e))?;
        ca_params.distinguished_name = name("envtest-ca", None);
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let ca_cert = ca_params.self_signed(&ca_key).map_err(|e| pki("CA", e))?;
        let ca = write_pair(dir, "ca", ca_cert.pem(), ca_key.serialize_pem())?;
        let issuer = Issuer::new(ca_params, ca_key);

        let leaf = |file: &str,
                    sans: &[&str],
                    cn: &str,
                    org: Option<&str>,
                    usage: ExtendedKeyUsagePurpose|
         -> Result<CertPair, Error> {
            let key = KeyPair::generate().map_err(|e| pki(file, e))?;
            let sans: Vec<String> = sans.iter().map(|s| s.to_string()).collect();
            let mut params = CertificateParams::new(sans).map_err(|e| pki(file, e))?;
            params.distinguished_name = name(cn, org);
            params.key_usages = vec![
                KeyUsagePurpose::DigitalSignature,
                KeyUsagePurpose::KeyEncipherment,
            ];
            params.extended_key_usages = vec![usage];
            let cert = params.signed_by(&key, &issuer).map_err(|e| pki(file, e))?;
            write_pair(dir, file, cert.pem(), key.serialize_pem())
        };

        let serving = leaf(
            "apiserver",
            SERVING_NAMES,
            "kube-apiserver",
            None,
            ExtendedKeyUsagePurpose::ServerAuth,
        )?;
        let client = ExtendedKeyUsagePurpose::ClientAuth;
        let admin = leaf(
            "admin",
            &[],
            "envtest-admin",
            Some("system:masters"),
            client.clone(),
        )?;
        // The bootstrap RBAC policy binds these two user names to the components' cluster roles.
        let controller_manager = leaf(
            "controller-manager",
            &[],
            "system:kube-controller-manager",
            None,
            client.clone(),
        )?;
        let scheduler = leaf(
            "scheduler",
            &[],
            "system:kube-scheduler",
            None,
            client.clone(),
        )?;
        let kwok = leaf("kwok", &[], "kwok", Some("system:masters"), client)?;

        let sa = KeyPair::generate().map_err(|e| pki("service-account key", e))?;
        let service_account_key = dir.join("service-account.key");
        let service_account_pub = dir.join("service-account.pub");
        write(&service_account_key, &sa.serialize_pem())?;
        write(&service_account_pub, &sa.public_key_pem())?;

        Ok(Self {
            ca,
            serving,
            admin,
            controller_manager,
            scheduler,
            kwok,
            service_account_key,
            service_account_pub,
        })
    }
}

fn name(common_name: &str, organization: Option<&str>) -> DistinguishedName {
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, common_name);
    if let Some(org) = organization {
        dn.push(DnType::OrganizationName, org);
    }
    dn
}

fn write_pair(
    dir: &Path,
    stem: &str,
    cert_pem: String,
    key_pem: String,
) -> Result<CertPair, Error> {
    let cert_path = dir.join(format!("{stem}.crt"));
    let key_path = dir.join(format!("{stem}.key"));
    write(&cert_path, &cert_pem)?;
    write(&key_path, &key_pem)?;
    Ok(CertPair {
        cert_pem,
        key_pem,
        cert_path,
        key_path,
    })
}

fn write(path: &Path, contents: &str) -> Result<(), Error> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    // Keys are private to the user; certificates may as well be.
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    file.write_all(contents.as_bytes())
        .map_err(|e| Error::io(path, e))
}
