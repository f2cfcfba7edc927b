//! CRD-level markers, written on the root kind: `#[resource]`, `#[subresource]`,
//! `#[printcolumn]`.

use super::args::{self, MetaSource, Spanned, parse_args, require};
use super::compat::{CompatMarker, parse_compat};
use super::{COMPAT, PRINTCOLUMN, RESOURCE, SUBRESOURCE, marker_name};
use crate::diagnostics::Diagnostics;
use proc_macro2::Span;

/// Whether objects of the kind live in a namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// Objects live in a namespace.
    #[default]
    Namespaced,
    /// Objects are cluster-wide.
    Cluster,
}

impl Scope {
    /// The name the CRD uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Namespaced => "Namespaced",
            Scope::Cluster => "Cluster",
        }
    }
}

/// `#[resource(group = "...", version = "...", kind = "...", namespaced, plural = "...", ...)]`:
/// the group/version/kind and the names of a custom resource
/// (`+groupName`, `+kubebuilder:resource`).
#[derive(Debug, Clone)]
pub struct ResourceMarker<S = Span> {
    /// The API group.
    pub group: Spanned<String, S>,
    /// The version (`v1`, `v1alpha1`, ...).
    pub version: Spanned<String, S>,
    /// `None` means the struct's own name.
    pub kind: Option<Spanned<String, S>>,
    /// Namespaced or cluster-wide.
    pub scope: Scope,
    /// `plural`; `None` derives it from the kind as controller-gen does.
    pub plural: Option<Spanned<String, S>>,
    /// `singular`; `None` is the kind in lower case.
    pub singular: Option<Spanned<String, S>>,
    /// `shortnames`.
    pub shortnames: Vec<String>,
    /// `categories`.
    pub categories: Vec<String>,
    /// `storage`: this version is the storage version (`+kubebuilder:storageversion`).
    pub storage: Option<S>,
    /// `served = false` (`+kubebuilder:unservedversion`).
    pub served: bool,
    /// `deprecated` or `deprecated = "warning"` (`+kubebuilder:deprecatedversion`).
    pub deprecated: Option<Option<String>>,
    /// `skip`: leave this version out of the CRD (`+kubebuilder:skipversion`).
    pub skip: Option<S>,
    /// `selectable_fields = [".spec.x"]` (`+kubebuilder:selectablefield`), per version,
    /// each with where it is written.
    pub selectable_fields: Vec<Spanned<String, S>>,
    /// `annotations = ["k=v"]`, `labels = ["k=v"]` on the CRD object (`+kubebuilder:metadata`).
    pub annotations: Vec<(String, String)>,
    /// The labels of the CRD object.
    pub labels: Vec<(String, String)>,
    /// `crates(kube = ::my::kube, ...)`: where the code the derive writes finds its crates,
    /// for crates that re-export them (kube-derive's `crates(...)`). Names from
    /// [`CRATE_PATHS`], paths as written; the generator ignores them.
    pub crates: Vec<(String, String)>,
    /// Where the marker is.
    pub span: S,
}

impl<S> ResourceMarker<S> {
    /// The same marker, placed by `f`.
    pub fn map_spans<S2>(self, f: &mut impl FnMut(S) -> S2) -> ResourceMarker<S2> {
        ResourceMarker {
            group: self.group.map_span(f),
            version: self.version.map_span(f),
            kind: self.kind.map(|k| k.map_span(f)),
            scope: self.scope,
            plural: self.plural.map(|p| p.map_span(f)),
            singular: self.singular.map(|s| s.map_span(f)),
            shortnames: self.shortnames,
            categories: self.categories,
            storage: self.storage.map(&mut *f),
            served: self.served,
            deprecated: self.deprecated,
            skip: self.skip.map(&mut *f),
            selectable_fields: self
                .selectable_fields
                .into_iter()
                .map(|p| p.map_span(f))
                .collect(),
            annotations: self.annotations,
            labels: self.labels,
            crates: self.crates,
            span: f(self.span),
        }
    }
}

/// The crates `#[resource(crates(...))]` can relocate.
pub const CRATE_PATHS: &[&str] = &["kube", "k8s_openapi", "serde", "serde_json"];

