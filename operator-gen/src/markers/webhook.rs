//! `#[webhook(...)]`: one admission webhook the operator serves (`+kubebuilder:webhook`), and
//! `#[webhook_configuration(...)]`: the name of the configuration object that holds the
//! mutating or the validating ones (`+kubebuilder:webhookconfiguration`).
//!
//! Values are read as controller-gen reads them (`failure_policy = "fail"` is `Fail`, verbs
//! are upper-cased, `core` is the core group `""`), and everything the API server would
//! refuse in the configuration controller-gen writes is refused here, at the argument:
//! an unknown failure policy, verb or side-effect class, a name with fewer than three
//! segments, a path segment that is no DNS subdomain, a port out of range, and so on.

use proc_macro2::Span;

use super::args::{self, MetaSource, Spanned, parse_args};
use super::crd::{is_dns_label, is_dns_subdomain, is_dns1035_label};
use super::{WEBHOOK, WEBHOOK_CONFIGURATION};
use crate::diagnostics::Diagnostics;

/// Where the API server sends the reviews of one webhook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebhookTarget {
    /// A path on a Service of the cluster (the operator's `webhook-service` by default).
    Service {
        /// The Service's name.
        name: String,
        /// The Service's namespace.
        namespace: String,
        /// The path on the Service.
        path: String,
        /// Absent means the API's default, 443.
        port: Option<i32>,
    },
    /// A URL outside the cluster (`https://` only).
    Url(String),
}

/// One webhook, its values already in the form the API takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookMarker {
    /// Mutating (defaulting) or validating.
    pub mutating: bool,
    /// `Fail` or `Ignore`.
    pub failure_policy: String,
    /// `Exact` or `Equivalent`.
    pub match_policy: Option<String>,
    /// `None` or `NoneOnDryRun`.
    pub side_effects: String,
    /// How long the API server waits for an answer.
    pub timeout_seconds: Option<i32>,
    /// API groups, `""` for the core group.
    pub groups: Vec<String>,
    /// Resources, with subresources after a slash.
    pub resources: Vec<String>,
    /// `CREATE`, `UPDATE`, `DELETE`, `CONNECT` or `*`.
    pub operations: Vec<String>,
    /// API versions.
    pub versions: Vec<String>,
    /// The webhook's name, a DNS subdomain of three segments or more.
    pub name: String,
    /// Where the reviews go.
    pub target: WebhookTarget,
    /// The AdmissionReview versions the handler understands.
    pub admission_review_versions: Vec<String>,
    /// `Never` or `IfNeeded`; mutating webhooks only.
    pub reinvocation_policy: Option<String>,
}

/// `#[webhook_configuration(mutating = ..., name = "...")]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookConfigurationMarker {
    /// Mutating or validating configuration.
    pub mutating: bool,
    /// The configuration object's name; `None` keeps kubebuilder's default.
    pub name: Option<String>,
}

/// The Service kubebuilder's `config/webhook/service.yaml` declares.
pub const DEFAULT_SERVICE_NAME: &str = "webhook-service";
/// The namespace kubebuilder's kustomization replaces with the operator's own.
pub const DEFAULT_SERVICE_NAMESPACE: &str = "system";

/// The argument names, in the order of [`WEBHOOK_ARGS`].
const WEBHOOK_KEYS: [&str; WEBHOOK_ARGS.len()] = {
    let mut keys = [""; WEBHOOK_ARGS.len()];
    let mut i = 0;
    while i < keys.len() {
        keys[i] = WEBHOOK_ARGS[i].0;
        i += 1;
    }
    keys
};

