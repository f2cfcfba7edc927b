//! Stage four for CRDs: root kinds (structs carrying `#[resource]`) with their schemas and
//! CRD-level markers become `apiextensions.k8s.io/v1` CustomResourceDefinitions.

use std::collections::BTreeMap;

use crate::api::apiextensions::v1::{
    CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionNames,
    CustomResourceDefinitionSpec, CustomResourceDefinitionVersion, CustomResourceSubresourceScale,
    CustomResourceSubresourceStatus, CustomResourceSubresources, CustomResourceValidation,
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool, SelectableField,
};
use crate::api::meta::v1::ObjectMeta;

use crate::Origin;
use crate::diagnostics::Diagnostic;
use crate::diagnostics::Diagnostics;
use crate::markers::{self, PrintColumnMarker, ResourceMarker, SubresourceMarker};
use crate::model::{KindMarkers, TypeDef};
use crate::place::Loc;
use crate::schema::SchemaBuilder;

mod paths;

/// The annotation that records which generator wrote a CRD (controller-gen writes
/// `controller-gen.kubebuilder.io/version`).
pub const VERSION_ANNOTATION: &str = "operator-gen.operator-rs.dev/version";

/// A version of a root kind in the model: the struct's declaration id, its model and its
/// CRD-level markers.
#[derive(Debug, Clone, Copy)]
pub struct KindDecl<'m> {
    /// The struct's declaration id in the model.
    pub id: usize,
    /// The struct.
    pub def: &'m TypeDef,
    /// Its `#[resource]` marker.
    pub resource: &'m ResourceMarker<Loc>,
    /// Its `#[subresource]` marker.
    pub subresources: &'m SubresourceMarker<Loc>,
    /// Its `#[printcolumn]` markers, in order.
    pub printcolumns: &'m [PrintColumnMarker<Loc>],
}

impl<'m> KindDecl<'m> {
    /// The root kind `id` of the model, when it is one.
    pub fn of(id: usize, def: &'m TypeDef) -> Option<Self> {
        let KindMarkers {
            resource,
            subresources,
            printcolumns,
        } = def.kind.as_ref()?;
        Some(Self {
            id,
            def,
            resource,
            subresources,
            printcolumns,
        })
    }
}

/// Builds the CRD of (`group`, `kind`) with one version per `#[resource]` struct in `decls`
/// (versions sorted by name, as controller-gen does). `None` when a problem was reported, or
/// when every version is skipped.
pub fn build_crd<'m>(
    group: &str,
    kind: &str,
    mut decls: Vec<KindDecl<'m>>,
    builder: &mut SchemaBuilder<'m>,
    problems: &mut Diagnostics<Loc>,
) -> Option<CustomResourceDefinition> {
    decls.sort_by(|a, b| a.resource.version.value.cmp(&b.resource.version.value));
    let mut ok = true;
    for pair in decls.windows(2) {
        if pair[0].resource.version.value == pair[1].resource.version.value {
            report(
                problems,
                pair[1].resource.version.span,
                format!(
                    "{group}/{kind} version {} is declared twice (also by `{}`)",
                    pair[1].resource.version.value, pair[0].def.name
                ),
            );
            ok = false;
        }
    }
    let first = &decls[0];
    // A kind named by its type, not by `kind = "..."`: the type's name must do as a kind
    // (an explicit kind is checked at the marker).
    for d in &decls {
        if d.resource.kind.is_none()
            && let Some(problem) = markers::kind_name_problem(kind)
        {
            report(
                problems,
                d.def.at,
                format!("{problem}; name the kind with #[resource(kind = \"...\")]"),
            );
            ok = false;
        }
    }
    for other in &decls[1..] {
        if let Some(what) = names_disagree(first.resource, other.resource) {
            report(
                problems,
                other.resource.span,
                format!(
                    "the versions of {group}/{kind} disagree on {what} ({} and {}); every version's #[resource] must give the same names and scope",
                    first.resource.version.value, other.resource.version.value
                ),
            );
            ok = false;
        }
    }
    let kept: Vec<&KindDecl<'m>> = decls.iter().filter(|d| d.resource.skip.is_none()).collect();
    let mut versions = Vec::new();
    for k in &kept {
        let Some(mut schema) = builder.root_schema(k.id) else {
            ok = false;
            continue;
        };
        builder.check_cel(&mut schema, k.resource.span);
        let before = problems.len();
        check_kind(k, &schema, problems);
        ok &= problems.len() == before;
        versions.push(version_for(k, schema, kept.len() == 1));
    }
    if kept.is_empty() || !ok {
        // Every version skipped: controller-gen writes nothing for the kind either.
        return None;
    }
    let storage: Vec<&&KindDecl<'m>> = kept
        .iter()
        .filter(|k| k.resource.storage.is_some())
        .collect();
    if kept.len() > 1 && storage.len() != 1 {
        let at = storage.get(1).map_or(kept[0].resource.span, |k| {
            k.resource.storage.unwrap_or(k.resource.span)
        });
        report(
            problems,
            at,
            if storage.is_empty() {
                format!(
                    "{group}/{kind} has {} versions and none is marked `storage`; mark exactly one #[resource(..., storage)]",
                    kept.len()
                )
            } else {
                format!("{group}/{kind} has more than one `storage` version")
            },
        );
        return None;
    }
    if !versions.iter().any(|v| v.served) {
        report(
            problems,
            kept[0].resource.span,
            format!("{group}/{kind} serves no version; at least one must be served"),
        );
        return None;
    }
    let mut crd = crd_for(&decls, group, kind, versions);
    if let Some(max) = builder.options().max_desc_len {
        truncate_descriptions(&mut crd, max);
    }
    Some(crd)
}