const RESOURCE_KEYS: &[&str] = &[
    "group",
    "version",
    "kind",
    "namespaced",
    "scope",
    "plural",
    "singular",
    "shortnames",
    "categories",
    "storage",
    "served",
    "deprecated",
    "skip",
    "selectable_fields",
    "annotations",
    "labels",
    "crates",
];

/// Reads a `#[resource(...)]` marker; problems go to `diags`, `None` when it cannot be used.
pub fn parse_resource(source: MetaSource<'_>, diags: &mut Diagnostics) -> Option<ResourceMarker> {
    let (mut group, mut version, mut kind, mut plural, mut singular) =
        (None, None, None, None, None);
    let mut namespaced: Option<Spanned<bool>> = None;
    let mut scope: Option<Spanned<String>> = None;
    let source_span = source.span();
    let (mut shortnames, mut categories) = ((source_span, Vec::new()), (source_span, Vec::new()));
    let (mut storage, mut served, mut deprecated, mut skip) = (None, true, None, None);
    let (mut selectable_fields, mut annotations, mut labels) = (Vec::new(), Vec::new(), Vec::new());
    let mut crates = Vec::new();
    let mut checks = Diagnostics::new();
    let clean = parse_args(source, RESOURCE, RESOURCE_KEYS, diags, |key, meta| {
        match key {
            "group" => group = Some(args::string(meta)?),
            "version" => version = Some(args::string(meta)?),
            "kind" => kind = Some(args::string(meta)?),
            "namespaced" => namespaced = Some(args::flag(meta)?),
            "scope" => scope = Some(args::string(meta)?),
            "plural" => plural = Some(args::string(meta)?),
            "singular" => singular = Some(args::string(meta)?),
            "shortnames" => {
                let list = args::string_list(meta)?;
                shortnames = (list.span, list.value);
            }
            "categories" => {
                let list = args::string_list(meta)?;
                categories = (list.span, list.value);
            }
            "storage" => {
                if args::flag(meta)?.value {
                    storage = Some(syn::spanned::Spanned::span(&meta.path));
                }
            }
            "served" => served = args::flag(meta)?.value,
            "deprecated" => {
                if meta.input.peek(syn::Token![=]) && !meta.input.peek2(syn::LitBool) {
                    deprecated = Some(Some(args::string(meta)?.value));
                } else if args::flag(meta)?.value {
                    deprecated = Some(None);
                }
            }
            "skip" => {
                if args::flag(meta)?.value {
                    skip = Some(syn::spanned::Spanned::span(&meta.path));
                }
            }
            "selectable_fields" => {
                let (paths, _) = args::spanned_string_list(meta)?;
                if let Some(bad) = paths.iter().find(|p| !p.value.starts_with('.')) {
                    return Err(syn::Error::new(
                        bad.span,
                        format!(
                            "selectable field `{}` is a JSON path starting with `.`, such as \".spec.color\"",
                            bad.value
                        ),
                    ));
                }
                selectable_fields = paths;
            }
            "annotations" | "labels" => {
                let list = args::string_list(meta)?;
                let mut pairs = Vec::new();
                for item in &list.value {
                    let Some((k, v)) = item.split_once('=') else {
                        return Err(syn::Error::new(
                            list.span,
                            format!("`{item}` is not in `key=value` form"),
                        ));
                    };
                    pairs.push((k.to_string(), v.to_string()));
                }
                if key == "annotations" {
                    annotations = pairs;
                } else {
                    labels = pairs;
                }
            }
            "crates" => {
                args::group(meta, "resource(crates", CRATE_PATHS, |name, meta| {
                    let path: syn::Path = meta.value()?.parse()?;
                    crates.push((
                        name.to_string(),
                        quote::ToTokens::to_token_stream(&path).to_string(),
                    ));
                    Ok(())
                })?;
            }
            _ => unreachable!("key {key} is in RESOURCE_KEYS"),
        }
        Ok(())
    });
    if !clean {
        return None;
    }
    let group = require(group, source, RESOURCE, "group", diags)?;
    let version = require(version, source, RESOURCE, "version", diags)?;

    let scope = match (scope, namespaced) {
        (Some(s), ns) => {
            let parsed = match s.value.as_str() {
                "Namespaced" => Scope::Namespaced,
                "Cluster" => Scope::Cluster,
                other => {
                    checks.push(
                        s.span,
                        format!("unknown scope `{other}`; expected \"Namespaced\" or \"Cluster\""),
                    );
                    Scope::Namespaced
                }
            };
            if let Some(ns) = ns
                && ns.value != (parsed == Scope::Namespaced)
            {
                checks.push(ns.span, "`namespaced` contradicts `scope`");
            }
            parsed
        }
        (None, Some(ns)) if !ns.value => Scope::Cluster,
        _ => Scope::Namespaced,
    };

    if group.value.is_empty() {
        // controller-gen writes such a kind as `<plural>.` into `_<plural>.yaml`; the API
        // server refuses that CRD, so say it here.
        checks.push(
            group.span,
            "group must not be empty: the empty group is Kubernetes' core group, and a custom resource needs a group with at least one dot, such as \"cache.example.com\"",
        );
    } else if !is_dns_subdomain(&group.value) {
        checks.push(
            group.span,
            format!(
                "group `{}` is not a lowercase DNS subdomain such as \"cache.example.com\"",
                group.value
            ),
        );
    } else if !group.value.contains('.') {
        checks.push(
            group.span,
            format!(
                "group `{}` needs at least one dot (the API server requires a domain, such as \"{}.example.com\")",
                group.value, group.value
            ),
        );
    }
    if !is_dns_label(&version.value) || !version.value.starts_with(|c: char| c.is_ascii_lowercase())
    {
        checks.push(
            version.span,
            format!(
                "version `{}` must be a lowercase DNS label starting with a letter, such as \"v1alpha1\"",
                version.value
            ),
        );
    }
    if let Some(kind) = &kind
        && let Some(problem) = kind_name_problem(&kind.value)
    {
        checks.push(kind.span, problem);
    }
    for name in [&plural, &singular].into_iter().flatten() {
        if !is_dns1035_label(&name.value) {
            checks.push(
                name.span,
                format!(
                    "`{}` must be a lowercase DNS label starting with a letter (a-z, 0-9 and '-', at most 63)",
                    name.value
                ),
            );
        }
    }
    for (what, list) in [("short name", &shortnames), ("category", &categories)] {
        let (span, names) = list;
        for name in names.iter().filter(|n| !is_dns1035_label(n)) {
            checks.push(
                *span,
                format!(
                    "{what} {name:?} must be a lowercase DNS label starting with a letter (a-z, 0-9 and '-', at most 63), as the API server requires"
                ),
            );
        }
    }
    let (shortnames, categories) = (shortnames.1, categories.1);
    diags.append(checks);
    Some(ResourceMarker {
        group,
        version,
        kind,
        scope,
        plural,
        singular,
        shortnames,
        categories,
        storage,
        served,
        deprecated,
        skip,
        selectable_fields,
        annotations,
        labels,
        crates,
        span: source.span(),
    })
}

