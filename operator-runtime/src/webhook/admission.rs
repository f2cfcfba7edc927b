//! Typed admission: the handlers an operator writes ([`Defaulter`], [`Validator`]), and the
//! glue that decodes an AdmissionReview's objects into the operator's type, calls the
//! handler, and turns its outcome into an `AdmissionResponse`.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use k8s_openapi::api::authentication::v1::UserInfo;
use kube::core::admission::{AdmissionResponse, Operation};
use kube::core::{GroupVersionKind, GroupVersionResource, Status};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::{WebhookResource, patch};

/// Warnings for the client: kubectl prints them, the request goes through (or not).
pub type Warnings = Vec<String>;

/// What a handler decides: allowed (with warnings, often none) or denied.
pub type Outcome = Result<Warnings, Denial>;

/// A refused request: `message` is what the user sees (`admission webhook "..." denied the
/// request: <message>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    /// What is wrong, for the user.
    pub message: String,
    /// The `reason` of the response's status (`Forbidden`, `Invalid`, ...).
    pub reason: String,
    /// The HTTP code of the response's status.
    pub code: u16,
    /// Warnings shown to the client with the refusal.
    pub warnings: Warnings,
}

impl Denial {
    /// Refused with `message`: 403 `Forbidden`, what controller-runtime answers when a
    /// validator returns an error.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            reason: "Forbidden".into(),
            code: 403,
            warnings: Vec::new(),
        }
    }

    /// Refused because the object is invalid: 422 `Invalid`, as the API server's own
    /// validation answers.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(message).with_reason("Invalid").with_code(422)
    }

    /// The request itself is wrong (400 `BadRequest`): an object that is not the webhook's
    /// kind or does not decode.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(message).with_reason("BadRequest").with_code(400)
    }

    /// The same refusal with another status `reason`.
    #[must_use]
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = reason.into();
        self
    }

    /// The same refusal with another HTTP code.
    #[must_use]
    pub fn with_code(mut self, code: u16) -> Self {
        self.code = code;
        self
    }

    /// The same refusal with one more warning for the client.
    #[must_use]
    pub fn with_warning(mut self, warning: impl Into<String>) -> Self {
        self.warnings.push(warning.into());
        self
    }

    fn internal(message: impl Into<String>) -> Self {
        Self::new(message)
            .with_reason("InternalError")
            .with_code(500)
    }
}

impl fmt::Display for Denial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Everything about an admission request but its objects.
#[derive(Debug, Clone)]
pub struct AdmissionContext {
    /// The request's id, echoed in the response.
    pub uid: String,
    /// `CREATE`, `UPDATE`, `DELETE` or `CONNECT`.
    pub operation: Operation,
    /// Who makes the request.
    pub user_info: UserInfo,
    /// Nothing will be persisted: a handler with side effects must skip them.
    pub dry_run: bool,
    /// The object's name (empty on a create with `generateName`).
    pub name: String,
    /// The object's namespace (`None` for a cluster-scoped kind).
    pub namespace: Option<String>,
    /// The kind of the objects as the webhook gets them.
    pub kind: GroupVersionKind,
    /// The resource the request is for.
    pub resource: GroupVersionResource,
    /// The subresource, when the request is for one (`status`, `scale`).
    pub sub_resource: Option<String>,
    /// The kind the client asked for, when the API server converted the objects to the
    /// version the webhook registered for (`matchPolicy: Equivalent`).
    pub request_kind: Option<GroupVersionKind>,
    /// The resource the client asked for, when it was converted.
    pub request_resource: Option<GroupVersionResource>,
    /// The subresource the client asked for, when it was converted.
    pub request_sub_resource: Option<String>,
    /// The operation's options (`CreateOptions`, `UpdateOptions`, `DeleteOptions`).
    pub options: Option<Value>,
}

/// Sets defaults on an object being created or updated (a mutating webhook). The server
/// answers with the JSON Patch between the object's serialization before and after
/// [`Defaulter::set_defaults`]. Not called for DELETE and CONNECT.
///
/// Implement it with `async fn`; for a synchronous function, [`defaulter_fn`] is shorter.
pub trait Defaulter<K>: Send + Sync + 'static {
    /// Changes `object` in place. An `Err` refuses the request.
    fn set_defaults(
        &self,
        ctx: &AdmissionContext,
        object: &mut K,
    ) -> impl Future<Output = Outcome> + Send;
}

