//! Lowering: what one parsed file gives the [`model`](crate::model), read once, on the
//! thread that parsed it: its root kinds and its item markers (`#[rbac]`, `#[webhook]`,
//! `#[webhook_configuration]`), as plain data with their locations. Only what the
//! generators that run read is lowered (see [`Reads`]).

use crate::crd;
use crate::diagnostics::Diagnostics;
use crate::generator::Reads;
use crate::markers::{self, MetaSource, PrintColumnMarker, ResourceMarker, SubresourceMarker};
use crate::model::{Kind, Located, Location};
use crate::source::{FileSummary, SourceFile, TypeDecl};

/// A file's share of the model.
#[derive(Debug, Default)]
pub(crate) struct Lowered {
    /// Each root kind, with its position in the file's declarations.
    pub kinds: Vec<(usize, Kind)>,
    pub rbac: Vec<Located<markers::RbacMarker>>,
    pub webhooks: Vec<Located<markers::WebhookMarker>>,
    pub webhook_configurations: Vec<Located<markers::WebhookConfigurationMarker>>,
}

/// The CRD-level markers of a root kind. They hold spans, so they stay on the thread that
/// read them, which builds the kind's CRD without reading them again.
pub(crate) type KindMarkers = (ResourceMarker, SubresourceMarker, Vec<PrintColumnMarker>);

/// Lowers `file` (`summary` is its [`crate::source::summarize`]). Marker errors go to
/// `diags`; each kind's CRD-level markers to `kind_markers`, by position in the file's
/// declarations.
pub(crate) fn lower(
    file: &SourceFile,
    summary: &FileSummary,
    reads: Reads,
    kind_markers: &mut Vec<(usize, KindMarkers)>,
    diags: &mut Diagnostics,
) -> Lowered {
    let mut lowered = Lowered::default();
    if reads.kinds || reads.crds() {
        for (no, item) in crate::source::type_items(file).into_iter().enumerate() {
            let module = &summary.decls[no].0;
            let decl = TypeDecl { item, module, file };
            if let Some(k) = crd::kind_decl(decl, diags) {
                lowered.kinds.push((no, kind(file, &k)));
                kind_markers.push((no, (k.resource, k.subresources, k.printcolumns)));
            }
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

/// The model of a root kind.
fn kind(file: &SourceFile, k: &crd::KindDecl<'_>) -> Kind {
    let r = &k.resource;
    let kind = k.kind();
    let mut rust_path = k.decl.module.to_vec();
    rust_path.push(k.decl.name());
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
    }
}
