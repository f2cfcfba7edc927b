//! {{kind}} converted between its versions through the hub `{{version}}`: each other version
//! converts to and from the hub with the `From` impls below, and
//! [`{{kind_snake}}_conversion`] is what the webhook server serves at `/convert`. The API
//! server calls it whenever a {{kind}} is read or written in a version other than the one it
//! is stored in; `config/crd/patches/webhook_in_{{plural}}.yaml` switches the CRD to it.
//!
//! As scaffolded, the versions have the same fields, so each impl copies them. Change the
//! impls with the types (the compiler names each field that no longer matches). A
//! conversion that can fail is a `TryFrom` impl instead, its error the message the API
//! server returns. Whatever one version cannot hold is lost on a round trip through it
//! unless it is kept, in an annotation for example.

use operator_runtime::webhook::Conversion;

use crate::api::{{group_mod}}::{{versions}};

/// The conversion of {{kind}}: `{{version}}` is the hub.
pub fn {{kind_snake}}_conversion() -> Conversion<{{version}}::{{kind}}> {
    Conversion::<{{version}}::{{kind}}>::hub(){{spoke_calls}}
}
{{spoke_impls}}

#[cfg(test)]
mod tests {
    use super::*;

    /// A {{version}} {{kind}} with metadata and a status, to convert.
    fn hub() -> {{version}}::{{kind}} {
        let mut obj = {{version}}::{{kind}}::new("sample", Default::default());
        obj.metadata.labels = Some([("app".to_string(), "sample".to_string())].into());
        obj.status = Some(Default::default());
        obj
    }

{{spoke_tests}}
}