/// Accepts or refuses creates, updates and deletes of a kind (a validating webhook).
/// Operations a validator does not override are allowed.
pub trait Validator<K>: Send + Sync + 'static {
    /// Checks a new object; an `Err` refuses the create. Allows everything unless overridden.
    fn validate_create(
        &self,
        _ctx: &AdmissionContext,
        _object: &K,
    ) -> impl Future<Output = Outcome> + Send {
        std::future::ready(Ok(Vec::new()))
    }

    /// Checks a change from `old` to `new`; an `Err` refuses the update. Allows everything
    /// unless overridden.
    fn validate_update(
        &self,
        _ctx: &AdmissionContext,
        _old: &K,
        _new: &K,
    ) -> impl Future<Output = Outcome> + Send {
        std::future::ready(Ok(Vec::new()))
    }

    /// Checks an object being deleted; an `Err` refuses the delete. Allows everything unless
    /// overridden.
    fn validate_delete(
        &self,
        _ctx: &AdmissionContext,
        _old: &K,
    ) -> impl Future<Output = Outcome> + Send {
        std::future::ready(Ok(Vec::new()))
    }
}

/// A [`Defaulter`] from a synchronous function.
pub fn defaulter_fn<K, F>(f: F) -> FnDefaulter<F>
where
    F: Fn(&AdmissionContext, &mut K) -> Outcome + Send + Sync + 'static,
{
    FnDefaulter(f)
}

/// See [`defaulter_fn`].
pub struct FnDefaulter<F>(F);

impl<F> fmt::Debug for FnDefaulter<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FnDefaulter")
    }
}

impl<K, F> Defaulter<K> for FnDefaulter<F>
where
    K: Send,
    F: Fn(&AdmissionContext, &mut K) -> Outcome + Send + Sync + 'static,
{
    fn set_defaults(
        &self,
        ctx: &AdmissionContext,
        object: &mut K,
    ) -> impl Future<Output = Outcome> + Send {
        std::future::ready((self.0)(ctx, object))
    }
}

/// An `admission.k8s.io/v1` AdmissionReview with the objects left undecoded, so that a
/// request whose object is not the webhook's kind still yields its uid for the answer.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawReview {
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    pub request: Option<RawRequest>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawRequest {
    pub uid: String,
    pub kind: GroupVersionKind,
    pub resource: GroupVersionResource,
    #[serde(default)]
    pub sub_resource: Option<String>,
    #[serde(default)]
    pub request_kind: Option<GroupVersionKind>,
    #[serde(default)]
    pub request_resource: Option<GroupVersionResource>,
    #[serde(default)]
    pub request_sub_resource: Option<String>,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub namespace: Option<String>,
    pub operation: Operation,
    #[serde(default)]
    pub user_info: UserInfo,
    #[serde(default)]
    pub object: Option<Box<RawValue>>,
    #[serde(default)]
    pub old_object: Option<Box<RawValue>>,
    #[serde(default)]
    pub dry_run: bool,
    #[serde(default)]
    pub options: Option<Value>,
}

type Objects = (Option<Box<RawValue>>, Option<Box<RawValue>>);

impl RawRequest {
    fn split(self) -> (AdmissionContext, Objects) {
        let ctx = AdmissionContext {
            uid: self.uid,
            operation: self.operation,
            user_info: self.user_info,
            dry_run: self.dry_run,
            name: self.name,
            namespace: self.namespace,
            kind: self.kind,
            resource: self.resource,
            sub_resource: self.sub_resource,
            request_kind: self.request_kind,
            request_resource: self.request_resource,
            request_sub_resource: self.request_sub_resource,
            options: self.options,
        };
        (ctx, (self.object, self.old_object))
    }
}

pub(crate) type ResponseFuture = Pin<Box<dyn Future<Output = AdmissionResponse> + Send>>;