/// What is wrong with a print column's JSON path (the API server compiles it when it
/// serves the column, and a path that does not compile breaks the listing): brackets and
/// parentheses must pair up, quotes must close, a step may not be empty.
pub fn json_path_problem(path: &str) -> Option<String> {
    let mut open: Vec<char> = Vec::new();
    let mut quote: Option<char> = None;
    for c in path.chars() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '[' | '(' => open.push(c),
            ']' | ')' => {
                let want = if c == ']' { '[' } else { '(' };
                if open.pop() != Some(want) {
                    return Some(format!(
                        "json_path {path:?} closes a `{c}` that is not open"
                    ));
                }
            }
            _ => {}
        }
    }
    if let Some(q) = quote {
        return Some(format!("json_path {path:?} leaves a {q} quote open"));
    }
    if let Some(c) = open.last() {
        return Some(format!("json_path {path:?} leaves a `{c}` open"));
    }
    if path.len() > 1 && (path.ends_with('.') || path.contains("...")) {
        return Some(format!("json_path {path:?} has an empty step"));
    }
    None
}

/// RFC 1035 label, as the API server requires of plurals, singulars, short names and
/// categories (and of a kind, lowercased): `[a-z]([-a-z0-9]*[a-z0-9])?`, at most 63
/// characters.
pub fn is_dns1035_label(s: &str) -> bool {
    is_dns_label(s) && s.starts_with(|c: char| c.is_ascii_lowercase())
}