fn report(problems: &mut Diagnostics<Loc>, at: Loc, message: String) {
    problems.add(Diagnostic::new(at, message, Origin::Source));
}

/// Which CRD-wide name or scope two versions' `#[resource]` markers give differently.
fn names_disagree(a: &ResourceMarker<Loc>, b: &ResourceMarker<Loc>) -> Option<&'static str> {
    let value = |s: &Option<markers::Spanned<String, Loc>>| s.as_ref().map(|s| s.value.clone());
    if value(&a.plural) != value(&b.plural) {
        Some("the plural")
    } else if value(&a.singular) != value(&b.singular) {
        Some("the singular")
    } else if a.scope != b.scope {
        Some("the scope")
    } else if a.shortnames != b.shortnames {
        Some("the short names")
    } else if a.categories != b.categories {
        Some("the categories")
    } else {
        None
    }
}

fn property_at<'s>(schema: &'s JSONSchemaProps, path: &str) -> Option<&'s JSONSchemaProps> {
    let mut current = schema;
    for part in path.trim_start_matches('.').split('.') {
        current = current.properties.as_ref()?.get(part)?;
    }
    Some(current)
}

/// Cross-checks between CRD markers and the schema.
fn check_kind(kind: &KindDecl<'_>, schema: &JSONSchemaProps, problems: &mut Diagnostics<Loc>) {
    // `subresource(status)` without a `status` field is accepted, as controller-gen does
    // (its multi-version testdata has such kinds): the API server serves `/status` and
    // keeps status writes apart from spec writes even before the type grows a status.
    if let Some(scale) = &kind.subresources.scale {
        for path in [Some(&scale.spec_path), Some(&scale.status_path)]
            .into_iter()
            .flatten()
        {
            match property_at(schema, &path.value) {
                None => report(
                    problems,
                    path.span,
                    format!("`{}` does not name a field of the schema", path.value),
                ),
                Some(p) if p.type_.as_deref() != Some("integer") => report(
                    problems,
                    path.span,
                    format!("`{}` must point at an integer field", path.value),
                ),
                _ => {}
            }
        }
    }
    for column in kind.printcolumns {
        if let Some(problem) = paths::column_problem(column, schema) {
            report(problems, column.span, problem);
        }
    }
    for (at, problem) in paths::selectable_problems(&kind.resource.selectable_fields, schema) {
        report(problems, at, problem);
    }
}