/// Each argument of `#[webhook(...)]`: controller-gen's spelling, whether it is required and
/// what it means. The book's table and `--help` texts come from here.
pub const WEBHOOK_ARGS: &[(&str, &str, bool, &str)] = &[
    (
        "mutating",
        "mutating",
        true,
        "`true`: a mutating (defaulting) webhook; `false`: a validating one",
    ),
    (
        "failure_policy",
        "failurePolicy",
        true,
        "`Fail` or `Ignore` (any case): what the API server does when the webhook cannot be called",
    ),
    (
        "side_effects",
        "sideEffects",
        true,
        "`None` or `NoneOnDryRun` (any case); `Some` and `Unknown` are refused by admissionregistration/v1",
    ),
    (
        "groups",
        "groups",
        true,
        "API groups, `a;b`; `core` or `\"\"` is the core group, `*` all",
    ),
    (
        "resources",
        "resources",
        true,
        "resources, `a;b`, with `resource/subresource` and `*` as the API allows",
    ),
    (
        "verbs",
        "verbs",
        true,
        "operations: `create`, `update`, `delete`, `connect` or `*` (any case)",
    ),
    ("versions", "versions", true, "API versions, `v1;v2` or `*`"),
    (
        "name",
        "name",
        true,
        "the webhook's name, a DNS subdomain of at least three segments (`mmemcached-v1alpha1.kb.io`)",
    ),
    (
        "path",
        "path",
        false,
        "the path on the webhook Service; exactly one of `path` and `url`",
    ),
    (
        "url",
        "url",
        false,
        "an `https://` URL outside the cluster instead of a Service path",
    ),
    (
        "admission_review_versions",
        "admissionReviewVersions",
        true,
        "AdmissionReview versions the server understands, `v1` or `v1;v1beta1`",
    ),
    (
        "match_policy",
        "matchPolicy",
        false,
        "`Exact` or `Equivalent` (any case)",
    ),
    (
        "reinvocation_policy",
        "reinvocationPolicy",
        false,
        "`Never` or `IfNeeded` (any case); mutating webhooks only",
    ),
    (
        "timeout_seconds",
        "timeoutSeconds",
        false,
        "1 to 30; absent is the API's default, 10",
    ),
    (
        "service_name",
        "serviceName",
        false,
        "the Service of a `path` webhook (default `webhook-service`)",
    ),
    (
        "service_namespace",
        "serviceNamespace",
        false,
        "its namespace (default `system`, which kustomize replaces)",
    ),
    (
        "service_port",
        "servicePort",
        false,
        "its port, 1 to 65535 (absent is the API's default, 443)",
    ),
    (
        "webhook_versions",
        "webhookVersions",
        false,
        "admissionregistration versions to write; only `v1` exists",
    ),
];

const CONFIGURATION_KEYS: &[&str] = &["mutating", "name"];

/// The book's table of `#[webhook]` arguments, from [`WEBHOOK_ARGS`].
pub fn reference_markdown() -> String {
    let mut out =
        String::from("| Rust | controller-gen | required | what it means |\n|---|---|---|---|\n");
    for (rust, go, required, help) in WEBHOOK_ARGS {
        out.push_str(&format!(
            "| `{rust}` | `{go}` | {} | {} |\n",
            if *required { "yes" } else { "no" },
            help.replace('|', "\\|")
        ));
    }
    out
}

/// Reads `value` case-insensitively as one of `known` (returned in its canonical spelling),
/// or says what `what` may be.
fn one_of(
    value: &Spanned<String>,
    what: &str,
    known: &[&'static str],
) -> syn::Result<&'static str> {
    known
        .iter()
        .find(|k| k.eq_ignore_ascii_case(&value.value))
        .copied()
        .ok_or_else(|| {
            let shown: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
            let expected = match shown.as_slice() {
                [a, b] => format!("{a} or {b}"),
                _ => format!("one of {}", shown.join(", ")),
            };
            syn::Error::new(
                value.span,
                format!(
                    "unknown {what} {:?}: expected {expected} (in any case)",
                    value.value
                ),
            )
        })
}

/// The API server's rule for a list that may hold `*`: then nothing else.
fn wildcard_alone(list: &Spanned<Vec<String>>, what: &str) -> syn::Result<()> {
    if list.value.len() > 1 && list.value.iter().any(|v| v == "*") {
        return Err(syn::Error::new(
            list.span,
            format!("`*` among the {what} must stand alone: it already means all of them"),
        ));
    }
    Ok(())
}

