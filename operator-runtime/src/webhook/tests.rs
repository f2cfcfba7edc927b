//! Paths, registration, conversion and the admission handlers, without a server.

use std::borrow::Cow;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::admission::AdmissionResponse;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::admission::{self, RawRequest};
use super::conversion::{ConversionTable, ConvertKind};
use super::*;

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

/// The hub.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Widget {
    metadata: ObjectMeta,
    spec: WidgetSpec,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct WidgetSpec {
    size: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    color: Option<String>,
}

widget_resource!(Widget, "v1");

#[derive(Clone, Debug, Serialize, Deserialize)]
struct WidgetV2 {
    metadata: ObjectMeta,
    spec: WidgetV2Spec,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct WidgetV2Spec {
    replicas: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    paint: Option<String>,
}

widget_resource!(WidgetV2, "v2");

impl From<WidgetV2> for Widget {
    fn from(w: WidgetV2) -> Self {
        let mut metadata = w.metadata;
        metadata
            .annotations
            .get_or_insert_default()
            .insert("example.com/from".into(), "v2".into());
        Widget {
            metadata,
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
        let replicas = u32::try_from(w.spec.size)
            .map_err(|_| format!("size {} is not a replica count", w.spec.size))?;
        Ok(WidgetV2 {
            metadata: w.metadata,
            spec: WidgetV2Spec {
                replicas,
                paint: w.spec.color,
            },
        })
    }
}

/// Another kind of the same group, to be refused as a spoke of Widget.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Gadget {
    metadata: ObjectMeta,
}

impl kube::Resource for Gadget {
    type DynamicType = ();
    type Scope = kube::core::NamespaceResourceScope;
    fn kind(_: &()) -> Cow<'_, str> {
        "Gadget".into()
    }
    fn group(_: &()) -> Cow<'_, str> {
        "example.com".into()
    }
    fn version(_: &()) -> Cow<'_, str> {
        "v2".into()
    }
    fn plural(_: &()) -> Cow<'_, str> {
        "gadgets".into()
    }
    fn meta(&self) -> &ObjectMeta {
        &self.metadata
    }
    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

impl From<Gadget> for Widget {
    fn from(g: Gadget) -> Self {
        Widget {
            metadata: g.metadata,
            spec: WidgetSpec::default(),
        }
    }
}

impl From<Widget> for Gadget {
    fn from(w: Widget) -> Self {
        Gadget {
            metadata: w.metadata,
        }
    }
}

#[test]
fn default_paths_are_controller_runtimes() {
    assert_eq!(mutate_path::<Widget>(), "/mutate-example-com-v1-widget");
    assert_eq!(
        validate_path::<WidgetV2>(),
        "/validate-example-com-v2-widget"
    );
    assert_eq!(
        validate_path_for("batch.tutorial.kubebuilder.io", "v1", "CronJob"),
        "/validate-batch-tutorial-kubebuilder-io-v1-cronjob"
    );
    // The core group is empty: two dashes, as in kubebuilder's Pod webhook.
    assert_eq!(
        mutate_path::<k8s_openapi::api::core::v1::Pod>(),
        "/mutate--v1-pod"
    );
    assert_eq!(CONVERT_PATH, "/convert");
    assert_eq!(DEFAULT_PORT, 9443);
    assert_eq!(
        Certificates::default(),
        Certificates::files(
            "/tmp/k8s-webhook-server/serving-certs/tls.crt",
            "/tmp/k8s-webhook-server/serving-certs/tls.key"
        )
    );
}

#[test]
fn custom_paths_follow_controller_runtimes_pattern() {
    for good in ["/", "/a", "/mutate-x", "/a/b_c/D-9"] {
        assert!(is_valid_path(good), "{good}");
    }
    for bad in ["", "a", "/a/", "//", "/a//b", "/a b", "/é", "/a?b", "/a.b"] {
        assert!(!is_valid_path(bad), "{bad}");
    }
}

struct AllowAll;
impl Validator<Widget> for AllowAll {}

