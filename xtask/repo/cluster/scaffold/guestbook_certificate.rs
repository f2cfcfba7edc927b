//! A cert-manager Certificate for every Guestbook, owned by it: the book's worked example of
//! a kind you did not write ("Kinds you did not write"). The scaffold test puts this file into
//! the project it makes, after `cargo operator create api --external --from-crd` with
//! cert-manager's Certificate CRD, as `src/controllers/guestbook_certificate.rs`.
//!
//! A Certificate deleted or edited by hand is put back (the controller owns Certificates, so
//! their changes reconcile the Guestbook), and the garbage collector deletes it with its
//! Guestbook.

use std::sync::Arc;

use futures::FutureExt as _;
use futures::future::BoxFuture;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::runtime::controller::Action;
use kube::runtime::watcher;
use kube::{Client, Resource as _, ResourceExt as _};
use operator_derive::rbac;
use operator_runtime::Runtime;
use operator_runtime::controller::{Context, Controller};

use crate::api::external::cert_manager_io::v1::certificate::{
    Certificate, CertificateSpec, IssuerRef,
};
use crate::api::webapp::v1::Guestbook;

/// Name of the controller in metrics and logs.
pub const CONTROLLER_NAME: &str = "guestbook-certificate";
/// The cert-manager Issuer, in the Guestbook's namespace, that signs its Certificate.
pub const ISSUER: &str = "guestbook-issuer";

/// Why a reconcile failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("Kubernetes API error: {0}")]
    Kube(#[from] kube::Error),
}

/// The Certificate `guestbook` owns: a serving certificate for its Service's DNS name, in a
/// Secret named after it.
pub fn certificate(guestbook: &Guestbook) -> Certificate {
    let name = format!("{}-tls", guestbook.name_any());
    let namespace = guestbook.namespace().unwrap_or_default();
    Certificate {
        metadata: ObjectMeta {
            name: Some(name.clone()),
            namespace: Some(namespace.clone()),
            owner_references: guestbook.controller_owner_ref(&()).map(|o| vec![o]),
            ..ObjectMeta::default()
        },
        spec: Some(CertificateSpec {
            secret_name: name,
            dns_names: Some(vec![format!("{}.{namespace}.svc", guestbook.name_any())]),
            issuer_ref: IssuerRef {
                name: ISSUER.to_string(),
                kind: Some("Issuer".to_string()),
                ..IssuerRef::default()
            },
            ..CertificateSpec::default()
        }),
        status: None,
    }
}

/// Applies the Guestbook's Certificate (server-side, as the field manager).
#[rbac(
    groups = "webapp.example.com",
    resources = "guestbooks",
    verbs = "get;list;watch"
)]
#[rbac(
    groups = "webapp.example.com",
    resources = "guestbooks/finalizers",
    verbs = "update"
)]
#[rbac(
    groups = "cert-manager.io",
    resources = "certificates",
    verbs = "get;list;watch;create;patch"
)]
pub async fn reconcile(guestbook: Arc<Guestbook>, ctx: Arc<Context>) -> Result<Action, Error> {
    ctx.apply(guestbook.as_ref(), &certificate(&guestbook))
        .await?;
    Ok(ctx.next_sync(guestbook.as_ref()))
}

/// The controller as the manager starts it (listed in `controllers::ALL`), watching
/// `namespace` (every namespace when `None`).
pub fn start(
    client: Client,
    runtime: Runtime,
    namespace: Option<String>,
) -> BoxFuture<'static, ()> {
    Controller::<Guestbook>::new(client, &runtime)
        .namespace(namespace)
        .named(CONTROLLER_NAME)
        .field_manager("guestbook-operator")
        .owns::<Certificate>(watcher::Config::default())
        .run(reconcile, ())
        .boxed()
}