/// Why `kind` cannot name a kind, if it cannot: the API server takes a kind whose lowercase
/// form is an RFC 1035 label (ASCII letters, digits and '-'), and the derives need it to
/// start with an upper-case letter, as Kubernetes kinds do.
pub fn kind_name_problem(kind: &str) -> Option<String> {
    if !kind.starts_with(|c: char| c.is_ascii_uppercase()) {
        return Some(format!(
            "kind `{kind}` must be CamelCase, starting with an upper-case ASCII letter"
        ));
    }
    if !is_dns1035_label(&kind.to_ascii_lowercase()) || !kind.is_ascii() {
        return Some(format!(
            "kind `{kind}` may have only ASCII letters and digits (and '-' inside), at most 63 of them: the API server refuses the CRD otherwise"
        ));
    }
    None
}

/// Lowercase RFC 1123 label: `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, at most 63 characters.
pub fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

/// Lowercase RFC 1123 subdomain: dot-separated labels, at most 253 characters.
pub fn is_dns_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(is_dns_label)
}

/// `#[subresource(status)]` and/or `#[subresource(scale(spec_path = ..., status_path = ..., selector_path = ...))]`.
#[derive(Debug, Clone)]
pub struct SubresourceMarker<S = Span> {
    /// `status`: where it was asked for.
    pub status: Option<S>,
    /// `scale(...)`.
    pub scale: Option<ScaleMarker<S>>,
}

impl<S> Default for SubresourceMarker<S> {
    fn default() -> Self {
        Self {
            status: None,
            scale: None,
        }
    }
}

impl<S> SubresourceMarker<S> {
    /// The same marker, placed by `f`.
    pub fn map_spans<S2>(self, f: &mut impl FnMut(S) -> S2) -> SubresourceMarker<S2> {
        SubresourceMarker {
            status: self.status.map(&mut *f),
            scale: self.scale.map(|s| ScaleMarker {
                spec_path: s.spec_path.map_span(f),
                status_path: s.status_path.map_span(f),
                selector_path: s.selector_path.map(|p| p.map_span(f)),
                span: f(s.span),
            }),
        }
    }
}

/// `scale(spec_path = ..., status_path = ..., selector_path = ...)` of `#[subresource]`.
#[derive(Debug, Clone)]
pub struct ScaleMarker<S = Span> {
    /// Where the desired replicas are (`.spec.replicas`).
    pub spec_path: Spanned<String, S>,
    /// Where the observed replicas are (`.status.replicas`).
    pub status_path: Spanned<String, S>,
    /// Where the pods' selector is, as a string.
    pub selector_path: Option<Spanned<String, S>>,
    /// Where the marker is.
    pub span: S,
}

const SCALE_KEYS: &[&str] = &["spec_path", "status_path", "selector_path"];

/// Reads a `#[subresource(...)]` marker; problems go to `diags`.
pub fn parse_subresource(source: MetaSource<'_>, diags: &mut Diagnostics) -> SubresourceMarker {
    let mut marker = SubresourceMarker::default();
    let mut inner = Diagnostics::new();
    parse_args(
        source,
        SUBRESOURCE,
        &["status", "scale"],
        diags,
        |key, meta| {
            use syn::spanned::Spanned as _;
            match key {
                "status" => {
                    if meta.input.peek(syn::Token![=]) {
                        // Read the value, so the error is this one and not "expected `,`".
                        let value: syn::Expr = meta.value()?.parse()?;
                        return Err(syn::Error::new(
                            value.span(),
                            "`status` takes no value: write #[subresource(status)]",
                        ));
                    }
                    marker.status = Some(meta.path.span())
                }
                "scale" => {
                    let (mut spec, mut status, mut selector) = (None, None, None);
                    let span = meta.path.span();
                    args::nested(
                        meta,
                        "subresource(scale",
                        SCALE_KEYS,
                        &mut inner,
                        |key, meta| {
                            let value = args::string(meta)?;
                            match key {
                                "spec_path" => spec = Some(value),
                                "status_path" => status = Some(value),
                                _ => selector = Some(value),
                            }
                            Ok(())
                        },
                    )?;
                    let missing: Vec<&str> = [
                        ("spec_path", spec.is_none()),
                        ("status_path", status.is_none()),
                    ]
                    .into_iter()
                    .filter_map(|(k, missing)| missing.then_some(k))
                    .collect();
                    if !missing.is_empty() {
                        return Err(syn::Error::new(
                            span,
                            format!("scale(...) needs {}", missing.join(" and ")),
                        ));
                    }
                    // Every path checked, each mistake at its value.
                    let mut paths_ok = true;
                    for (path, into) in [
                        (&spec, Some(".spec.")),
                        (&status, Some(".status.")),
                        (&selector, None),
                    ] {
                        let Some(path) = path else { continue };
                        let message = if !path.value.starts_with('.') {
                            "a scale path is a JSON path starting with `.`, such as \".spec.replicas\""
                        } else if into.is_some_and(|prefix| !path.value.starts_with(prefix)) {
                            if into == Some(".spec.") {
                                "spec_path must point into .spec, such as \".spec.replicas\""
                            } else {
                                "status_path must point into .status, such as \".status.replicas\""
                            }
                        } else {
                            continue;
                        };
                        inner.push(path.span, message);
                        paths_ok = false;
                    }
                    if let (true, Some(spec_path), Some(status_path)) = (paths_ok, spec, status) {
                        marker.scale = Some(ScaleMarker {
                            spec_path,
                            status_path,
                            selector_path: selector,
                            span,
                        });
                    }
                }
                _ => unreachable!(),
            }
            Ok(())
        },
    );
    diags.append(inner);
    marker
}