#[tokio::test]
async fn registration_mistakes_are_all_reported_by_bind() {
    let webhooks = Webhooks::new()
        .validator(AllowAll)
        .validator_at("/validate-example-com-v1-widget", AllowAll)
        .validator_at("no-slash", AllowAll)
        .defaulter_at(
            HEALTH_PATH,
            defaulter_fn(|_: &AdmissionContext, _: &mut Widget| Ok(vec![])),
        )
        .conversion(Conversion::<Widget>::hub().spoke::<Gadget>())
        .conversion(Conversion::<Widget>::hub())
        .conversion_at(
            "/validate-example-com-v1-widget",
            Conversion::<Widget>::hub(),
        );
    let err = WebhookServer::bind(WebhookOptions::default(), webhooks)
        .await
        .unwrap_err();
    let WebhookError::Registration(errors) = &err else {
        panic!("{err}")
    };
    assert_eq!(
        errors,
        &[
            "/validate-example-com-v1-widget is registered twice (now for validating example.com/v1 Widget)",
            "\"no-slash\" is not a webhook path (one or more /segments of letters, digits, - and _)",
            "/healthz is the server's health check",
            "example.com/v2 Gadget cannot be a version of example.com Widget",
            "conversion for example.com Widget is registered twice",
            "/validate-example-com-v1-widget serves validating example.com/v1 Widget, it cannot also convert",
        ]
    );
}

fn widgets() -> ConversionTable {
    let mut table = ConversionTable::default();
    let conversion = Conversion::<Widget>::hub().spoke::<WidgetV2>();
    assert!(conversion.registration_errors().is_empty());
    table.add(Box::new(conversion)).unwrap();
    table
}

fn v1_widget(size: i32) -> Value {
    json!({
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {
            "name": "w", "namespace": "ns", "uid": "1234", "resourceVersion": "7",
            "labels": {"app": "w"},
            "futureMetadataField": {"kept": true},
        },
        "spec": {"size": size, "color": "red"},
    })
}

#[test]
fn conversion_goes_through_the_hub_and_keeps_metadata() {
    let table = widgets();
    let v2 = table
        .convert_all(vec![v1_widget(3)], "example.com/v2")
        .unwrap();
    assert_eq!(
        v2,
        vec![json!({
            "apiVersion": "example.com/v2",
            "kind": "Widget",
            "metadata": {
                "name": "w", "namespace": "ns", "uid": "1234", "resourceVersion": "7",
                "labels": {"app": "w"},
                "futureMetadataField": {"kept": true},
            },
            "spec": {"replicas": 3, "paint": "red"},
        })]
    );
    // And back: the conversion's annotation arrives, the rest of the metadata is as sent.
    let v1 = table.convert_all(v2, "example.com/v1").unwrap();
    let mut expected = v1_widget(3);
    expected["metadata"]["annotations"] = json!({"example.com/from": "v2"});
    assert_eq!(v1, vec![expected]);
}

#[test]
fn conversion_to_the_same_version_changes_nothing() {
    let table = widgets();
    let object = v1_widget(3);
    assert_eq!(
        table
            .convert_all(vec![object.clone()], "example.com/v1")
            .unwrap(),
        vec![object]
    );
}

#[test]
fn conversion_failures_name_the_object_and_the_reason() {
    let table = widgets();
    let fail =
        |objects: Vec<Value>, desired: &str| table.convert_all(objects, desired).unwrap_err();
    assert_eq!(
        fail(vec![v1_widget(1), v1_widget(-1)], "example.com/v2"),
        "object 1 (ns/w): converting example.com/v1 to example.com/v2: size -1 is not a replica count"
    );
    assert_eq!(
        fail(vec![v1_widget(1)], "example.com/v3"),
        "object 0 (ns/w): example.com/v3 is not a version of Widget this webhook converts (it knows example.com/v1, example.com/v2)"
    );
    assert_eq!(
        fail(vec![v1_widget(1)], "other.example.com/v2"),
        "object 0 (ns/w): cannot convert group example.com to other.example.com/v2"
    );
    let mut gadget = v1_widget(1);
    gadget["kind"] = json!("Gadget");
    assert_eq!(
        fail(vec![gadget], "example.com/v2"),
        "object 0 (ns/w): this webhook converts no example.com Gadget"
    );
    let mut bad = v1_widget(1);
    bad["spec"]["size"] = json!("big");
    let message = fail(vec![bad], "example.com/v2");
    assert!(
        message.starts_with(
            "object 0 (ns/w): the object is not a valid example.com/v1 Widget: invalid type: string \"big\""
        ),
        "{message}"
    );
    assert_eq!(
        fail(vec![json!({"kind": "Widget"})], "example.com/v2"),
        "object 0: the object has no apiVersion"
    );
    assert_eq!(
        fail(vec![json!(5)], "example.com/v2"),
        "object 0: the object has no kind"
    );
}