/// One registered admission webhook, its kind erased.
pub(crate) type AdmissionHandler = Arc<dyn Fn(RawRequest) -> ResponseFuture + Send + Sync>;

pub(crate) fn defaulting_handler<K, D>(defaulter: D) -> AdmissionHandler
where
    K: WebhookResource,
    D: Defaulter<K>,
{
    let defaulter = Arc::new(defaulter);
    Arc::new(move |request: RawRequest| {
        let defaulter = defaulter.clone();
        Box::pin(async move {
            let (ctx, (object, _)) = request.split();
            match run_defaulter::<K, D>(&*defaulter, &ctx, object).await {
                Ok((warnings, patch)) => {
                    let response = allowed(ctx.uid.clone(), warnings);
                    match patch {
                        None => response,
                        Some(patch) => response.with_patch(patch).unwrap_or_else(|e| {
                            denied(
                                ctx.uid,
                                Denial::internal(format!("encoding the patch: {e}")),
                            )
                        }),
                    }
                }
                Err(denial) => denied(ctx.uid, denial),
            }
        })
    })
}

pub(crate) fn validating_handler<K, V>(validator: V) -> AdmissionHandler
where
    K: WebhookResource,
    V: Validator<K>,
{
    let validator = Arc::new(validator);
    Arc::new(move |request: RawRequest| {
        let validator = validator.clone();
        Box::pin(async move {
            let (ctx, objects) = request.split();
            match run_validator::<K, V>(&*validator, &ctx, objects).await {
                Ok(warnings) => allowed(ctx.uid, warnings),
                Err(denial) => denied(ctx.uid, denial),
            }
        })
    })
}

async fn run_defaulter<K: WebhookResource, D: Defaulter<K>>(
    defaulter: &D,
    ctx: &AdmissionContext,
    object: Option<Box<RawValue>>,
) -> Result<(Warnings, Option<json_patch::Patch>), Denial> {
    check_kind::<K>(ctx)?;
    if !matches!(ctx.operation, Operation::Create | Operation::Update) {
        return Ok((Vec::new(), None));
    }
    let raw = required(object, "object", ctx)?;
    let mut typed: K = decode(&raw, "object")?;
    let before = to_json(&typed)?;
    let warnings = defaulter.set_defaults(ctx, &mut typed).await?;
    let after = to_json(&typed)?;
    if before == after {
        return Ok((warnings, None));
    }
    let raw: Value = serde_json::from_str(raw.get())
        .map_err(|e| Denial::bad_request(format!("object is not JSON: {e}")))?;
    let patch = patch::defaulting_patch(&raw, &before, &after);
    Ok((warnings, (!patch.0.is_empty()).then_some(patch)))
}

async fn run_validator<K: WebhookResource, V: Validator<K>>(
    validator: &V,
    ctx: &AdmissionContext,
    (object, old_object): Objects,
) -> Outcome {
    check_kind::<K>(ctx)?;
    match ctx.operation {
        Operation::Create => {
            let object: K = decode(&required(object, "object", ctx)?, "object")?;
            validator.validate_create(ctx, &object).await
        }
        Operation::Update => {
            let new: K = decode(&required(object, "object", ctx)?, "object")?;
            let old: K = decode(&required(old_object, "oldObject", ctx)?, "oldObject")?;
            validator.validate_update(ctx, &old, &new).await
        }
        Operation::Delete => {
            let old: K = decode(&required(old_object, "oldObject", ctx)?, "oldObject")?;
            validator.validate_delete(ctx, &old).await
        }
        Operation::Connect => Ok(Vec::new()),
    }
}

fn operation_name(operation: &Operation) -> &'static str {
    match operation {
        Operation::Create => "CREATE",
        Operation::Update => "UPDATE",
        Operation::Delete => "DELETE",
        Operation::Connect => "CONNECT",
    }
}

fn required(
    object: Option<Box<RawValue>>,
    field: &str,
    ctx: &AdmissionContext,
) -> Result<Box<RawValue>, Denial> {
    object.ok_or_else(|| {
        Denial::bad_request(format!(
            "{} request without {field}",
            operation_name(&ctx.operation)
        ))
    })
}