/// The API server's rules for the resources of a webhook rule (`x`, `x/y`, `x/*`, `*/y`,
/// `*`, `*/*`), as its validation reads them.
fn check_resources(list: &Spanned<Vec<String>>) -> syn::Result<()> {
    let error = |message: String| Err(syn::Error::new(list.span, message));
    let values = &list.value;
    if values.len() > 1 && values.iter().any(|r| r == "*/*") {
        return error(
            "`*/*` among the resources must stand alone: it means every resource and subresource"
                .into(),
        );
    }
    if values.iter().any(|r| r == "*") && values.iter().any(|r| !r.contains('/') && r != "*") {
        return error(
            "`*` already means every resource: drop the other resources without a subresource"
                .into(),
        );
    }
    for (i, r) in values.iter().enumerate() {
        let Some((res, sub)) = r.split_once('/') else {
            continue;
        };
        if res.is_empty() || sub.is_empty() {
            return error(format!(
                "resource {r:?} needs a name on both sides of `/` (`deployments/status`)"
            ));
        }
        for other in &values[..i] {
            if let Some((o_res, o_sub)) = other.split_once('/') {
                if o_sub == "*" && o_res == res {
                    return error(format!("{other:?} already covers {r:?}"));
                }
                if o_res == "*" && o_sub == sub {
                    return error(format!("{other:?} already covers {r:?}"));
                }
            }
        }
    }
    Ok(())
}

/// The API server's check of a service path: `/`, or segments that are DNS subdomains.
fn path_problem(path: &str) -> Option<String> {
    if path.is_empty() || path == "/" {
        return None;
    }
    let Some(rest) = path.strip_prefix('/') else {
        return Some("must start with `/`".into());
    };
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    for (i, segment) in rest.split('/').enumerate() {
        if segment.is_empty() {
            return Some(format!("segment {i} is empty"));
        }
        if !is_dns_subdomain(segment) {
            return Some(format!(
                "segment {segment:?} is not a lowercase DNS subdomain (a-z, 0-9, '-' and '.'), as the API server requires of each path segment"
            ));
        }
    }
    None
}

/// The API server's check of a webhook URL.
fn url_problem(url: &str) -> Option<&'static str> {
    let Some(rest) = url.strip_prefix("https://") else {
        return Some("must start with `https://`: the API server calls webhooks over TLS only");
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.is_empty() {
        return Some("needs a host (`https://host[:port]/path`)");
    }
    if authority.contains('@') {
        return Some("must not hold user information");
    }
    if url.contains('#') {
        return Some("must not hold a fragment (`#...`)");
    }
    if url.contains('?') {
        return Some("must not hold query parameters (`?...`)");
    }
    if url.chars().any(char::is_whitespace) {
        return Some("must not hold spaces");
    }
    None
}

/// Whether `name` is what the API server takes as a webhook name: a DNS subdomain of at
/// least three segments.
pub fn webhook_name_problem(name: &str) -> Option<String> {
    if !is_dns_subdomain(name) {
        return Some(format!(
            "webhook name {name:?} must be a lowercase DNS subdomain (a-z, 0-9, '-' and '.', at most 253)"
        ));
    }
    if name.split('.').count() < 3 {
        return Some(format!(
            "webhook name {name:?} needs at least three dot-separated segments, such as \"mmemcached-v1alpha1.kb.io\" (the API server's rule)"
        ));
    }
    None
}