fn review_request(operation: &str, object: Option<Value>, old_object: Option<Value>) -> RawRequest {
    serde_json::from_value(json!({
        "uid": "uid-1",
        "kind": {"group": "example.com", "version": "v1", "kind": "Widget"},
        "resource": {"group": "example.com", "version": "v1", "resource": "widgets"},
        "name": "w",
        "namespace": "ns",
        "operation": operation,
        "userInfo": {"username": "alice"},
        "object": object,
        "oldObject": old_object,
        "dryRun": true,
    }))
    .unwrap()
}

fn widget_json(size: i32) -> Value {
    json!({
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "ns"},
        "spec": {"size": size, "unknownToTheType": "kept"},
    })
}

fn patch_of(response: &AdmissionResponse) -> Option<Value> {
    response
        .patch
        .as_ref()
        .map(|p| serde_json::from_slice(p).unwrap())
}

fn size_defaulter() -> impl Defaulter<Widget> {
    defaulter_fn(|ctx: &AdmissionContext, w: &mut Widget| {
        assert_eq!(ctx.user_info.username.as_deref(), Some("alice"));
        assert!(ctx.dry_run);
        if w.spec.size == 0 {
            w.spec.size = 1;
            return Ok(vec!["size defaulted to 1".into()]);
        }
        Ok(vec![])
    })
}

/// A defaulter with settings, deriving `Default` as the scaffold's does.
#[derive(Debug, Default)]
struct SizedDefaulter {
    size: i32,
}

impl Defaulter<Widget> for SizedDefaulter {
    async fn set_defaults(&self, _ctx: &AdmissionContext, w: &mut Widget) -> Outcome {
        w.spec.size = self.size;
        Ok(vec![])
    }
}

/// `SizedDefaulter::default()` is `Default`'s: the trait's method has another name, so the
/// two do not collide (E0034, "multiple applicable items in scope").
#[tokio::test]
async fn a_defaulter_that_derives_default_is_built_with_default() {
    let defaulter = SizedDefaulter::default();
    let handler = admission::defaulting_handler::<Widget, _>(defaulter);
    let response = handler(review_request("CREATE", Some(widget_json(3)), None)).await;
    assert_eq!(
        patch_of(&response),
        Some(json!([{"op": "replace", "path": "/spec/size", "value": 0}]))
    );
}

#[tokio::test]
async fn defaulting_answers_with_the_patch_of_the_typed_change() {
    let handler = admission::defaulting_handler::<Widget, _>(size_defaulter());
    let response = handler(review_request("CREATE", Some(widget_json(0)), None)).await;
    assert!(response.allowed);
    assert_eq!(response.uid, "uid-1");
    assert_eq!(
        patch_of(&response),
        Some(json!([{"op": "replace", "path": "/spec/size", "value": 1}]))
    );
    assert_eq!(response.warnings, Some(vec!["size defaulted to 1".into()]));
    let body = serde_json::to_value(response.into_review()).unwrap();
    assert_eq!(body["response"]["patchType"], "JSONPatch");
    assert_eq!(body["apiVersion"], "admission.k8s.io/v1");
    assert_eq!(body["kind"], "AdmissionReview");

    // Nothing to default: a plain allow.
    let response = handler(review_request(
        "UPDATE",
        Some(widget_json(2)),
        Some(widget_json(2)),
    ))
    .await;
    assert!(response.allowed);
    assert_eq!(response.patch, None);
    // Deletes are not defaulted.
    let response = handler(review_request("DELETE", None, Some(widget_json(0)))).await;
    assert!(response.allowed);
    assert_eq!(response.patch, None);
}

struct SizeRules;