fn describe(api_version: &str, kind: &str) -> String {
    if api_version.is_empty() {
        format!("{kind} (no apiVersion)")
    } else {
        format!("{api_version} {kind}")
    }
}

fn gvk_api_version(gvk: &GroupVersionKind) -> String {
    if gvk.group.is_empty() {
        gvk.version.clone()
    } else {
        format!("{}/{}", gvk.group, gvk.version)
    }
}

/// The request is for the webhook's kind and version (a webhook configured with the wrong
/// rules, or without `matchPolicy: Equivalent` conversions, sends others).
fn check_kind<K: WebhookResource>(ctx: &AdmissionContext) -> Result<(), Denial> {
    let (group, version, kind) = (K::group(&()), K::version(&()), K::kind(&()));
    let gvk = &ctx.kind;
    if gvk.group == group && gvk.version == version && gvk.kind == kind {
        return Ok(());
    }
    Err(Denial::bad_request(format!(
        "this webhook serves {}, the request is for {}",
        describe(&K::api_version(&()), &kind),
        describe(&gvk_api_version(gvk), &gvk.kind),
    )))
}

#[derive(Deserialize)]
struct TypeProbe {
    #[serde(rename = "apiVersion", default)]
    api_version: Option<String>,
    #[serde(default)]
    kind: Option<String>,
}

/// The request's `field` as `K`, or why it is not one.
fn decode<K: WebhookResource>(raw: &RawValue, field: &str) -> Result<K, Denial> {
    let (api_version, kind) = (K::api_version(&()), K::kind(&()));
    let found = match raw.get().trim_start().as_bytes().first() {
        Some(b'{') => None,
        Some(b'[') => Some("a list"),
        Some(b'"') => Some("a string"),
        Some(b't' | b'f') => Some("a boolean"),
        Some(b'n') => Some("null"),
        _ => Some("a number"),
    };
    if let Some(found) = found {
        return Err(Denial::bad_request(format!(
            "{field} is {found}, not a Kubernetes object"
        )));
    }
    let probe: TypeProbe = serde_json::from_str(raw.get())
        .map_err(|e| Denial::bad_request(format!("{field} is not a Kubernetes object: {e}")))?;
    let found_version = probe.api_version.as_deref().unwrap_or(&api_version);
    let found_kind = probe.kind.as_deref().unwrap_or(&kind);
    if found_version != api_version || found_kind != kind {
        return Err(Denial::bad_request(format!(
            "{field} is {}, this webhook takes {}",
            describe(found_version, found_kind),
            describe(&api_version, &kind)
        )));
    }
    serde_json::from_str(raw.get()).map_err(|e| {
        Denial::bad_request(format!(
            "{field} is not a valid {}: {e}",
            describe(&api_version, &kind)
        ))
    })
}

fn to_json<K: WebhookResource>(object: &K) -> Result<Value, Denial> {
    serde_json::to_value(object)
        .map_err(|e| Denial::internal(format!("serializing {}: {e}", K::kind(&()))))
}

fn base_response(uid: String) -> AdmissionResponse {
    // `AdmissionResponse` is non-exhaustive; `invalid` is its one constructor that needs no
    // typed request.
    let mut response = AdmissionResponse::invalid("");
    response.uid = uid;
    response
}

pub(crate) fn allowed(uid: String, warnings: Warnings) -> AdmissionResponse {
    let mut response = base_response(uid);
    response.allowed = true;
    response.result = Status::default();
    response.warnings = (!warnings.is_empty()).then_some(warnings);
    response
}

pub(crate) fn denied(uid: String, denial: Denial) -> AdmissionResponse {
    let mut response = base_response(uid);
    response.allowed = false;
    response.result = Status::failure(&denial.message, &denial.reason).with_code(denial.code);
    response.warnings = (!denial.warnings.is_empty()).then_some(denial.warnings);
    response
}

/// The answer when a handler panicked: refused (a webhook that cannot decide must not let
/// the request through), the details left to the operator's log.
pub(crate) fn panicked(uid: String) -> AdmissionResponse {
    denied(
        uid,
        Denial::internal(
            "internal error in the admission webhook (its handler panicked; see the operator's log)",
        ),
    )
}
