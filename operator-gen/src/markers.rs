//! The marker grammar: the one place that says which attributes exist, which arguments
//! they take and what the values mean. operator-derive parses its helper attributes with
//! these functions at compile time and operator-gen parses the same attributes from source
//! files, so whatever compiles is exactly what the generator understands.
//!
//! Every marker is a typed value (an enum variant or a struct field) that keeps the span of
//! the tokens it came from. The schema markers are declared once, in `table.rs`: adding one
//! is an entry there and its arm in the generator's apply function (the `match` there is
//! exhaustive, so the compiler asks for it).

mod args;
pub mod compat;

pub(crate) use args::literal_json;
pub use args::{lit_str_value, split_list};
pub(crate) use foreign::code_text;
mod crd;
mod field;
mod foreign;
mod payloads;
mod rbac;
mod read;
pub mod table;
pub mod webhook;

pub use args::{MetaSource, Spanned};
pub use compat::{CompatMarker, parse_compat};
pub use crd::{
    CRATE_PATHS, ColumnType, CrdMarkers, PrintColumnMarker, ResourceMarker, ScaleMarker, Scope,
    SubresourceMarker, crd_markers, is_dns_label, is_dns_subdomain, is_dns1035_label,
    json_path_problem, kind_name, kind_name_problem, parse_printcolumn, parse_resource,
    parse_subresource,
};
pub(crate) use field::bound_conflicts;
pub use field::{parse_field_markers, syntactic_schema_type};
pub use foreign::{BOUND_HELP, PATTERN_HELP, TITLE_HELP, bound_validations, variant_problems};
pub use payloads::{
    CelRule, ExternalDocs, Length, ListType, MarkerTarget, NamedValue, ObjectType, OneOf, Slot,
};
pub use rbac::{KNOWN_VERBS, RbacMarker, parse_rbac};
pub use read::CEL_REASONS;
pub use table::{FieldMarkers, SchemaProp, Validation};
pub use webhook::{
    DEFAULT_SERVICE_NAME, DEFAULT_SERVICE_NAMESPACE, WEBHOOK_ARGS, WebhookConfigurationMarker,
    WebhookMarker, WebhookTarget, parse_webhook, parse_webhook_configuration, webhook_name_problem,
};

/// The attribute names this crate owns, as written by the user (`#[validation(...)]`).
pub const RESOURCE: &str = "resource";
/// `#[subresource(...)]`.
pub const SUBRESOURCE: &str = "subresource";
/// `#[printcolumn(...)]`.
pub const PRINTCOLUMN: &str = "printcolumn";
/// `#[compat(...)]`.
pub const COMPAT: &str = "compat";
/// `#[validation(...)]`.
pub const VALIDATION: &str = "validation";
/// `#[schema(...)]`.
pub const SCHEMA: &str = "schema";
/// `#[crd_schema(...)]`: the same marker as `#[schema(...)]`, spelled so that no other
/// derive claims it. utoipa's `ToSchema` also declares `#[schema(...)]` and refuses the keys
/// it does not know (`schemaless`, `list_type`, ...), so a type deriving both writes these.
/// [`marker_name`] gives [`SCHEMA`] for it: everything that reads `#[schema]` reads it alike.
pub const CRD_SCHEMA: &str = "crd_schema";
/// `#[rbac(...)]`.
pub const RBAC: &str = "rbac";
/// `#[webhook(...)]`.
pub const WEBHOOK: &str = "webhook";
/// `#[webhook_configuration(...)]`.
pub const WEBHOOK_CONFIGURATION: &str = "webhook_configuration";

/// Why an item marker is refused where it sits (by the attribute macro and the generator alike).
pub const MISPLACED_RBAC: &str =
    "#[rbac] goes on the reconciler function (or an impl, module or struct)";
/// Why a `#[webhook]` is refused where it sits.
pub const MISPLACED_WEBHOOK: &str =
    "#[webhook] goes on the webhook's handler: a struct, impl, function or module";
/// Why a `#[webhook_configuration]` is refused where it sits.
pub const MISPLACED_WEBHOOK_CONFIGURATION: &str =
    "#[webhook_configuration] goes on a struct, impl, function or module (next to its #[webhook]s)";

/// Why a marker on an enum variant is refused (by the derive and the generator alike).
pub const VARIANT_MARKER: &str = "markers go on types and fields, not on enum variants; put them on the variant's fields or on the type it carries";

/// The name of a marker attribute (the last path segment), if `attr` is one of ours; an
/// alternative spelling gives the marker's own name (`#[crd_schema]` is [`SCHEMA`]).
pub fn marker_name(attr: &syn::Attribute) -> Option<&'static str> {
    let last = &attr.path().segments.last()?.ident;
    if last == CRD_SCHEMA {
        return Some(SCHEMA);
    }
    [
        RESOURCE,
        SUBRESOURCE,
        PRINTCOLUMN,
        COMPAT,
        VALIDATION,
        SCHEMA,
        RBAC,
        WEBHOOK,
        WEBHOOK_CONFIGURATION,
    ]
    .into_iter()
    .find(|name| last == name)
}
