//! The admission webhooks of `{{api_group}}/{{version}}` {{kind}}: checks and defaults that a
//! schema marker cannot express (they compare the old object with the new one, or depend on
//! the operator's configuration). The API server calls them on every create and update of a
//! {{kind}}, through the webhook Service, before the object is stored.

use operator_derive::webhook;
use operator_runtime::webhook::{AdmissionContext, Outcome};
// +operator:scaffold:webhook-imports

use crate::api::{{group_mod}}::{{version}}::{{kind}};

// +operator:scaffold:webhook-handlers

#[cfg(test)]
mod tests {
    use kube::core::{GroupVersionKind, GroupVersionResource};
    use operator_runtime::webhook::Operation;

    use super::*;
    use crate::api::{{group_mod}}::{{version}}::{{kind}}Spec;

    /// A request for `operation` on the {{kind}} named `sample`, as the server passes it.
    fn context(operation: Operation) -> AdmissionContext {
        AdmissionContext {
            uid: "0".into(),
            operation,
            user_info: Default::default(),
            dry_run: false,
            name: "sample".into(),
            namespace: {{test_namespace}},
            kind: GroupVersionKind::gvk("{{api_group}}", "{{version}}", "{{kind}}"),
            resource: GroupVersionResource::gvr("{{api_group}}", "{{version}}", "{{plural}}"),
            sub_resource: None,
            request_kind: None,
            request_resource: None,
            request_sub_resource: None,
            options: None,
        }
    }

    fn sample() -> {{kind}} {
        {{kind}}::new("sample", {{kind}}Spec::default())
    }

    // +operator:scaffold:webhook-tests
}
