//! Stage four for CRDs: root kinds (structs carrying `#[resource]`) with their schemas and
//! CRD-level markers become `apiextensions.k8s.io/v1` CustomResourceDefinitions.

use std::collections::BTreeMap;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionNames,
    CustomResourceDefinitionSpec, CustomResourceDefinitionVersion, CustomResourceSubresourceScale,
    CustomResourceSubresourceStatus, CustomResourceSubresources, CustomResourceValidation,
    JSONSchemaProps,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use proc_macro2::Span;

use crate::diagnostics::Diagnostics;
use crate::markers::{
    self, MetaSource, PrintColumnMarker, ResourceMarker, SubresourceMarker, marker_name,
};
use crate::schema::SchemaBuilder;
use crate::source::{Index, SourceFile, TypeDecl, TypeItem};

/// The annotation that records which generator wrote a CRD (controller-gen writes
/// `controller-gen.kubebuilder.io/version`).
pub const VERSION_ANNOTATION: &str = "operator-gen.operator-rs.dev/version";

/// A root kind found in the sources, with its CRD-level markers.
#[derive(Debug)]
pub struct KindDecl<'a> {
    pub decl: TypeDecl<'a>,
    pub resource: ResourceMarker,
    pub subresources: SubresourceMarker,
    pub printcolumns: Vec<PrintColumnMarker>,
}

impl KindDecl<'_> {
    pub fn kind(&self) -> String {
        self.resource
            .kind
            .as_ref()
            .map_or_else(|| self.decl.name(), |k| k.value.clone())
    }
}

/// Reads the CRD-level markers of `attrs` (shared with operator-derive).
pub fn crd_markers(
    attrs: &[syn::Attribute],
    diags: &mut Diagnostics,
) -> (
    Option<ResourceMarker>,
    SubresourceMarker,
    Vec<PrintColumnMarker>,
) {
    let mut resource = None;
    let mut subresources = SubresourceMarker::default();
    let mut printcolumns = Vec::new();
    for attr in attrs {
        match marker_name(attr) {
            Some(markers::RESOURCE) => {
                if resource.is_some() {
                    diags.push(attr_span(attr), "only one #[resource(...)] per type");
                }
                resource = markers::parse_resource(MetaSource::Attr(attr), diags);
            }
            Some(markers::SUBRESOURCE) => {
                let s = markers::parse_subresource(MetaSource::Attr(attr), diags);
                subresources.status = subresources.status.or(s.status);
                subresources.scale = subresources.scale.or(s.scale);
            }
            Some(markers::PRINTCOLUMN) => {
                printcolumns.extend(markers::parse_printcolumn(MetaSource::Attr(attr), diags))
            }
            _ => {}
        }
    }
    (resource, subresources, printcolumns)
}

fn attr_span(attr: &syn::Attribute) -> Span {
    use syn::spanned::Spanned;
    attr.span()
}

/// Every struct with a `#[resource]` marker. Marker errors land in `problems`.
pub fn find_kinds<'a>(
    index: &Index<'a>,
    problems: &mut Vec<(&'a SourceFile, Diagnostics)>,
) -> Vec<KindDecl<'a>> {
    let mut kinds = Vec::new();
    for decl in &index.decls {
        let attrs = decl.item.attrs();
        if !attrs
            .iter()
            .any(|a| marker_name(a) == Some(markers::RESOURCE))
        {
            continue;
        }
        let mut diags = Diagnostics::new();
        let (resource, subresources, printcolumns) = crd_markers(attrs, &mut diags);
        if !matches!(decl.item, TypeItem::Struct(_)) {
            diags.push(
                decl.item.ident().span(),
                "#[resource] goes on a struct with named fields",
            );
        }
        problems.push((decl.file, diags));
        if let Some(resource) = resource {
            kinds.push(KindDecl {
                decl: decl.clone(),
                resource,
                subresources,
                printcolumns,
            });
        }
    }
    kinds
}

/// The default plural of a kind: lower-case English plural (`Memcached` → `memcacheds`,
/// `Policy` → `policies`, `Box` → `boxes`). Override with `#[resource(plural = "...")]`.
pub fn default_plural(kind: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    let consonant_y = lower.len() > 1
        && lower.ends_with('y')
        && !matches!(
            lower.as_bytes()[lower.len() - 2],
            b'a' | b'e' | b'i' | b'o' | b'u'
        );
    if consonant_y {
        format!("{}ies", &lower[..lower.len() - 1])
    } else if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|s| lower.ends_with(s))
    {
        format!("{lower}es")
    } else {
        format!("{lower}s")
    }
}