impl Validator<Widget> for SizeRules {
    async fn validate_create(&self, _: &AdmissionContext, w: &Widget) -> Outcome {
        if w.spec.size > 10 {
            return Err(Denial::invalid("spec.size must be at most 10").with_warning("too big"));
        }
        Ok(vec![])
    }

    async fn validate_update(&self, _: &AdmissionContext, old: &Widget, new: &Widget) -> Outcome {
        if new.spec.size < old.spec.size {
            return Ok(vec![format!(
                "shrinking from {} to {}",
                old.spec.size, new.spec.size
            )]);
        }
        Ok(vec![])
    }

    async fn validate_delete(&self, _: &AdmissionContext, old: &Widget) -> Outcome {
        if old.spec.size > 0 {
            return Err(Denial::new("scale to 0 before deleting"));
        }
        Ok(vec![])
    }
}

#[tokio::test]
async fn validation_of_creates_updates_and_deletes() {
    let handler = admission::validating_handler::<Widget, _>(SizeRules);
    let response = handler(review_request("CREATE", Some(widget_json(11)), None)).await;
    assert!(!response.allowed);
    assert_eq!(response.uid, "uid-1");
    assert_eq!(response.result.message, "spec.size must be at most 10");
    assert_eq!(response.result.reason, "Invalid");
    assert_eq!(response.result.code, 422);
    assert_eq!(response.warnings, Some(vec!["too big".into()]));

    let response = handler(review_request("CREATE", Some(widget_json(3)), None)).await;
    assert!(response.allowed);
    assert_eq!(response.warnings, None);

    let response = handler(review_request(
        "UPDATE",
        Some(widget_json(1)),
        Some(widget_json(3)),
    ))
    .await;
    assert!(response.allowed);
    assert_eq!(
        response.warnings,
        Some(vec!["shrinking from 3 to 1".into()])
    );

    let response = handler(review_request("DELETE", None, Some(widget_json(3)))).await;
    assert!(!response.allowed);
    assert_eq!(response.result.message, "scale to 0 before deleting");
    assert_eq!(response.result.code, 403);
    let response = handler(review_request("DELETE", None, Some(widget_json(0)))).await;
    assert!(response.allowed);
}

async fn denial_message(request: RawRequest) -> String {
    let handler = admission::validating_handler::<Widget, _>(SizeRules);
    let response = handler(request).await;
    assert!(!response.allowed);
    assert_eq!(response.uid, "uid-1");
    assert_eq!(response.result.code, 400);
    response.result.message
}

#[tokio::test]
async fn objects_that_are_not_the_kind_are_denied_with_the_reason() {
    let mut request = review_request("CREATE", Some(widget_json(1)), None);
    request.kind.kind = "Gadget".into();
    assert_eq!(
        denial_message(request).await,
        "this webhook serves example.com/v1 Widget, the request is for example.com/v1 Gadget"
    );

    let mut other_version = widget_json(1);
    other_version["apiVersion"] = json!("example.com/v2");
    assert_eq!(
        denial_message(review_request("CREATE", Some(other_version), None)).await,
        "object is example.com/v2 Widget, this webhook takes example.com/v1 Widget"
    );

    let mut bad_field = widget_json(1);
    bad_field["spec"]["size"] = json!("ten");
    let message = denial_message(review_request("CREATE", Some(bad_field), None)).await;
    assert!(
        message.starts_with("object is not a valid example.com/v1 Widget: invalid type: string \"ten\", expected i32"),
        "{message}"
    );

    let mut no_spec = widget_json(1);
    no_spec.as_object_mut().unwrap().remove("spec");
    let message = denial_message(review_request("CREATE", Some(no_spec), None)).await;
    assert!(message.contains("missing field `spec`"), "{message}");

    assert_eq!(
        denial_message(review_request("UPDATE", Some(widget_json(1)), None)).await,
        "UPDATE request without oldObject"
    );
    assert_eq!(
        denial_message(review_request("CREATE", Some(json!([1, 2])), None)).await,
        "object is a list, not a Kubernetes object"
    );
    let message = denial_message(review_request(
        "CREATE",
        Some(json!({"apiVersion": 1})),
        None,
    ))
    .await;
    assert!(
        message.starts_with(
            "object is not a Kubernetes object: invalid type: integer `1`, expected a string"
        ),
        "{message}"
    );
}