/// Reads a `#[webhook(...)]` marker; problems go to `diags`.
pub fn parse_webhook(
    source: MetaSource<'_>,
    diags: &mut Diagnostics,
) -> Option<Spanned<WebhookMarker>> {
    let mut mutating: Option<bool> = None;
    let mut failure_policy: Option<&'static str> = None;
    let mut side_effects: Option<&'static str> = None;
    let mut match_policy = None;
    let mut reinvocation: Option<Spanned<&'static str>> = None;
    let mut timeout = None;
    let mut groups: Option<Vec<String>> = None;
    let mut resources = None;
    let mut verbs = None;
    let mut versions = None;
    let mut name: Option<Spanned<String>> = None;
    let mut path: Option<Spanned<String>> = None;
    let mut url: Option<Spanned<String>> = None;
    let mut review_versions = None;
    let mut service_name = None;
    let mut service_namespace = None;
    let mut service_port = None;
    let mut service_span: Option<Span> = None;
    let clean = parse_args(source, WEBHOOK, &WEBHOOK_KEYS, diags, |key, meta| {
        match key {
            "mutating" => {
                let v = args::flag(meta)?;
                mutating = Some(v.value);
            }
            "failure_policy" => {
                failure_policy = Some(one_of(
                    &args::string(meta)?,
                    "failure policy",
                    &["Fail", "Ignore"],
                )?);
            }
            "side_effects" => {
                let v = args::string(meta)?;
                if ["some", "unknown"].contains(&v.value.to_ascii_lowercase().as_str()) {
                    return Err(syn::Error::new(
                        v.span,
                        format!(
                            "side effects {:?} are refused for admissionregistration.k8s.io/v1 webhooks (the API server would call them on dry runs); use `None`, or `NoneOnDryRun` when the webhook skips its side effects on dry-run requests",
                            v.value
                        ),
                    ));
                }
                side_effects = Some(one_of(&v, "side-effect class", &["None", "NoneOnDryRun"])?);
            }
            "match_policy" => {
                match_policy = Some(one_of(
                    &args::string(meta)?,
                    "match policy",
                    &["Exact", "Equivalent"],
                )?);
            }
            "reinvocation_policy" => {
                let v = args::string(meta)?;
                let policy = one_of(&v, "reinvocation policy", &["Never", "IfNeeded"])?;
                reinvocation = Some(Spanned::new(policy, v.span));
            }
            "timeout_seconds" => {
                let v = args::int32(meta)?;
                if !(1..=30).contains(&v.value) {
                    return Err(syn::Error::new(
                        v.span,
                        format!(
                            "timeout_seconds = {} is out of range: the API server takes 1 to 30 seconds",
                            v.value
                        ),
                    ));
                }
                timeout = Some(v.value);
            }
            "groups" => {
                let v = args::string_list(meta)?;
                // An explicit `groups = ""` is the core group.
                let list = if v.value.is_empty() {
                    vec![String::new()]
                } else {
                    v.value
                        .iter()
                        .map(|g| {
                            if g == "core" {
                                String::new()
                            } else {
                                g.clone()
                            }
                        })
                        .collect()
                };
                wildcard_alone(&Spanned::new(list.clone(), v.span), "groups")?;
                groups = Some(list);
            }
            "resources" => {
                let v = args::string_list(meta)?;
                if v.value.is_empty() {
                    return Err(syn::Error::new(
                        v.span,
                        "`resources` needs at least one resource, such as \"memcacheds\"",
                    ));
                }
                check_resources(&v)?;
                resources = Some(v.value);
            }
            "verbs" => {
                let v = args::string_list(meta)?;
                if v.value.is_empty() {
                    return Err(syn::Error::new(
                        v.span,
                        "`verbs` needs at least one of create, update, delete, connect or *",
                    ));
                }
                let mut ops = Vec::new();
                for verb in &v.value {
                    let op = one_of(
                        &Spanned::new(verb.clone(), v.span),
                        "webhook verb",
                        &["CREATE", "UPDATE", "DELETE", "CONNECT", "*"],
                    )?;
                    ops.push(op.to_string());
                }
                wildcard_alone(&Spanned::new(ops.clone(), v.span), "verbs")?;
                verbs = Some(ops);
            }
            "versions" => {
                let v = args::string_list(meta)?;
                if v.value.is_empty() {
                    return Err(syn::Error::new(
                        v.span,
                        "`versions` needs at least one API version, such as \"v1\"",
                    ));
                }
                wildcard_alone(&v, "versions")?;
                versions = Some(v.value);
            }
            "name" => {
                let v = args::string(meta)?;
                if let Some(problem) = webhook_name_problem(&v.value) {
                    return Err(syn::Error::new(v.span, problem));
                }
                name = Some(v);
            }
            "path" => {
                let v = args::string(meta)?;
                if let Some(problem) = path_problem(&v.value) {
                    return Err(syn::Error::new(
                        v.span,
                        format!("path {:?} {problem}", v.value),
                    ));
                }
                path = Some(v);
            }
            "url" => {
                let v = args::string(meta)?;
                if let Some(problem) = url_problem(&v.value) {
                    return Err(syn::Error::new(
                        v.span,
                        format!("url {:?} {problem}", v.value),
                    ));
                }
                url = Some(v);
            }
            "admission_review_versions" => {
                let v = args::string_list(meta)?;
                if v.value.is_empty() {
                    return Err(syn::Error::new(
                        v.span,
                        "`admission_review_versions` needs `v1` (or `v1;v1beta1`)",
                    ));
                }
                for (i, version) in v.value.iter().enumerate() {
                    if v.value[..i].contains(version) {
                        return Err(syn::Error::new(
                            v.span,
                            format!("AdmissionReview version {version:?} is listed twice"),
                        ));
                    }
                    if !is_dns1035_label(version) {
                        return Err(syn::Error::new(
                            v.span,
                            format!(
                                "AdmissionReview version {version:?} is not a version name (a DNS label such as `v1`)"
                            ),
                        ));
                    }
                }
                if !v.value.iter().any(|x| x == "v1" || x == "v1beta1") {
                    return Err(syn::Error::new(
                        v.span,
                        "`admission_review_versions` must include `v1` or `v1beta1`, the versions the API server sends",
                    ));
                }
                review_versions = Some(v.value);
            }
            "service_name" => {
                let v = args::string(meta)?;
                if !is_dns1035_label(&v.value) {
                    return Err(syn::Error::new(
                        v.span,
                        format!(
                            "service_name {:?} must be a Service name (a DNS-1035 label: a-z, 0-9 and '-', starting with a letter, at most 63)",
                            v.value
                        ),
                    ));
                }
                service_span.get_or_insert(v.span);
                service_name = Some(v.value);
            }
            "service_namespace" => {
                let v = args::string(meta)?;
                if !is_dns_label(&v.value) {
                    return Err(syn::Error::new(
                        v.span,
                        format!(
                            "service_namespace {:?} must be a namespace name (a lowercase DNS label)",
                            v.value
                        ),
                    ));
                }
                service_span.get_or_insert(v.span);
                service_namespace = Some(v.value);
            }
            "service_port" => {
                let v = args::int32(meta)?;
                if !(1..=65535).contains(&v.value) {
                    return Err(syn::Error::new(
                        v.span,
                        format!("service_port = {} is not a port (1 to 65535)", v.value),
                    ));
                }
                service_span.get_or_insert(v.span);
                service_port = Some(v.value);
            }
            "webhook_versions" => {
                let v = args::string_list(meta)?;
                if let Some(other) = v.value.iter().find(|x| *x != "v1") {
                    return Err(syn::Error::new(
                        v.span,
                        format!(
                            "webhook version {other:?} is not supported: only admissionregistration.k8s.io `v1` is written (v1beta1 was removed in Kubernetes 1.22)"
                        ),
                    ));
                }
            }
            _ => unreachable!(),
        }
        Ok(())
    });
    if !clean {
        return None;
    }
    let span = source.span();
    let mut missing = Vec::new();
    for (key, present) in [
        ("mutating", mutating.is_some()),
        ("failure_policy", failure_policy.is_some()),
        ("side_effects", side_effects.is_some()),
        ("groups", groups.is_some()),
        ("resources", resources.is_some()),
        ("verbs", verbs.is_some()),
        ("versions", versions.is_some()),
        ("name", name.is_some()),
        ("admission_review_versions", review_versions.is_some()),
    ] {
        if !present {
            missing.push(format!("`{key}`"));
        }
    }
    if !missing.is_empty() {
        diags.push(
            span,
            format!(
                "#[webhook(...)] needs {}; for instance: mutating = true, failure_policy = \"fail\", side_effects = \"None\", groups = \"cache.example.com\", resources = \"memcacheds\", verbs = \"create;update\", versions = \"v1alpha1\", name = \"mmemcached-v1alpha1.kb.io\", path = \"/mutate-cache-example-com-v1alpha1-memcached\", admission_review_versions = \"v1\"",
                missing.join(", ")
            ),
        );
        return None;
    }
    let mutating = mutating.unwrap_or_default();
    if let Some(r) = &reinvocation
        && !mutating
    {
        diags.push(
            r.span,
            "reinvocation_policy applies to mutating webhooks only; a validating webhook is never reinvoked",
        );
        return None;
    }
    let target = match (path, url) {
        (Some(path), None) => WebhookTarget::Service {
            name: service_name.unwrap_or_else(|| DEFAULT_SERVICE_NAME.into()),
            namespace: service_namespace.unwrap_or_else(|| DEFAULT_SERVICE_NAMESPACE.into()),
            path: path.value,
            port: service_port,
        },
        (None, Some(url)) => {
            if let Some(at) = service_span {
                diags.push(
                    at,
                    "service_name, service_namespace and service_port apply to `path` webhooks; a `url` webhook names its host and port in the URL",
                );
                return None;
            }
            WebhookTarget::Url(url.value)
        }
        (None, None) => {
            diags.push(
                span,
                "#[webhook(...)] needs `path = \"/...\"` (served behind the webhook Service) or `url = \"https://...\"`",
            );
            return None;
        }
        (Some(_), Some(url)) => {
            diags.push(
                url.span,
                "`path` and `url` cannot both be set: a webhook is called either through the Service at `path` or at `url`",
            );
            return None;
        }
    };
    let name = name?;
    Some(Spanned::new(
        WebhookMarker {
            mutating,
            failure_policy: failure_policy?.into(),
            match_policy: match_policy.map(String::from),
            side_effects: side_effects?.into(),
            timeout_seconds: timeout,
            groups: groups?,
            resources: resources?,
            operations: verbs?,
            versions: versions?,
            name: name.value,
            target,
            admission_review_versions: review_versions?,
            reinvocation_policy: reinvocation.map(|r| r.value.to_string()),
        },
        name.span,
    ))
}

