//! The names a scaffold is made of, checked before anything is written: the project, the API
//! group, version and kind, and the Rust and file names derived from them.

use anyhow::{Result, bail};
use operator_gen::internals::markers::is_dns_label;
use operator_xtask::project::{is_kind, is_version};

/// Rust's keywords (strict and reserved): no module may be named after one.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Names the scaffold's own files import: a kind of one of these names would clash with them.
const TAKEN_KINDS: &[&str] = &[
    "Self",
    "Action",
    "AdmissionContext",
    "Api",
    "Arc",
    "BoxFuture",
    "Client",
    "Condition",
    "Context",
    "Controller",
    "Conversion",
    "CustomResource",
    "Defaulter",
    "Deserialize",
    "Duration",
    "Error",
    "GroupVersionKind",
    "GroupVersionResource",
    "Instant",
    "Metrics",
    "ObjectMeta",
    "Operation",
    "Outcome",
    "Patch",
    "PatchParams",
    "Runtime",
    "Schema",
    "Serialize",
    "Time",
    "Timestamp",
    "Validator",
    "Webhooks",
];

/// Package names the scaffold's workspace already uses.
const TAKEN_PACKAGES: &[&str] = &[
    "xtask",
    "xtask-cluster",
    "config",
    "target",
    "operator-derive",
    "operator-runtime",
    "operator-xtask",
    "operator-xtask-cluster",
    "operator-gen",
    "envtest",
    "kube",
    "k8s-openapi",
    "serde",
    "serde_json",
    "tokio",
    "tokio-util",
    "futures",
    "clap",
    "anyhow",
    "thiserror",
    "tracing",
    "test",
    "core",
    "std",
    "alloc",
    "proc-macro",
    "proc_macro",
];

/// A project (and its operator crate): a DNS label that is also a crate name.
pub fn check_project_name(name: &str) -> Result<()> {
    if !is_dns_label(name) {
        bail!(
            "project name {name:?} is not a DNS label (lower-case letters, digits and '-', at \
             most 63, starting and ending with a letter or digit): it names the Lease, the \
             namespace and the roles"
        );
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        bail!("project name {name:?} starts with a digit, which a Rust crate name cannot");
    }
    if TAKEN_PACKAGES.contains(&name) {
        bail!("project name {name:?} is the name of a package the project depends on or has");
    }
    Ok(())
}

/// The project file's rule (`operator_xtask::project::check_domain`): one for both.
pub fn check_domain(domain: &str) -> Result<()> {
    operator_xtask::project::check_domain(domain)
        .map_err(|problem| anyhow::anyhow!("--domain: {problem}; every API group ends with it"))
}

/// One kind of one version of one group, with every name derived from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gvk {
    /// The group without the domain (`cache`).
    pub group: String,
    pub version: String,
    pub kind: String,
    /// `cache.example.com`.
    pub api_group: String,
    /// `memcacheds`.
    pub plural: String,
    /// `memcached`: roles, samples, the controller's name.
    pub kind_lower: String,
    /// `http_route` for `HTTPRoute`: the module of the types and the controller.
    pub kind_snake: String,
    /// The group's Rust module (`-` becomes `_`).
    pub group_mod: String,
}

impl Gvk {
    /// Checks the names (the API server's rules and Rust's) and derives the rest.
    pub fn new(group: &str, version: &str, kind: &str, domain: &str) -> Result<Gvk> {
        let api_group = operator_xtask::project::api_group(group, domain)
            .map_err(|problem| anyhow::anyhow!("--{problem}"))?;
        if !is_version(version) {
            bail!(
                "--version {version:?} is not a Kubernetes API version (v1, v1alpha1, v2beta3, \
                 ...)"
            );
        }
        if !is_kind(kind) {
            bail!(
                "--kind {kind:?} is not an UpperCamelCase name of ASCII letters and digits \
                 (Memcached, CronJob, ...)"
            );
        }
        if TAKEN_KINDS.contains(&kind) {
            bail!(
                "--kind {kind:?} would clash with a name the scaffolded files import; choose \
                 another"
            );
        }
        let plural = operator_gen::default_plural(kind);
        if plural.len() > 63 {
            bail!("--kind {kind:?}: its plural {plural:?} is longer than 63 characters");
        }
        Ok(Gvk {
            group: group.to_string(),
            version: version.to_string(),
            kind: kind.to_string(),
            plural,
            kind_lower: kind.to_ascii_lowercase(),
            kind_snake: module_name(&snake_case(kind)),
            group_mod: module_name(&group.replace('-', "_")),
            api_group,
        })
    }
}

