//! The root kinds of a file: which structs carry `#[resource]` (their CRD-level markers
//! read with the marker grammar), and which are kube-derive's kinds instead.

use proc_macro2::Span;

use crate::Origin;
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::markers::{self, CrdMarkers, crd_markers, marker_name};
use crate::source::TypeItem;

/// The CRD-level markers of `item`, when it carries a `#[resource]` marker that reads.
/// Marker errors land in `diags`.
pub(crate) fn kind_markers(item: TypeItem<'_>, diags: &mut Diagnostics) -> Option<CrdMarkers> {
    let attrs = item.attrs();
    if !attrs
        .iter()
        .any(|a| marker_name(a) == Some(markers::RESOURCE))
    {
        return None;
    }
    let markers = crd_markers(attrs, diags);
    if !matches!(item, TypeItem::Struct(_)) {
        diags.push(
            item.ident().span(),
            "#[resource] goes on a struct with named fields",
        );
    }
    Some(CrdMarkers {
        resource: markers.resource?,
        subresources: markers.subresources,
        printcolumns: markers.printcolumns,
        compat: markers.compat,
    })
}

/// What operator-gen says of a kind kube-derive makes: `#[derive(CustomResource)]` with
/// `#[kube(group = ..., version = ..., kind = ...)]` on the spec struct. kube-derive builds
/// that CRD when the operator runs, so operator-gen writes none; the warning (at the
/// `#[kube(...)]` that names the kind) says so, and how to write the kind here instead.
/// `None` for anything else, our own kinds (with `#[resource]`) among them.
pub(crate) fn kube_derive_kind(item: TypeItem<'_>) -> Option<Diagnostic<Span>> {
    use syn::spanned::Spanned as _;
    let TypeItem::Struct(s) = item else {
        return None;
    };
    if s.attrs
        .iter()
        .any(|a| marker_name(a) == Some(markers::RESOURCE))
    {
        return None;
    }
    let kube: Vec<&syn::Attribute> = s
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("kube"))
        .collect();
    let first = kube.first()?;
    let (mut kind, mut group, mut version, mut status) = (None, None, None, None);
    let mut namespaced = false;
    let mut at = first.span();
    for attr in &kube {
        // kube-derive's arguments, read loosely: only these few matter here, and a value
        // that does not parse costs the help its detail, not the warning.
        let Ok(args) = attr.parse_args_with(
            syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
        ) else {
            continue;
        };
        for arg in args {
            if arg.path().is_ident("namespaced") {
                namespaced = true;
            }
            let syn::Meta::NameValue(nv) = &arg else {
                continue;
            };
            let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(value),
                ..
            }) = &nv.value
            else {
                continue;
            };
            let slot = match nv.path.get_ident().map(ToString::to_string).as_deref() {
                Some("kind") => {
                    at = attr.span();
                    &mut kind
                }
                Some("group") => &mut group,
                Some("version") => &mut version,
                Some("status") => &mut status,
                _ => continue,
            };
            *slot = Some(value.value());
        }
    }
    let spec = s.ident.to_string();
    let kind = kind.unwrap_or_else(|| {
        spec.strip_suffix("Spec")
            .filter(|k| !k.is_empty())
            .unwrap_or(&spec)
            .to_string()
    });
    let or_dots = |v: Option<String>| v.unwrap_or_else(|| "...".into());
    let scope = if namespaced {
        ", namespaced"
    } else {
        // kube-derive's kinds are cluster-scoped unless `namespaced`; ours are namespaced
        // unless told otherwise.
        ", scope = \"Cluster\""
    };
    let (status_field, status_marker) = match &status {
        Some(t) => (
            format!(", status: Option<{t}>"),
            " and #[subresource(status)]",
        ),
        None => (String::new(), ""),
    };
    Some(
        Diagnostic::new(
            at,
            format!(
                "kind `{kind}` is kube-derive's #[derive(CustomResource)] on `{spec}`: operator-gen does not generate its CRD (kube-derive builds it when the operator runs)"
            ),
            Origin::Source,
        )
        .with_help(format!(
            "to generate it, write the kind out as `pub struct {kind} {{ metadata: ObjectMeta, spec: {spec}{status_field} }}` with operator-derive's #[derive(CustomResource)], #[resource(group = \"{}\", version = \"{}\", kind = \"{kind}\"{scope})]{status_marker}, and #[derive(Schema)] on `{spec}` in place of #[kube(...)] (the book's \"Moving an operator over\", from kube-derive)",
            or_dots(group),
            or_dots(version),
        )),
    )
}
