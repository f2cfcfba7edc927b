//! Lowering: what one parsed file gives the [`model`](crate::model), read once, on the
//! thread that parsed it: its declared types (when CRDs are built), its root kinds and its
//! item markers (`#[rbac]`, `#[webhook]`, `#[webhook_configuration]`), as plain data with
//! their places. Only what the generators that run read is lowered (see [`Reads`]).

use std::collections::HashMap;

use crate::diagnostics::Diagnostics;
use crate::markers::{self, MetaSource, ResourceMarker};
use crate::model::{Allow, Kind, KindMarkers, Reads, TypeDef};
use crate::place::{Loc, Located, Location};
use crate::source::{FileSummary, Skeleton, SourceFile};
use crate::{LocatedError, Origin};

mod kinds;
mod named;
mod types;

/// The front half on one parsed file, as every driver runs it (the pipeline on its
/// workers, and the derive's schemas of single types, [`crate::type_schemas`]): the file's
/// declarations and imports for name resolution, the types declared twice in one module,
/// and the file's share of the model with its marker errors.
#[derive(Debug, Default)]
pub(crate) struct FileFacts {
    pub summary: FileSummary,
    pub lowered: Lowered,
    /// The mistakes in the item markers and the kinds' CRD-level markers.
    pub errors: Vec<LocatedError>,
    /// The types declared twice in one module (when kinds or CRDs are read).
    pub twice: Vec<LocatedError>,
}

/// Summarizes and lowers `file`, input `file_no`, for what `reads` asks.
pub(crate) fn lower_file(file_no: usize, file: &SourceFile, reads: Reads) -> FileFacts {
    let summary = crate::source::summarize(file);
    let reads_kinds = reads.kinds || reads.crds();
    let twice = if reads_kinds {
        declared_twice(file, &summary)
    } else {
        Vec::new()
    };
    let mut diags = Diagnostics::new();
    let lowered = lower(file_no, file, &summary, reads, &mut diags);
    FileFacts {
        summary,
        lowered,
        errors: diags.placed(|span| Location::of(file, span)),
        twice,
    }
}

/// The crate-wide index of every file's declarations (`summaries`, in input order), once
/// each is lowered; the values the markers of `types` name by path are read through it.
pub(crate) fn index(summaries: Vec<FileSummary>, types: &mut [TypeDef]) -> Skeleton {
    let skeleton = Skeleton::build(summaries);
    named::resolve_named(&skeleton, types);
    skeleton
}

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
#[cfg(test)]
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
            let kind_markers = kinds::kind_markers(item, diags);
            let mut def = reads.crds().then(|| types::type_def(file_no, item));
            if let Some(markers::CrdMarkers {
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
                    .map(|m| Allow {
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
            } else if let Some(found) = kinds::kube_derive_kind(item) {
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
    let kind = markers::kind_name(r, name);
    let mut rust_path = module.to_vec();
    rust_path.push(name.to_string());
    Kind {
        group: r.group.value.clone(),
        version: r.version.value.clone(),
        plural: r
            .plural
            .as_ref()
            .map_or_else(|| crate::plural::default_plural(&kind), |p| p.value.clone()),
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

/// Types declared twice in one module. That compiles only when `#[cfg]`s pick one of them,
/// and operator-gen reads the sources without compiling them, so it cannot know which one
/// a build uses: the CRD would silently follow the last one it read.
fn declared_twice(file: &SourceFile, summary: &FileSummary) -> Vec<LocatedError> {
    let mut seen: HashMap<(&[String], &str), usize> = HashMap::new();
    let mut twice = Vec::new();
    for (no, (module, name)) in summary.decls.iter().enumerate() {
        if let Some(first) = seen.insert((module.as_slice(), name.as_str()), no) {
            twice.push((first, no));
        }
    }
    if twice.is_empty() {
        return Vec::new();
    }
    let items = crate::source::type_items(file);
    twice
        .into_iter()
        .map(|(first, second)| {
            let (module, name) = &summary.decls[second];
            let line = items[first].ident().span().start().line;
            let place = if module.is_empty() {
                "the crate root".to_string()
            } else {
                format!("module `{}`", module.join("::"))
            };
            LocatedError::of_span(
                file,
                items[second].ident().span(),
                format!(
                    "`{name}` is declared twice in {place} (also on line {line}); operator-gen reads every item whatever its #[cfg], so it cannot tell which one a build uses: give them different names, or keep one declaration and put the #[cfg] on its fields"
                ),
                Origin::Source,
            )
        })
        .collect()
}
