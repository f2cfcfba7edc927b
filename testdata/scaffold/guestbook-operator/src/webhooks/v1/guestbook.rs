//! The admission webhooks of `webapp.example.com/v1` Guestbook: checks and defaults that a
//! schema marker cannot express (they compare the old object with the new one, or depend on
//! the operator's configuration). The API server calls them on every create and update of a
//! Guestbook, through the webhook Service, before the object is stored.

use operator_derive::webhook;
use operator_runtime::webhook::Defaulter;
use operator_runtime::webhook::Validator;
use operator_runtime::webhook::{AdmissionContext, Outcome};
// +operator:scaffold:webhook-imports

use crate::api::webapp::v1::Guestbook;

/// Sets the defaults of a Guestbook being created or updated (a mutating webhook). The server
/// answers with a JSON Patch of what [`Defaulter::set_defaults`] changed, so fields this version
/// of the type does not know are kept.
#[webhook(
    mutating = true,
    failure_policy = "fail",
    side_effects = "None",
    groups = "webapp.example.com",
    resources = "guestbooks",
    verbs = "create;update",
    versions = "v1",
    name = "mguestbook-v1.kb.io",
    path = "/mutate-webapp-example-com-v1-guestbook",
    admission_review_versions = "v1"
)]
#[derive(Debug, Clone, Default)]
pub struct GuestbookDefaulter;

impl Defaulter<Guestbook> for GuestbookDefaulter {
    async fn set_defaults(&self, _ctx: &AdmissionContext, _obj: &mut Guestbook) -> Outcome {
        // Set what the user left out here, for example:
        //     if obj.spec.foo.is_none() {
        //         obj.spec.foo = Some("bar".into());
        //     }
        // A default that is a constant belongs in the schema instead (`#[schema(default = ..)]`
        // on the field); this is for those that depend on other fields or on the operator.
        // Return warnings for the client in the `Ok`, or `Err(Denial::new(..))` to refuse.
        Ok(Vec::new())
    }
}

/// Admits or refuses a Guestbook being created or updated (a validating webhook; it sees the
/// object after every mutating webhook). Refuse with `Err(Denial::invalid(message))`: kubectl
/// shows the message. Warnings in the `Ok` reach the client without refusing. Rules on one
/// field are often simpler as schema markers (`#[validation(..)]`, CEL rules).
#[webhook(
    mutating = false,
    failure_policy = "fail",
    side_effects = "None",
    groups = "webapp.example.com",
    resources = "guestbooks",
    verbs = "create;update",
    versions = "v1",
    name = "vguestbook-v1.kb.io",
    path = "/validate-webapp-example-com-v1-guestbook",
    admission_review_versions = "v1"
)]
#[derive(Debug, Clone, Default)]
pub struct GuestbookValidator;

impl Validator<Guestbook> for GuestbookValidator {
    async fn validate_create(&self, _ctx: &AdmissionContext, _obj: &Guestbook) -> Outcome {
        // Check a new Guestbook here, for example:
        //     if obj.spec.foo.as_deref() == Some("") {
        //         return Err(Denial::invalid("spec.foo may not be empty"));
        //     }
        Ok(Vec::new())
    }

    async fn validate_update(
        &self,
        _ctx: &AdmissionContext,
        _old: &Guestbook,
        _new: &Guestbook,
    ) -> Outcome {
        // Check a change here: what `new` may be, given `old` (a field that may only grow,
        // one that is set once). Rules on `new` alone are usually the same as on create.
        Ok(Vec::new())
    }

    // Deletes reach the validator only when the marker's verbs include `delete`; then
    // override `validate_delete` too. Not overridden, it admits.
}

// +operator:scaffold:webhook-handlers

#[cfg(test)]
mod tests {
    use kube::core::{GroupVersionKind, GroupVersionResource};
    use operator_runtime::webhook::Operation;

    use super::*;
    use crate::api::webapp::v1::GuestbookSpec;

    /// A request for `operation` on the Guestbook named `sample`, as the server passes it.
    fn context(operation: Operation) -> AdmissionContext {
        AdmissionContext {
            uid: "0".into(),
            operation,
            user_info: Default::default(),
            dry_run: false,
            name: "sample".into(),
            namespace: Some("default".into()),
            kind: GroupVersionKind::gvk("webapp.example.com", "v1", "Guestbook"),
            resource: GroupVersionResource::gvr("webapp.example.com", "v1", "guestbooks"),
            sub_resource: None,
            request_kind: None,
            request_resource: None,
            request_sub_resource: None,
            options: None,
        }
    }

    fn sample() -> Guestbook {
        Guestbook::new("sample", GuestbookSpec::default())
    }

    #[tokio::test]
    async fn the_defaulter_leaves_a_guestbook_as_it_is() {
        let mut obj = sample();
        let warnings = GuestbookDefaulter
            .set_defaults(&context(Operation::Create), &mut obj)
            .await
            .unwrap();
        assert!(warnings.is_empty());
        assert_eq!(obj, sample());
    }

    #[tokio::test]
    async fn the_validator_admits_a_guestbook_created_or_updated() {
        let warnings = GuestbookValidator
            .validate_create(&context(Operation::Create), &sample())
            .await
            .unwrap();
        assert!(warnings.is_empty());
        let warnings = GuestbookValidator
            .validate_update(&context(Operation::Update), &sample(), &sample())
            .await
            .unwrap();
        assert!(warnings.is_empty());
    }

    // +operator:scaffold:webhook-tests
}
