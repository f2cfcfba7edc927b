//! `#[rbac(groups = "...", resources = "...", verbs = "...", ...)]`: one permission the
//! operator needs (`+kubebuilder:rbac`). Lists use kubebuilder's `a;b;c` spelling.

use super::RBAC;
use super::args::{self, MetaSource, Spanned, parse_args};
use crate::diagnostics::Diagnostics;

/// The verbs the Kubernetes API server and its built-in authorizers know.
pub const KNOWN_VERBS: &[&str] = &[
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
    "use",
    "bind",
    "escalate",
    "impersonate",
    "approve",
    "sign",
    "attest",
    "*",
];

/// `#[rbac(groups = "...", resources = "...", verbs = "...", ...)]` (`+kubebuilder:rbac`): one
/// rule of the operator's role.
#[derive(Debug, Clone)]
pub struct RbacMarker {
    /// API groups (`core` or `""` for the core group).
    pub groups: Vec<String>,
    /// Resources, with subresources after a slash.
    pub resources: Vec<String>,
    /// Only these objects, by name.
    pub resource_names: Vec<String>,
    /// The verbs.
    pub verbs: Vec<String>,
    /// Non-resource URLs (`/metrics`), for the ClusterRole.
    pub urls: Vec<String>,
    /// A namespace makes the rule part of a `Role` in that namespace instead of the `ClusterRole`.
    pub namespace: Option<String>,
    /// Overrides the generator's role name for this rule.
    pub role_name: Option<String>,
}

const RBAC_KEYS: &[&str] = &[
    "groups",
    "resources",
    "resource_names",
    "verbs",
    "urls",
    "namespace",
    "role_name",
];

/// Reads an `#[rbac(...)]` marker; problems go to `diags`.
pub fn parse_rbac(source: MetaSource<'_>, diags: &mut Diagnostics) -> Option<RbacMarker> {
    let mut groups: Option<Spanned<Vec<String>>> = None;
    let mut resources: Option<Spanned<Vec<String>>> = None;
    let mut resource_names = Vec::new();
    let mut verbs: Option<Spanned<Vec<String>>> = None;
    let mut urls: Option<Spanned<Vec<String>>> = None;
    let mut namespace: Option<Spanned<String>> = None;
    let mut role_name = None;
    let clean = parse_args(source, RBAC, RBAC_KEYS, diags, |key, meta| {
        match key {
            "groups" => groups = Some(args::string_list(meta)?),
            "resources" => resources = Some(args::string_list(meta)?),
            "resource_names" => resource_names = args::string_list(meta)?.value,
            "verbs" => {
                let v = args::string_list(meta)?;
                for verb in &v.value {
                    if !KNOWN_VERBS.contains(&verb.as_str()) {
                        let hint = KNOWN_VERBS
                            .iter()
                            .map(|k| (strsim::jaro_winkler(verb, k), *k))
                            .filter(|(s, _)| *s > 0.8)
                            .max_by(|a, b| a.0.total_cmp(&b.0))
                            .map(|(_, k)| format!("; did you mean `{k}`?"))
                            .unwrap_or_default();
                        return Err(syn::Error::new(
                            v.span,
                            format!(
                                "unknown RBAC verb `{verb}`{hint} (known verbs: {})",
                                KNOWN_VERBS.join(", ")
                            ),
                        ));
                    }
                }
                verbs = Some(v);
            }
            "urls" => urls = Some(args::string_list(meta)?),
            "namespace" => {
                let ns = args::string(meta)?;
                if !super::crd::is_dns_label(&ns.value) {
                    return Err(syn::Error::new(
                        ns.span,
                        format!(
                            "namespace {:?} must be a lowercase DNS label (a-z, 0-9 and '-', at most 63), as Kubernetes namespaces are",
                            ns.value
                        ),
                    ));
                }
                namespace = Some(ns);
            }
            "role_name" => role_name = Some(args::string(meta)?.value),
            _ => unreachable!(),
        }
        Ok(())
    });
    if !clean {
        return None;
    }
    let span = source.span();
    let Some(verbs) = verbs.filter(|v| !v.value.is_empty()) else {
        diags.push(
            span,
            "#[rbac(...)] needs `verbs = \"...\"`, such as verbs = \"get;list;watch\"",
        );
        return None;
    };
    let has_resources = resources.as_ref().is_some_and(|r| !r.value.is_empty());
    let has_urls = urls.as_ref().is_some_and(|u| !u.value.is_empty());
    match (has_resources, has_urls) {
        (false, false) => {
            diags.push(
                span,
                "#[rbac(...)] needs `resources = \"...\"` (with `groups`) or `urls = \"...\"`",
            );
            return None;
        }
        (true, true) => {
            diags.push(
                urls.as_ref().map_or(span, |u| u.span),
                "`urls` (non-resource URLs) cannot be combined with `resources` in one rule",
            );
            return None;
        }
        (true, false) if groups.is_none() => {
            diags.push(span, "#[rbac(resources = ...)] needs `groups = \"...\"` (`\"\"` or \"core\" for the core group)");
            return None;
        }
        (false, true) => {
            if let Some(ns) = &namespace {
                diags.push(
                    ns.span,
                    "non-resource `urls` can only be granted cluster-wide, not in a namespace",
                );
                return None;
            }
        }
        _ => {}
    }
    Some(RbacMarker {
        // An explicit `groups = ""` means the core group; keep it as one empty entry.
        groups: groups
            .map(|g| {
                if g.value.is_empty() {
                    vec![String::new()]
                } else {
                    g.value
                }
            })
            .unwrap_or_default(),
        resources: resources.map(|r| r.value).unwrap_or_default(),
        resource_names,
        verbs: verbs.value,
        urls: urls.map(|u| u.value).unwrap_or_default(),
        namespace: namespace.map(|n| n.value),
        role_name,
    })
}