fn version_for(
    kind_decl: &KindDecl<'_>,
    schema: JSONSchemaProps,
    only: bool,
) -> CustomResourceDefinitionVersion {
    let r = &kind_decl.resource;
    // controller-gen writes `subresources: {}` for a version with print columns and no
    // subresource (its print-column marker creates the struct); do the same.
    let subresources = (kind_decl.subresources.status.is_some()
        || kind_decl.subresources.scale.is_some()
        || !kind_decl.printcolumns.is_empty())
    .then(|| CustomResourceSubresources {
        status: kind_decl.subresources.status.map(|_| {
            CustomResourceSubresourceStatus(serde_json::Value::Object(Default::default()))
        }),
        scale: kind_decl
            .subresources
            .scale
            .as_ref()
            .map(|s| CustomResourceSubresourceScale {
                spec_replicas_path: s.spec_path.value.clone(),
                status_replicas_path: s.status_path.value.clone(),
                label_selector_path: s.selector_path.as_ref().map(|p| p.value.clone()),
            }),
    });
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
    let selectable: Vec<SelectableField> = r
        .selectable_fields
        .iter()
        .map(|p| SelectableField {
            json_path: p.value.clone(),
        })
        .collect();
    CustomResourceDefinitionVersion {
        name: r.version.value.clone(),
        served: r.served,
        storage: only || r.storage.is_some(),
        deprecated: r.deprecated.as_ref().map(|_| true),
        deprecation_warning: r.deprecated.clone().flatten(),
        schema: Some(CustomResourceValidation {
            open_api_v3_schema: Some(schema),
        }),
        subresources,
        additional_printer_columns: (!columns.is_empty()).then_some(columns),
        selectable_fields: (!selectable.is_empty()).then_some(selectable),
    }
}

fn crd_for(
    decls: &[KindDecl<'_>],
    group: &str,
    kind: &str,
    versions: Vec<CustomResourceDefinitionVersion>,
) -> CustomResourceDefinition {
    let r = &decls[0].resource;
    let plural = r
        .plural
        .as_ref()
        .map_or_else(|| crate::plural::default_plural(kind), |p| p.value.clone());
    let singular = r
        .singular
        .as_ref()
        .map_or_else(|| kind.to_ascii_lowercase(), |s| s.value.clone());
    let mut annotations = BTreeMap::from([(
        VERSION_ANNOTATION.to_string(),
        format!("v{}", env!("CARGO_PKG_VERSION")),
    )]);
    let mut labels = BTreeMap::new();
    for d in decls {
        annotations.extend(d.resource.annotations.iter().cloned());
        labels.extend(d.resource.labels.iter().cloned());
    }
    CustomResourceDefinition {
        metadata: ObjectMeta {
            name: Some(format!("{plural}.{group}")),
            annotations: Some(annotations),
            labels: (!labels.is_empty()).then_some(labels),
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
            versions,
            ..Default::default()
        },
    }
}

/// Applies `max_desc_len` (controller-gen's `crd:maxDescLen`) to every description of a
/// CRD's schemas.
pub fn truncate_descriptions(crd: &mut CustomResourceDefinition, max: usize) {
    for v in &mut crd.spec.versions {
        if let Some(schema) = v
            .schema
            .as_mut()
            .and_then(|s| s.open_api_v3_schema.as_mut())
        {
            truncate_schema_descriptions(schema, max);
        }
    }
}

/// Applies `max_desc_len` to every description of one schema and the schemas inside it.
pub fn truncate_schema_descriptions(schema: &mut JSONSchemaProps, max: usize) {
    fn walk(s: &mut JSONSchemaProps, max: usize) {
        s.description = s
            .description
            .take()
            .and_then(|d| crate::docs::truncate(&d, max));
        for p in s.properties.iter_mut().flat_map(|m| m.values_mut()) {
            walk(p, max);
        }
        match &mut s.items {
            Some(JSONSchemaPropsOrArray::Schema(i)) => walk(i, max),
            Some(JSONSchemaPropsOrArray::Schemas(list)) => {
                list.iter_mut().for_each(|i| walk(i, max))
            }
            None => {}
        }
        if let Some(JSONSchemaPropsOrBool::Schema(a)) = &mut s.additional_properties {
            walk(a, max);
        }
        for list in [&mut s.all_of, &mut s.any_of, &mut s.one_of]
            .into_iter()
            .flatten()
        {
            list.iter_mut().for_each(|i| walk(i, max));
        }
    }
    walk(schema, max);
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;

    fn build(files: &[(&str, &str)]) -> Result<Vec<CustomResourceDefinition>, String> {
        let texts = files
            .iter()
            .map(|(name, text)| (PathBuf::from(format!("src/{name}.rs")), text.to_string()))
            .collect();
        crate::generate_from_texts(Path::new("src"), texts, &crate::Options::default())
            .map(|g| g.crds)
            .map_err(|e| e.to_string())
    }

    const POLICY_V1: &str = r#"
/// Policy v1.
#[resource(group = "x.example.com", version = "v1", kind = "Policy", scope = "Cluster",
           shortnames = "pol;pl", categories = "all", storage,
           selectable_fields = [".spec.level"], annotations = ["team=core"], labels = ["tier=api"])]
