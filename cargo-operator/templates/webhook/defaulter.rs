/// Sets the defaults of a {{kind}} being created or updated (a mutating webhook). The server
/// answers with a JSON Patch of what [`Defaulter::set_defaults`] changed, so fields this version
/// of the type does not know are kept.
#[webhook(
    mutating = true,
    failure_policy = "fail",
    side_effects = "None",
    groups = "{{api_group}}",
    resources = "{{plural}}",
    verbs = "create;update",
    versions = "{{version}}",
    name = "m{{kind_lower}}-{{version}}.kb.io",
    path = "/mutate-{{group_path}}-{{version}}-{{kind_lower}}",
    admission_review_versions = "v1"
)]
#[derive(Debug, Clone, Default)]
pub struct {{kind}}Defaulter;

impl Defaulter<{{kind}}> for {{kind}}Defaulter {
    async fn set_defaults(&self, _ctx: &AdmissionContext, _obj: &mut {{kind}}) -> Outcome {
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