/// Reads a `#[webhook_configuration(...)]` marker; problems go to `diags`.
pub fn parse_webhook_configuration(
    source: MetaSource<'_>,
    diags: &mut Diagnostics,
) -> Option<Spanned<WebhookConfigurationMarker>> {
    let mut mutating = None;
    let mut name = None;
    let clean = parse_args(
        source,
        WEBHOOK_CONFIGURATION,
        CONFIGURATION_KEYS,
        diags,
        |key, meta| {
            match key {
                "mutating" => mutating = Some(args::flag(meta)?.value),
                "name" => {
                    let v = args::string(meta)?;
                    if !is_dns_subdomain(&v.value) {
                        return Err(syn::Error::new(
                            v.span,
                            format!(
                                "configuration name {:?} must be an object name (a lowercase DNS subdomain)",
                                v.value
                            ),
                        ));
                    }
                    name = Some(v.value);
                }
                _ => unreachable!(),
            }
            Ok(())
        },
    );
    if !clean {
        return None;
    }
    let Some(mutating) = mutating else {
        diags.push(
            source.span(),
            "#[webhook_configuration(...)] needs `mutating = true` or `mutating = false`: which configuration it names",
        );
        return None;
    };
    Some(Spanned::new(
        WebhookConfigurationMarker { mutating, name },
        source.span(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &str) -> Result<WebhookMarker, Vec<String>> {
        let tokens: proc_macro2::TokenStream = args.parse().unwrap();
        let mut diags = Diagnostics::new();
        let parsed = parse_webhook(MetaSource::Tokens(&tokens, Span::call_site()), &mut diags);
        match parsed {
            Some(p) if diags.is_empty() => Ok(p.value),
            _ => Err(diags.into_vec().into_iter().map(|d| d.message).collect()),
        }
    }

    const BASE: &str = r#"failure_policy = "fail", side_effects = "None", groups = "cache.example.com", resources = "memcacheds", verbs = "create;update", versions = "v1alpha1", name = "mmemcached-v1alpha1.kb.io", admission_review_versions = "v1""#;

    #[test]
    fn values_are_read_as_controller_gen_reads_them() {
        let m = parse(&format!(
            r#"mutating = true, {BASE}, path = "/mutate-cache-example-com-v1alpha1-memcached", match_policy = "equivalent", reinvocation_policy = "ifneeded", timeout_seconds = 5"#
        ))
        .unwrap();
        assert_eq!(m.failure_policy, "Fail");
        assert_eq!(m.operations, ["CREATE", "UPDATE"]);
        assert_eq!(m.match_policy.as_deref(), Some("Equivalent"));
        assert_eq!(m.reinvocation_policy.as_deref(), Some("IfNeeded"));
        assert_eq!(
            m.target,
            WebhookTarget::Service {
                name: "webhook-service".into(),
                namespace: "system".into(),
                path: "/mutate-cache-example-com-v1alpha1-memcached".into(),
                port: None
            }
        );
        let core = parse(&format!(
            r#"mutating = false, {}, path = "/v""#,
            BASE.replace("cache.example.com", "core;apps")
        ))
        .unwrap();
        assert_eq!(core.groups, ["", "apps"]);
    }

    #[test]
    fn what_the_api_server_would_refuse_is_refused_here() {
        let cases = [
            (
                r#"path = "/p", failure_policy = "sometimes""#,
                "unknown failure policy",
            ),
            (
                r#"path = "/p", side_effects = "Some""#,
                "refused for admissionregistration",
            ),
            (
                r#"path = "/p", verbs = "create;patch""#,
                "unknown webhook verb \"patch\"",
            ),
            (r#"path = "/p", verbs = "*;create""#, "must stand alone"),
            (
                r#"path = "/p", name = "short.io""#,
                "three dot-separated segments",
            ),
            (r#"path = "/Mutate_x""#, "not a lowercase DNS subdomain"),
            (r#"url = "http://h/x""#, "https://"),
            (r#"path = "/p", url = "https://h/x""#, "cannot both be set"),
            (r#"path = "/p", timeout_seconds = 31"#, "1 to 30"),
            (r#"path = "/p", service_port = 0"#, "not a port"),
            (
                r#"url = "https://h/x", service_port = 8443"#,
                "apply to `path` webhooks",
            ),
            (
                r#"path = "/p", webhook_versions = "v1beta1""#,
                "not supported",
            ),
            (
                r#"path = "/p", admission_review_versions = "v2""#,
                "must include `v1`",
            ),
            (r#"path = "/p", resources = "*;pods""#, "`*` already means"),
            (
                r#"path = "/p", resources = "pods/*;pods/status""#,
                "already covers",
            ),
            (
                r#"path = "/p", match_policy = "loose""#,
                "unknown match policy",
            ),
        ];
        for (change, expected) in cases {
            // Later arguments of the same name replace BASE's: put the change first and
            // drop BASE's argument of that name.
            let key = change.split(" =").next().unwrap();
            let base: Vec<&str> = BASE
                .split(", ")
                .filter(|arg| {
                    let k = arg.split(" =").next().unwrap();
                    !change.contains(&format!("{k} ="))
                })
                .collect();
            let args = format!("mutating = true, {change}, {}", base.join(", "));
            let errors = parse(&args).expect_err(&args);
            assert!(
                errors.iter().any(|e| e.contains(expected)),
                "{key}: {args}\n{errors:?} should mention {expected:?}"
            );
        }
        let errors = parse(&format!(
            r#"mutating = false, {BASE}, path = "/p", reinvocation_policy = "Never""#
        ))
        .unwrap_err();
        assert!(errors[0].contains("mutating webhooks only"), "{errors:?}");
        let errors = parse(r#"mutating = true, path = "/p""#).unwrap_err();
        assert!(errors[0].contains("`failure_policy`"), "{errors:?}");
        assert!(
            errors[0].contains("`admission_review_versions`"),
            "{errors:?}"
        );
    }
}