/// `HTTPRoute` → `http_route`, `CronJob` → `cron_job`, `V2Thing` → `v2_thing`.
pub fn snake_case(camel: &str) -> String {
    let chars: Vec<char> = camel.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev_lower = i > 0 && (chars[i - 1].is_ascii_lowercase());
            let prev_digit = i > 0 && chars[i - 1].is_ascii_digit();
            let next_lower = chars.get(i + 1).is_some_and(char::is_ascii_lowercase);
            let prev_upper = i > 0 && chars[i - 1].is_ascii_uppercase();
            if i > 0 && (prev_lower || prev_digit || (prev_upper && next_lower)) {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A module name for `name`: itself, unless Rust reserves it or it starts with a digit.
fn module_name(name: &str) -> String {
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("g{name}")
    } else if KEYWORDS.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_splits_words_and_acronyms() {
        assert_eq!(snake_case("Memcached"), "memcached");
        assert_eq!(snake_case("CronJob"), "cron_job");
        assert_eq!(snake_case("HTTPRoute"), "http_route");
        assert_eq!(snake_case("IPAddressPool"), "ip_address_pool");
        assert_eq!(snake_case("V2Thing"), "v2_thing");
        assert_eq!(snake_case("Thing2B"), "thing2_b");
    }

    #[test]
    fn names_are_derived_and_made_valid_rust() {
        let gvk = Gvk::new("web-apps", "v1beta1", "Type", "example.com").unwrap();
        assert_eq!(gvk.api_group, "web-apps.example.com");
        assert_eq!(gvk.plural, "types");
        assert_eq!(gvk.kind_snake, "type_");
        assert_eq!(gvk.group_mod, "web_apps");
        assert_eq!(
            Gvk::new("3d", "v1", "Policy", "example.com")
                .unwrap()
                .group_mod,
            "g3d"
        );
        // The plural is controller-gen's, as operator-gen and the derive give it.
        let gvk = Gvk::new("zoo", "v1", "Goose", "example.com").unwrap();
        assert_eq!(gvk.plural, "geese");
    }

    #[test]
    fn invalid_names_are_refused_with_what_is_wrong() {
        let err =
            |g: &str, v: &str, k: &str| Gvk::new(g, v, k, "example.com").unwrap_err().to_string();
        assert!(err("Cache", "v1", "Memcached").contains("--group \"Cache\""));
        assert!(err("cache.io", "v1", "Memcached").contains("not a DNS label"));
        assert!(err("cache", "1", "Memcached").contains("--version \"1\""));
        assert!(err("cache", "v1alpha", "Memcached").contains("not a Kubernetes API version"));
        assert!(err("cache", "v1", "memcached").contains("UpperCamelCase"));
        assert!(err("cache", "v1", "Mem_cached").contains("UpperCamelCase"));
        assert!(err("cache", "v1", "Error").contains("clash"));
        assert!(check_project_name("My-Operator").is_err());
        assert!(check_project_name("9lives").is_err());
        assert!(check_project_name("xtask").is_err());
        assert!(check_project_name("guestbook-operator").is_ok());
        // One rule with the project file: a one-label domain is fine (kube-rs's `kube.rs`).
        assert!(check_domain("rs").is_ok());
        assert_eq!(
            Gvk::new("kube", "v1", "Document", "rs").unwrap().api_group,
            "kube.rs"
        );
        assert!(check_domain("Example.com").is_err());
        assert!(check_domain("a..b").is_err());
        assert!(check_domain("my.domain").is_ok());
    }
}