/// The column types kubectl understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// `integer`
    Integer,
    /// `number`
    Number,
    /// `string`
    String,
    /// `boolean`
    Boolean,
    /// `date`, shown as an age.
    Date,
}

impl ColumnType {
    const ALL: &[(&str, ColumnType)] = &[
        ("integer", ColumnType::Integer),
        ("number", ColumnType::Number),
        ("string", ColumnType::String),
        ("boolean", ColumnType::Boolean),
        ("date", ColumnType::Date),
    ];

    /// The name the CRD uses.
    pub fn as_str(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, t)| *t == self)
            .map(|(s, _)| *s)
            .expect("every variant is listed")
    }
}

/// `#[printcolumn(name = "...", type = "...", json_path = "...", description, format, priority)]`
/// (`+kubebuilder:printcolumn`). Repeatable; columns keep their order.
#[derive(Debug, Clone)]
pub struct PrintColumnMarker<S = Span> {
    /// The column's header.
    pub name: String,
    /// How kubectl shows the value.
    pub type_: ColumnType,
    /// The value's JSON path.
    pub json_path: String,
    /// What the column shows.
    pub description: Option<String>,
    /// A format refining the type.
    pub format: Option<String>,
    /// 0 for the default columns; higher ones show with `-o wide`.
    pub priority: Option<i32>,
    /// Where its `json_path` is written.
    pub span: S,
}

impl<S> PrintColumnMarker<S> {
    /// The same marker, placed by `f`.
    pub fn map_spans<S2>(self, f: &mut impl FnMut(S) -> S2) -> PrintColumnMarker<S2> {
        PrintColumnMarker {
            name: self.name,
            type_: self.type_,
            json_path: self.json_path,
            description: self.description,
            format: self.format,
            priority: self.priority,
            span: f(self.span),
        }
    }
}

const PRINTCOLUMN_KEYS: &[&str] = &[
    "name",
    "type",
    "json_path",
    "description",
    "format",
    "priority",
];
const COLUMN_FORMATS: &[&str] = &[
    "int32",
    "int64",
    "float",
    "double",
    "byte",
    "date",
    "date-time",
    "password",
];