#[subresource(status, scale(spec_path = ".spec.replicas", status_path = ".status.replicas"))]
#[printcolumn(name = "Level", type = "integer", json_path = ".spec.level")]
#[printcolumn(name = "Age", type = "date", json_path = ".metadata.creationTimestamp", priority = 1)]
pub struct Policy { pub metadata: ObjectMeta, pub spec: Spec, pub status: Option<Status> }
pub struct Spec { pub level: i32, pub replicas: i32 }
pub struct Status { pub replicas: i32 }
"#;

    const POLICY_V1BETA1: &str = r#"
/// Policy v1beta1.
#[resource(group = "x.example.com", version = "v1beta1", kind = "Policy", scope = "Cluster",
           shortnames = "pol;pl", categories = "all", deprecated = "use v1")]
pub struct Policy { pub metadata: ObjectMeta, pub spec: Spec }
pub struct Spec { pub level: i32 }
"#;

    #[test]
    fn names_scope_metadata_and_versions() {
        let crds = build(&[("v1beta1", POLICY_V1BETA1), ("v1", POLICY_V1)]).unwrap();
        assert_eq!(crds.len(), 1);
        let crd = &crds[0];
        assert_eq!(crd.metadata.name.as_deref(), Some("policies.x.example.com"));
        let labels = crd.metadata.labels.as_ref().unwrap();
        assert_eq!(labels.get("tier").map(String::as_str), Some("api"));
        let annotations = crd.metadata.annotations.as_ref().unwrap();
        assert_eq!(annotations.get("team").map(String::as_str), Some("core"));
        let names = &crd.spec.names;
        assert_eq!(
            (
                names.plural.as_str(),
                names.singular.as_deref(),
                names.list_kind.as_deref()
            ),
            ("policies", Some("policy"), Some("PolicyList"))
        );
        assert_eq!(
            names.short_names.as_deref(),
            Some(&["pol".to_string(), "pl".to_string()][..])
        );
        assert_eq!(names.categories.as_deref(), Some(&["all".to_string()][..]));
        assert_eq!(crd.spec.scope, "Cluster");
        let versions: Vec<(&str, bool, bool, Option<bool>)> = crd
            .spec
            .versions
            .iter()
            .map(|v| (v.name.as_str(), v.served, v.storage, v.deprecated))
            .collect();
        assert_eq!(
            versions,
            [
                ("v1", true, true, None),
                ("v1beta1", true, false, Some(true))
            ]
        );
        assert_eq!(
            crd.spec.versions[1].deprecation_warning.as_deref(),
            Some("use v1")
        );
    }

    #[test]
    fn subresources_columns_and_selectable_fields() {
        let crds = build(&[("v1", POLICY_V1)]).unwrap();
        let v1 = &crds[0].spec.versions[0];
        let sub = v1.subresources.as_ref().unwrap();
        assert!(sub.status.is_some());
        let scale = sub.scale.as_ref().unwrap();
        assert_eq!(
            (
                scale.spec_replicas_path.as_str(),
                scale.status_replicas_path.as_str()
            ),
            (".spec.replicas", ".status.replicas")
        );
        assert_eq!(scale.label_selector_path, None);
        let columns: Vec<(&str, &str, &str, Option<i32>)> = v1
            .additional_printer_columns
            .iter()
            .flatten()
            .map(|c| {
                (
                    c.name.as_str(),
                    c.type_.as_str(),
                    c.json_path.as_str(),
                    c.priority,
                )
            })
            .collect();
        assert_eq!(
            columns,
            [
                ("Level", "integer", ".spec.level", None),
                ("Age", "date", ".metadata.creationTimestamp", Some(1)),
            ]
        );
        let selectable: Vec<&str> = v1
            .selectable_fields
            .iter()
            .flatten()
            .map(|f| f.json_path.as_str())
            .collect();
        assert_eq!(selectable, [".spec.level"]);
        // The root schema: apiVersion, kind, metadata, spec, status; status not required.
        let schema = v1
            .schema
            .as_ref()
            .unwrap()
            .open_api_v3_schema
            .as_ref()
            .unwrap();
        let props: Vec<&String> = schema.properties.as_ref().unwrap().keys().collect();
        assert_eq!(props, ["apiVersion", "kind", "metadata", "spec", "status"]);
        assert_eq!(schema.required.as_deref(), Some(&["spec".to_string()][..]));
    }

    /// A kind with a map, a list of objects, a preserved field and scalars, and the given
    /// markers above it.
    fn shop(markers: &str) -> String {
        format!(
            r#"
/// Shop.
#[resource(group = "x.example.com", version = "v1", kind = "Shop"{markers})]
pub struct Shop {{ pub metadata: ObjectMeta, pub spec: Spec, pub status: Option<Status> }}
pub struct Spec {{
    pub owner: String,
    pub size: i32,
    pub open: bool,
    pub price: f64,
    pub labels: BTreeMap<String, String>,
    pub items: Vec<Item>,
    pub tags: Vec<String>,
    #[schema(preserve_unknown_fields)]
    pub extra: Option<Extra>,
    pub address: Address,
}}
pub struct Item {{ pub name: String, pub count: i32 }}
pub struct Address {{ pub city: String }}
pub struct Extra {{ pub a: Option<String> }}
pub struct Status {{ pub ready: Option<i32> }}
"#
        )
    }

    /// The generator's error for a `Shop` with these markers, or `None` when it generates.
    fn shop_error(resource: &str, columns: &[&str]) -> Option<String> {
        let mut text = shop(resource);
        for column in columns {
            text = text.replacen(
                "#[resource",
                &format!("#[printcolumn(name = \"C\", type = \"string\", json_path = \"{column}\")]\n#[resource"),
                1,
            );
        }
        let options = crate::Options {
            allow_dangerous_types: true,
            ..Default::default()
        };
        let texts = vec![(PathBuf::from("src/shop.rs"), text)];
        crate::generate_from_texts(Path::new("src"), texts, &options)
            .err()
            .map(|e| e.to_string())
    }

    #[test]
    fn print_columns_that_read_nothing_are_refused() {
        // Paths to fields, through lists, maps, preserved fields and metadata: accepted.
        for path in [
            ".spec.owner",
            ".spec.items[0].name",
            ".spec.items[?(@.name=='a')].count",
            ".spec.items[*].name",
            ".spec.tags[0]",
            ".spec.labels.team",
            ".spec.extra.anything.at.all",
            ".metadata.labels.app",
            ".metadata.creationTimestamp",
            ".status.ready",
            ".spec..name",
            ".spec.address",
        ] {
            assert_eq!(shop_error("", &[path]), None, "{path}");
        }
        let err = shop_error("", &[".status.readyReplicas"]).unwrap();
        assert!(
            err.contains("print column \"C\" reads `.status.readyReplicas`")
                && err.contains(
                    "`.status` has no field `readyReplicas` (the fields `ready` and no others)"
                )
                && err.contains("src/shop.rs:"),
            "{err}"
        );
        let err = shop_error("", &[".spec.items[0].nmae"]).unwrap();
        assert!(
            err.contains(
                "`.spec.items[]` has no field `nmae` (the fields `count`, `name` and no others)"
            ),
            "{err}"
        );
        let err = shop_error("", &[".spec.size.value"]).unwrap();
        assert!(
            err.contains("`.spec.size` is an integer, with no fields"),
            "{err}"
        );
        let err = shop_error("", &[".sepc.owner"]).unwrap();
        assert!(err.contains("`.` has no field `sepc`"), "{err}");
    }

    #[test]
    fn selectable_fields_the_api_server_would_refuse_are_refused() {
        let fields = |list: &str| shop_error(&format!(", selectable_fields = [{list}]"), &[]);
        assert_eq!(
            fields(
                r#"".spec.owner", ".spec.size", ".spec.open", ".status.ready", ".spec.address.city""#
            ),
            None
        );
        for (list, want) in [
            (
                r#"".spec.price""#,
                "`.spec.price` must name a string, integer or boolean field of the schema, as the API server requires: it is a number",
            ),
            (r#"".spec.address""#, "it is an object"),
            (r#"".spec.tags""#, "it is an array"),
            (r#"".spec.ownr""#, "`.spec` has no field `ownr`"),
            (
                r#"".spec.extra.a""#,
                "it goes into `.spec.extra`, whose fields the schema does not list",
            ),
            (r#"".spec.items.name""#, "it crosses the list `.spec.items`"),
            (r#"".spec.items[0].name""#, "uses `[...]`"),
            (r#"".metadata.name""#, "is under `metadata`"),
            (
                r#"".spec.owner", ".spec.owner""#,
                "`.spec.owner` is listed twice",
            ),
            (
                r#"".spec.owner", ".spec.size", ".spec.open", ".status.ready", ".spec.address.city", ".spec.labels.a", ".spec.labels.b", ".spec.labels.c", ".spec.labels.d""#,
                "9 selectable fields; the API server takes at most 8 per version",
            ),
        ] {
            let err = fields(list).unwrap_or_else(|| panic!("{list} generated"));
            assert!(err.contains(want), "{list}: {err}");
        }
    }

    #[test]
    fn versions_that_disagree_or_fight_over_storage_are_refused() {
        let err = build(&[
            ("v1", POLICY_V1),
            ("v2", &POLICY_V1.replace("\"v1\"", "\"v2\"")),
        ])
        .unwrap_err();
        assert!(err.contains("storage"), "{err}");
        let err = build(&[
            ("v1", POLICY_V1),
            (
                "v1beta1",
                &POLICY_V1BETA1.replace("scope = \"Cluster\"", "namespaced"),
            ),
        ])
        .unwrap_err();
        assert!(err.contains("scope"), "{err}");
    }

    /// `#[crd_schema(...)]` is `#[schema(...)]`: the same CRD from either spelling, on
    /// fields and on types, and the markers do reach the CRD.
    #[test]
    fn crd_schema_is_schema_spelled_otherwise() {
        let text = r#"
#[resource(group = "x.example.com", version = "v1", kind = "Gadget")]
pub struct Gadget { pub metadata: ObjectMeta, pub spec: GadgetSpec }
#[schema(title = "The spec")]
pub struct GadgetSpec {
    #[schema(schemaless, preserve_unknown_fields)]
    #[validation(type = "object")]
    pub raw: serde_json::Value,
    #[schema(list_type = "set")]
    pub tags: Vec<String>,
    #[schema(nullable, default = 3)]
    pub size: Option<i32>,
}
"#;
        let written = build(&[("lib", text)]).unwrap();
        let spelled = build(&[("lib", &text.replace("#[schema(", "#[crd_schema("))]).unwrap();
        assert!(text.replace("#[schema(", "#[crd_schema(") != text);
        assert_eq!(written, spelled);
        let json = crate::render::to_json(&spelled[0]);
        let spec = &json["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
        assert_eq!(spec["title"], "The spec");
        let fields = &spec["properties"];
        assert_eq!(fields["raw"]["x-kubernetes-preserve-unknown-fields"], true);
        assert_eq!(fields["raw"]["type"], "object");
        assert_eq!(fields["tags"]["x-kubernetes-list-type"], "set");
        assert_eq!(fields["size"]["nullable"], true);
        assert_eq!(fields["size"]["default"], 3);
    }

    /// The two spellings are one marker: a key given in both is given twice, and a mistake
    /// names the spelling written.
    #[test]
    fn crd_schema_mistakes_are_schema_mistakes() {
        let err = |field: &str| {
            let text = format!(
                "#[resource(group = \"x.example.com\", version = \"v1\", kind = \"Gadget\")]\npub struct Gadget {{ pub metadata: ObjectMeta, pub spec: GadgetSpec }}\npub struct GadgetSpec {{\n{field}\n}}\n"
            );
            build(&[("lib", &text)]).unwrap_err()
        };
        let twice = err("#[schema(nullable)]\n#[crd_schema(nullable)]\npub size: Option<i32>,");
        assert!(
            twice.contains("src/lib.rs:5:14: error: `nullable` is given twice for this field"),
            "{twice}"
        );
        let unknown = err("#[crd_schema(schemales)]\npub raw: serde_json::Value,");
        assert!(
            unknown.contains(
                "src/lib.rs:4:14: error: unknown argument `schemales` in #[crd_schema(...)]; did you mean `schemaless`?"
            ),
            "{unknown}"
        );
        let duplicate = err("#[crd_schema(nullable, nullable)]\npub size: Option<i32>,");
        assert!(
            duplicate.contains("duplicate argument `nullable` in #[crd_schema(...)]"),
            "{duplicate}"
        );
    }

    fn warned(files: &[(&str, &str)]) -> (Vec<String>, Vec<String>) {
        let texts = files
            .iter()
            .map(|(name, text)| (PathBuf::from(format!("src/{name}.rs")), text.to_string()))
            .collect();
        let generated =
            crate::generate_from_texts(Path::new("src"), texts, &crate::Options::default())
                .unwrap_or_else(|e| panic!("{e}"));
        let kinds = generated
            .crds
            .iter()
            .map(|c| c.spec.names.kind.clone())
            .collect();
        (
            generated.warnings.iter().map(ToString::to_string).collect(),
            kinds,
        )
    }

    /// A kube-derive kind left in the sources is a warning naming it, at its `#[kube(...)]`,
    /// saying how to write it here; generation goes on, and our own kinds are not warned of.
    #[test]
    fn a_kube_derive_kind_is_a_warning_naming_it() {
        let text = r##"use kube::CustomResource;
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "kube.rs", version = "v1", kind = "Document", namespaced)]
#[kube(status = "DocumentStatus", shortname = "doc", printcolumn = r#"{"name":"Hidden","type":"boolean","jsonPath":".spec.hidden"}"#)]
pub struct DocumentSpec { pub title: String }
#[derive(kube::CustomResource)]
#[kube(group = "kube.rs", version = "v1")]
pub struct NoteSpec { pub text: String }
#[derive(CustomResource)]
#[resource(group = "x.example.com", version = "v1", kind = "Gadget")]
pub struct Gadget { pub metadata: ObjectMeta, pub spec: GadgetSpec }
pub struct GadgetSpec { pub size: i32 }
"##;
        let (warnings, kinds) = warned(&[("lib", text)]);
        assert_eq!(kinds, ["Gadget"]);
        assert_eq!(warnings.len(), 2, "{warnings:#?}");
        assert!(
            warnings[0].starts_with(
                "src/lib.rs:3:1: warning: kind `Document` is kube-derive's #[derive(CustomResource)] on `DocumentSpec`: operator-gen does not generate its CRD (kube-derive builds it when the operator runs)\n"
            ),
            "{}",
            warnings[0]
        );
        assert!(
            warnings[0].ends_with(
                "= help: to generate it, write the kind out as `pub struct Document { metadata: ObjectMeta, spec: DocumentSpec, status: Option<DocumentStatus> }` with operator-derive's #[derive(CustomResource)], #[resource(group = \"kube.rs\", version = \"v1\", kind = \"Document\", namespaced)] and #[subresource(status)], and #[derive(Schema)] on `DocumentSpec` in place of #[kube(...)] (the book's \"Moving an operator over\", from kube-derive)"
            ),
            "{}",
            warnings[0]
        );
        // No `kind = ...`: the spec's name without `Spec`; cluster-scoped, as kube-derive's
        // kinds are without `namespaced`.
        assert!(
            warnings[1].starts_with("src/lib.rs:7:1: warning: kind `Note` is kube-derive's"),
            "{}",
            warnings[1]
        );
        assert!(
            warnings[1].contains(
                "#[resource(group = \"kube.rs\", version = \"v1\", kind = \"Note\", scope = \"Cluster\")], and"
            ),
            "{}",
            warnings[1]
        );
        // Neither a struct without `#[kube]` nor our kind with one (a user moving over).
        let ours = "#[derive(CustomResource)]\n#[kube(group = \"kube.rs\", version = \"v1\")]\n#[resource(group = \"kube.rs\", version = \"v1\")]\npub struct Plain { pub metadata: ObjectMeta, pub spec: PlainSpec }\npub struct PlainSpec { pub a: i32 }";
        let (none, kinds) = warned(&[("lib", ours)]);
        assert_eq!(kinds, ["Plain"]);
        assert!(none.is_empty(), "{none:?}");
    }
}
