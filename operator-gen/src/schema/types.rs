//! Rust type expressions to schemas: primitives, strings, lists, sets and maps, the
//! wrappers that serialize as their content, and names resolved to declared or Kubernetes
//! types (which become the declared type's schema, built once and reused).

use crate::api::apiextensions::v1::{
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};
use syn::spanned::Spanned as _;

use super::{SchemaBuilder, Site, WRAPPERS};
use crate::known_types;
use crate::source::Resolved;

impl<'a> SchemaBuilder<'a, '_> {
    /// Whether `ty` (under `Option`, `Box` and references) names a type with a schema of its
    /// own: a type declared in the sources or a Kubernetes type. controller-gen refers to
    /// those by reference instead of inlining them.
    pub(super) fn is_named(&self, site: Site<'a, '_>, ty: &syn::Type) -> bool {
        match ty {
            syn::Type::Reference(r) => self.is_named(site, &r.elem),
            syn::Type::Paren(p) => self.is_named(site, &p.elem),
            syn::Type::Group(g) => self.is_named(site, &g.elem),
            syn::Type::Path(tp) if tp.qself.is_none() => {
                let Some(last) = tp.path.segments.last() else {
                    return false;
                };
                if WRAPPERS.iter().any(|w| last.ident == w) {
                    if let syn::PathArguments::AngleBracketed(a) = &last.arguments
                        && let Some(syn::GenericArgument::Type(inner)) = a.args.first()
                    {
                        return self.is_named(site, inner);
                    }
                    return false;
                }
                match self.index.resolve(site.module, &tp.path) {
                    Resolved::Local(_) => true,
                    Resolved::Ambiguous(_) => false,
                    Resolved::External(p) => known_types::is_known_path(&p),
                }
            }
            _ => false,
        }
    }

    /// Maps a Rust type expression to a schema.
    pub(super) fn type_schema(
        &mut self,
        site: Site<'a, '_>,
        ty: &'a syn::Type,
    ) -> Option<JSONSchemaProps> {
        match ty {
            syn::Type::Path(tp) if tp.qself.is_none() => self.path_schema(site, ty, &tp.path),
            syn::Type::Reference(r) => self.type_schema(site, &r.elem),
            syn::Type::Paren(p) => self.type_schema(site, &p.elem),
            syn::Type::Group(g) => self.type_schema(site, &g.elem),
            syn::Type::Array(a) => self.array_of(site, &a.elem),
            syn::Type::Slice(a) => self.array_of(site, &a.elem),
            other => {
                self.error(
                    site.file,
                    other.span(),
                    format!(
                        "unsupported type `{}`: use a struct, enum, String, integer, bool, Option, Vec or map",
                        quote::quote!(#other)
                    ),
                );
                None
            }
        }
    }

    fn array_of(&mut self, site: Site<'a, '_>, elem: &'a syn::Type) -> Option<JSONSchemaProps> {
        let items = self.type_schema(site, elem)?;
        Some(JSONSchemaProps {
            type_: Some("array".into()),
            items: Some(JSONSchemaPropsOrArray::Schema(Box::new(items))),
            ..Default::default()
        })
    }

    fn path_schema(
        &mut self,
        site: Site<'a, '_>,
        ty: &'a syn::Type,
        path: &'a syn::Path,
    ) -> Option<JSONSchemaProps> {
        let last = path.segments.last()?;
        let name = last.ident.to_string();
        let args: Vec<&'a syn::Type> = match &last.arguments {
            syn::PathArguments::AngleBracketed(a) => a
                .args
                .iter()
                .filter_map(|arg| match arg {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let resolved = self.index.resolve(site.module, path);
        let full_path = match resolved {
            Resolved::Local(id) => return self.decl_schema(id, (site.file, ty.span())),
            Resolved::Ambiguous(ids) => {
                let places: Vec<String> = ids
                    .iter()
                    .map(|i| {
                        let d = &self.index.skeleton.decls[*i];
                        format!(
                            "crate::{}",
                            d.module
                                .iter()
                                .cloned()
                                .chain([d.name.clone()])
                                .collect::<Vec<_>>()
                                .join("::")
                        )
                    })
                    .collect();
                self.error(
                    site.file,
                    ty.span(),
                    format!(
                        "`{name}` is ambiguous: it could be {}; import the one you mean with `use`",
                        places.join(" or ")
                    ),
                );
                return None;
            }
            Resolved::External(p) => p,
        };
        let scalar = |t: &str, format: Option<&str>| {
            Some(JSONSchemaProps {
                type_: Some(t.into()),
                format: format.map(Into::into),
                ..Default::default()
            })
        };
        match (name.as_str(), args.as_slice()) {
            ("i8" | "i16" | "u8" | "u16" | "isize" | "usize", []) => scalar("integer", None),
            ("i32" | "u32", []) => scalar("integer", Some("int32")),
            ("i64" | "u64", []) => scalar("integer", Some("int64")),
            ("f32" | "f64", []) => {
                if self.options.allow_dangerous_types {
                    scalar("number", None)
                } else {
                    self.error(
                        site.file,
                        ty.span(),
                        format!(
                            "`{name}` fields are discouraged in Kubernetes APIs (floats do not round-trip across languages); use an integer or a Quantity, or allow them with `allow-dangerous-types = true` under [package.metadata.operator-gen] in the crate's Cargo.toml (operator-gen: --allow-dangerous-types)"
                        ),
                    );
                    None
                }
            }
            ("bool", []) => scalar("boolean", None),
            ("String" | "str" | "char", []) => scalar("string", None),
            (wrapper, [inner]) if WRAPPERS.contains(&wrapper) => self.type_schema(site, inner),
            ("Vec", [syn::Type::Path(p)]) if p.path.is_ident("u8") => {
                scalar("string", Some("byte"))
            }
            ("Vec" | "VecDeque" | "BTreeSet" | "HashSet", [inner]) => self.array_of(site, inner),
            ("BTreeMap" | "HashMap", [key, value]) => {
                let key_schema = self.type_schema(site, key)?;
                if key_schema.type_.as_deref() != Some("string") {
                    self.error(
                        site.file,
                        key.span(),
                        "map keys must serialize as strings (String or a string enum)",
                    );
                    return None;
                }
                let value = self.type_schema(site, value)?;
                Some(JSONSchemaProps {
                    type_: Some("object".into()),
                    additional_properties: Some(JSONSchemaPropsOrBool::Schema(Box::new(value))),
                    ..Default::default()
                })
            }
            ("Value", [])
                if full_path.first().is_some_and(|p| p == "serde_json") || full_path.len() == 1 =>
            {
                Some(JSONSchemaProps {
                    x_kubernetes_preserve_unknown_fields: Some(true),
                    ..Default::default()
                })
            }
            _ => {
                if let Some(schema) = known_types::schema_for_path(&full_path) {
                    return Some(schema);
                }
                let message = if known_types::is_kubernetes_path(&full_path) {
                    let suggestions = known_types::suggestions(&full_path);
                    let hint = if suggestions.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " (did you mean {}?)",
                            suggestions
                                .iter()
                                .map(|s| format!("`{s}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    };
                    format!(
                        "`{}` is not among the Kubernetes types operator-gen knows{hint}; operator-gen knows the types of k8s-openapi's api, apimachinery, apiextensions_apiserver and kube_aggregator modules by their full path; for anything else use `serde_json::Value` with #[schema(preserve_unknown_fields)]",
                        full_path.join("::"),
                    )
                } else {
                    format!(
                        "cannot generate a schema for `{}`: it is not declared in the scanned sources and is not a supported Kubernetes or standard type; add the file that declares it to the generator's paths",
                        full_path.join("::")
                    )
                };
                self.error(site.file, ty.span(), message);
                None
            }
        }
    }
}