/// Reads a `#[printcolumn(...)]` marker; problems go to `diags`.
pub fn parse_printcolumn(
    source: MetaSource<'_>,
    diags: &mut Diagnostics,
) -> Option<PrintColumnMarker> {
    let (mut name, mut type_, mut json_path, mut description, mut format, mut priority) =
        (None, None, None, None, None, None);
    let clean = parse_args(source, PRINTCOLUMN, PRINTCOLUMN_KEYS, diags, |key, meta| {
        match key {
            "name" => {
                let n = args::string(meta)?;
                if n.value.trim().is_empty() {
                    return Err(syn::Error::new(
                        n.span,
                        "a print column needs a name (the API server refuses an empty one)",
                    ));
                }
                name = Some(n.value);
            }
            "type" => {
                let t = args::string(meta)?;
                type_ = Some(
                    ColumnType::ALL
                        .iter()
                        .find(|(s, _)| *s == t.value)
                        .map(|(_, c)| *c)
                        .ok_or_else(|| {
                            syn::Error::new(
                                t.span,
                                format!(
                                    "unknown column type `{}`; expected one of: integer, number, string, boolean, date",
                                    t.value
                                ),
                            )
                        })?,
                );
            }
            "json_path" => {
                let p = args::string(meta)?;
                if !p.value.starts_with('.') {
                    return Err(syn::Error::new(
                        p.span,
                        "json_path is a JSON path starting with `.`, such as \".spec.size\"",
                    ));
                }
                if let Some(problem) = json_path_problem(&p.value) {
                    return Err(syn::Error::new(p.span, problem));
                }
                json_path = Some(p);
            }
            "description" => description = Some(args::string(meta)?.value),
            "format" => {
                let f = args::string(meta)?;
                if !COLUMN_FORMATS.contains(&f.value.as_str()) {
                    return Err(syn::Error::new(
                        f.span,
                        format!(
                            "unknown column format `{}`; expected one of: {}",
                            f.value,
                            COLUMN_FORMATS.join(", ")
                        ),
                    ));
                }
                format = Some(f.value);
            }
            "priority" => priority = Some(args::int32(meta)?.value),
            _ => unreachable!(),
        }
        Ok(())
    });
    if !clean {
        return None;
    }
    let name = require(name, source, PRINTCOLUMN, "name", diags);
    let type_ = require(type_, source, PRINTCOLUMN, "type", diags);
    let json_path = require(json_path, source, PRINTCOLUMN, "json_path", diags);
    let json_path = json_path?;
    Some(PrintColumnMarker {
        name: name?,
        type_: type_?,
        json_path: json_path.value,
        span: json_path.span,
        description,
        format,
        priority,
    })
}

/// The CRD-level markers of a root kind, as [`crd_markers`] reads them.
#[derive(Debug, Clone)]
pub struct CrdMarkers<R = ResourceMarker> {
    /// The `#[resource]` marker.
    pub resource: R,
    /// The `#[subresource]` marker.
    pub subresources: SubresourceMarker,
    /// The `#[printcolumn]` markers, in order.
    pub printcolumns: Vec<PrintColumnMarker>,
    /// `#[compat(allow = ...)]`: changes the compatibility gate lets through.
    pub compat: Vec<CompatMarker>,
}

/// Reads the CRD-level markers of `attrs` (shared with operator-derive).
pub fn crd_markers(
    attrs: &[syn::Attribute],
    diags: &mut Diagnostics,
) -> CrdMarkers<Option<ResourceMarker>> {
    let mut resource = None;
    let mut subresources = SubresourceMarker::default();
    let mut printcolumns = Vec::new();
    let mut compat = Vec::new();
    for attr in attrs {
        match marker_name(attr) {
            Some(RESOURCE) => {
                if resource.is_some() {
                    // Reading it too would report what it lacks (a group) instead.
                    diags.push(
                        attr_span(attr),
                        "duplicate #[resource(...)]: a kind takes one; put all its arguments in the first",
                    );
                    continue;
                }
                resource = parse_resource(MetaSource::Attr(attr), diags);
            }
            Some(SUBRESOURCE) => {
                let s = parse_subresource(MetaSource::Attr(attr), diags);
                subresources.status = subresources.status.or(s.status);
                subresources.scale = subresources.scale.or(s.scale);
            }
            Some(PRINTCOLUMN) => {
                printcolumns.extend(parse_printcolumn(MetaSource::Attr(attr), diags))
            }
            Some(COMPAT) => compat.extend(parse_compat(MetaSource::Attr(attr), diags)),
            _ => {}
        }
    }
    CrdMarkers {
        resource,
        subresources,
        printcolumns,
        compat,
    }
}

fn attr_span(attr: &syn::Attribute) -> Span {
    use syn::spanned::Spanned;
    attr.span()
}

/// The kind a `#[resource]` marker on the type `name` declares.
pub fn kind_name<S>(resource: &ResourceMarker<S>, name: &str) -> String {
    resource
        .kind
        .as_ref()
        .map_or_else(|| name.to_string(), |k| k.value.clone())
}