/// Builds one CRD per (group, kind).
pub fn build_crds<'a>(
    kinds: &[KindDecl<'a>],
    builder: &mut SchemaBuilder<'a, '_>,
    problems: &mut Vec<(&'a SourceFile, Diagnostics)>,
) -> Vec<CustomResourceDefinition> {
    let mut by_group_kind: BTreeMap<(String, String), Vec<&KindDecl<'a>>> = BTreeMap::new();
    for k in kinds {
        by_group_kind
            .entry((k.resource.group.value.clone(), k.kind()))
            .or_default()
            .push(k);
    }
    let mut crds = Vec::new();
    for ((group, kind), decls) in by_group_kind {
        let mut diags = Diagnostics::new();
        let first = decls[0];
        if decls.len() > 1 {
            for extra in &decls[1..] {
                problems.push((extra.decl.file, {
                    let mut d = Diagnostics::new();
                    d.push(
                        extra.resource.span,
                        format!(
                            "{group}/{kind} is declared more than once (versions {} and {}); multi-version CRDs are not supported yet",
                            first.resource.version.value, extra.resource.version.value
                        ),
                    );
                    d
                }));
            }
        }
        let Some(schema) = builder.root_schema(&first.decl) else {
            continue;
        };
        check_kind(first, &schema, &mut diags);
        let ok = diags.is_empty();
        problems.push((first.decl.file, diags));
        if !ok {
            continue;
        }
        crds.push(crd_for(first, &group, &kind, schema));
    }
    crds
}

fn property_at<'s>(schema: &'s JSONSchemaProps, path: &str) -> Option<&'s JSONSchemaProps> {
    let mut current = schema;
    for part in path.trim_start_matches('.').split('.') {
        current = current.properties.as_ref()?.get(part)?;
    }
    Some(current)
}

/// Cross-checks between CRD markers and the schema.
fn check_kind(kind: &KindDecl<'_>, schema: &JSONSchemaProps, diags: &mut Diagnostics) {
    let has = |name: &str| {
        schema
            .properties
            .as_ref()
            .is_some_and(|p| p.contains_key(name))
    };
    if let Some(span) = kind.subresources.status
        && !has("status")
    {
        diags.push(
            span,
            format!(
                "subresource(status) needs a `status` field on `{}`",
                kind.decl.name()
            ),
        );
    }
    if let Some(scale) = &kind.subresources.scale {
        for path in [Some(&scale.spec_path), Some(&scale.status_path)]
            .into_iter()
            .flatten()
        {
            match property_at(schema, &path.value) {
                None => diags.push(
                    path.span,
                    format!("`{}` does not name a field of the schema", path.value),
                ),
                Some(p) if p.type_.as_deref() != Some("integer") => diags.push(
                    path.span,
                    format!("`{}` must point at an integer field", path.value),
                ),
                _ => {}
            }
        }
    }
}

fn crd_for(
    kind_decl: &KindDecl<'_>,
    group: &str,
    kind: &str,
    schema: JSONSchemaProps,
) -> CustomResourceDefinition {
    let r = &kind_decl.resource;
    let plural = r
        .plural
        .as_ref()
        .map_or_else(|| default_plural(kind), |p| p.value.clone());
    let singular = r
        .singular
        .as_ref()
        .map_or_else(|| kind.to_ascii_lowercase(), |s| s.value.clone());
    let subresources =
        (kind_decl.subresources.status.is_some() || kind_decl.subresources.scale.is_some()).then(
            || CustomResourceSubresources {
                status: kind_decl.subresources.status.map(|_| {
                    CustomResourceSubresourceStatus(serde_json::Value::Object(Default::default()))
                }),
                scale: kind_decl.subresources.scale.as_ref().map(|s| {
                    CustomResourceSubresourceScale {
                        spec_replicas_path: s.spec_path.value.clone(),
                        status_replicas_path: s.status_path.value.clone(),
                        label_selector_path: s.selector_path.as_ref().map(|p| p.value.clone()),
                    }
                }),
            },
        );
    let columns: Vec<CustomResourceColumnDefinition> = kind_decl
        .printcolumns
        .iter()
        .map(|c| CustomResourceColumnDefinition {
            name: c.name.clone(),
            type_: c.type_.as_str().into(),
            json_path: c.json_path.clone(),
            description: c.description.clone(),
            format: c.format.clone(),
            priority: c.priority,
        })
        .collect();
    CustomResourceDefinition {
        metadata: ObjectMeta {
            name: Some(format!("{plural}.{group}")),
            annotations: Some(BTreeMap::from([(
                VERSION_ANNOTATION.to_string(),
                format!("v{}", env!("CARGO_PKG_VERSION")),
            )])),
            ..Default::default()
        },
        spec: CustomResourceDefinitionSpec {
            group: group.to_string(),
            names: CustomResourceDefinitionNames {
                kind: kind.to_string(),
                list_kind: Some(format!("{kind}List")),
                plural,
                singular: Some(singular),
                short_names: (!r.shortnames.is_empty()).then(|| r.shortnames.clone()),
                categories: (!r.categories.is_empty()).then(|| r.categories.clone()),
            },
            scope: r.scope.as_str().to_string(),
            versions: vec![CustomResourceDefinitionVersion {
                name: r.version.value.clone(),
                served: true,
                storage: true,
                schema: Some(CustomResourceValidation {
                    open_api_v3_schema: Some(schema),
                }),
                subresources,
                additional_printer_columns: (!columns.is_empty()).then_some(columns),
                ..Default::default()
            }],
            ..Default::default()
        },
        status: None,
    }
}
