//! Lowering: what one parsed file gives the [`model`](crate::model), read once, on the
//! thread that parsed it: its declared types (when CRDs are built), its root kinds and its
//! item markers (`#[rbac]`, `#[webhook]`, `#[webhook_configuration]`), as plain data with
//! their places. Only what the generators that run read is lowered (see [`Reads`]).

use crate::crd;
use crate::diagnostics::Diagnostics;
use crate::generator::Reads;
use crate::markers::{self, MetaSource, ResourceMarker};
use crate::model::{Kind, KindMarkers, Loc, Located, Location, TypeDef};
use crate::source::{FileSummary, SourceFile};

mod named;
mod types;

pub(crate) use named::resolve_named;

/// A file's share of the model.
#[derive(Debug, Default)]
pub(crate) struct Lowered {
    /// Each root kind, with its position in the file's declarations.
    pub kinds: Vec<(usize, Kind)>,
    /// Every declared type, in the file's declaration order (when CRDs are built).
    pub types: Vec<TypeDef>,
    pub rbac: Vec<Located<markers::RbacMarker>>,
    pub webhooks: Vec<Located<markers::WebhookMarker>>,
    pub webhook_configurations: Vec<Located<markers::WebhookConfigurationMarker>>,
    /// What generation goes past: kube-derive's kinds, which get no CRD.
    pub warnings: Vec<crate::Warning>,
}

/// The model of every type `file` (input `file_no`) declares, in declaration order.
pub(crate) fn type_defs(file_no: usize, file: &SourceFile) -> Vec<TypeDef> {
    crate::source::type_items(file)
        .into_iter()
        .map(|item| types::type_def(file_no, item))
        .collect()
}

/// Lowers `file`, input `file_no` (`summary` is its [`crate::source::summarize`]).
/// Errors of the item markers and of the kinds' CRD-level markers go to `diags`; those of
/// the types' schema markers stay with each type, for when a CRD uses it.
pub(crate) fn lower(
    file_no: usize,
    file: &SourceFile,
    summary: &FileSummary,
    reads: Reads,
    diags: &mut Diagnostics,
) -> Lowered {
    let mut lowered = Lowered::default();
    if reads.kinds || reads.crds() {
        for (no, item) in crate::source::type_items(file).into_iter().enumerate() {
            let kind_markers = crd::kind_markers(item, diags);
            let mut def = reads.crds().then(|| types::type_def(file_no, item));
            if let Some(crd::CrdMarkers {
                resource,
                subresources,
                printcolumns,
                compat,
            }) = kind_markers
            {
                let name = item.ident().to_string();
                let mut fact = kind(file, &summary.decls[no].0, &name, &resource);
                fact.compat = compat
                    .into_iter()
                    .map(|m| crate::compat::Allow {
                        crd: fact.crd_name(),
                        version: fact.version.clone(),
                        check: m.allow,
                        path: m.path,
                        reason: m.reason,
                        at: Some(Location::of(file, m.span)),
                    })
                    .collect();
                lowered.kinds.push((no, fact));
                if let Some(def) = &mut def {
                    let mut at = |span| Loc::of(file_no, span);
                    def.kind = Some(KindMarkers {
                        resource: resource.map_spans(&mut at),
                        subresources: subresources.map_spans(&mut at),
                        printcolumns: printcolumns
                            .into_iter()
                            .map(|c| c.map_spans(&mut at))
                            .collect(),
                    });
                }
            } else if let Some(found) = crd::kube_derive_kind(item) {
                let found = found.map_at(|span| Location::of(file, span));
                lowered.warnings.push(crate::Warning(found));
            }
            lowered.types.extend(def);
        }
    }
    if reads.rbac {
        let (placed, misplaced) = crate::source::item_markers(file, markers::RBAC);
        for attr in placed {
            if let Some(m) = markers::parse_rbac(MetaSource::Attr(attr), diags) {
                lowered.rbac.push(Located {
                    value: m,
                    at: Location::of(file, syn::spanned::Spanned::span(attr)),
                });
            }
        }
        for attr in misplaced {
            diags.push(syn::spanned::Spanned::span(attr), markers::MISPLACED_RBAC);
        }
    }
    if reads.webhooks {
        let (webhooks, misplaced) = crate::source::item_markers(file, markers::WEBHOOK);
        for attr in webhooks {
            if let Some(m) = markers::parse_webhook(MetaSource::Attr(attr), diags) {
                lowered.webhooks.push(Located {
                    value: m.value,
                    at: Location::of(file, m.span),
                });
            }
        }
        let (configurations, misplaced_configurations) =
            crate::source::item_markers(file, markers::WEBHOOK_CONFIGURATION);
        for attr in configurations {
            if let Some(m) = markers::parse_webhook_configuration(MetaSource::Attr(attr), diags) {
                lowered.webhook_configurations.push(Located {
                    value: m.value,
                    at: Location::of(file, m.span),
                });
            }
        }
        for attr in misplaced {
            diags.push(
                syn::spanned::Spanned::span(attr),
                markers::MISPLACED_WEBHOOK,
            );
        }
        for attr in misplaced_configurations {
            diags.push(
                syn::spanned::Spanned::span(attr),
                markers::MISPLACED_WEBHOOK_CONFIGURATION,
            );
        }
    }
    lowered
}

/// The model of a root kind: the struct `name` in `module`, with its `#[resource]`.
fn kind(file: &SourceFile, module: &[String], name: &str, r: &ResourceMarker) -> Kind {
    let kind = crd::kind_name(r, name);
    let mut rust_path = module.to_vec();
    rust_path.push(name.to_string());
    Kind {
        group: r.group.value.clone(),
        version: r.version.value.clone(),
        plural: r
            .plural
            .as_ref()
            .map_or_else(|| crd::default_plural(&kind), |p| p.value.clone()),
        singular: r
            .singular
            .as_ref()
            .map_or_else(|| kind.to_ascii_lowercase(), |s| s.value.clone()),
        shortnames: r.shortnames.clone(),
        categories: r.categories.clone(),
        scope: r.scope,
        rust_path: rust_path.join("::"),
        at: Location::of(file, r.span),
        kind,
        compat: Vec::new(),
    }
}
