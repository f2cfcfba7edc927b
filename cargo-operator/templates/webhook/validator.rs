/// Admits or refuses a {{kind}} being created or updated (a validating webhook; it sees the
/// object after every mutating webhook). Refuse with `Err(Denial::invalid(message))`: kubectl
/// shows the message. Warnings in the `Ok` reach the client without refusing. Rules on one
/// field are often simpler as schema markers (`#[validation(..)]`, CEL rules).
#[webhook(
    mutating = false,
    failure_policy = "fail",
    side_effects = "None",
    groups = "{{api_group}}",
    resources = "{{plural}}",
    verbs = "create;update",
    versions = "{{version}}",
    name = "v{{kind_lower}}-{{version}}.kb.io",
    path = "/validate-{{group_path}}-{{version}}-{{kind_lower}}",
    admission_review_versions = "v1"
)]
#[derive(Debug, Clone, Default)]
pub struct {{kind}}Validator;

impl Validator<{{kind}}> for {{kind}}Validator {
    async fn validate_create(&self, _ctx: &AdmissionContext, _obj: &{{kind}}) -> Outcome {
        // Check a new {{kind}} here, for example:
        //     if obj.spec.foo.as_deref() == Some("") {
        //         return Err(Denial::invalid("spec.foo may not be empty"));
        //     }
        Ok(Vec::new())
    }

    async fn validate_update(
        &self,
        _ctx: &AdmissionContext,
        _old: &{{kind}},
        _new: &{{kind}},
    ) -> Outcome {
        // Check a change here: what `new` may be, given `old` (a field that may only grow,
        // one that is set once). Rules on `new` alone are usually the same as on create.
        Ok(Vec::new())
    }

    // Deletes reach the validator only when the marker's verbs include `delete`; then
    // override `validate_delete` too. Not overridden, it admits.
}
