//! The project file, `PROJECT.toml` at the workspace root (kubebuilder keeps `PROJECT`): the
//! domain, the operator's crate and every resource with the files that hold its types and its
//! controller. `cargo xtask manifests` scans the crates it names and checks that each listed
//! kind is declared; `cargo xtask run` runs the operator it names. Nothing in xtask names a
//! crate of its own.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use operator_gen::internals::markers::{is_dns_label, is_dns_subdomain};
use serde::Deserialize;

/// The file's name, at the workspace root.
pub const FILE: &str = "PROJECT.toml";

/// The namespace a namespaced project's `#[rbac]` markers grant in: kustomize's
/// `config/default` rewrites it to the deployment's namespace, as it does for every object
/// under `config/` (the scaffold's leader-election marker names it too).
pub const MANAGER_NAMESPACE: &str = "system";

/// The only layout version so far.
const VERSION: u32 = 1;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Project {
    /// The layout version of this file (1).
    pub version: u32,
    /// Suffix of every API group (`cache` + `example.com` = `cache.example.com`).
    pub domain: String,
    pub project_name: String,
    /// The version of cargo-operator that scaffolded the project (kubebuilder's
    /// `cliVersion`), which `cargo operator update` replays from.
    #[serde(default)]
    pub cli_version: Option<String>,
    /// A namespace-scoped manager (`cargo operator init --namespaced`, `cargo operator edit
    /// --namespaced`): the `#[rbac]` markers without their own namespace make a Role in the
    /// manager's namespace instead of the ClusterRole, and the manager watches only its own
    /// namespace. The scope of the manager, not of a kind (that is `[[resource]]`'s
    /// `namespaced`).
    #[serde(default)]
    pub namespaced: bool,
    pub operator: Operator,
    /// The compatibility gate's baseline.
    #[serde(default)]
    pub compat: Compat,
    #[serde(default, rename = "resource")]
    pub resources: Vec<Resource>,
    /// Kinds of other projects' CRDs whose types the operator holds (`create api
    /// --external`): compiled and granted like any kind, never given a CRD in `config/crd`.
    #[serde(default, rename = "external")]
    pub externals: Vec<External>,
}

/// One kind of a CRD someone else installs (a third-party operator's), as `create api
/// --external --from-crd` records it: its types are generated from the CRD file, which the
/// project keeps a copy of (`config/crd/external/`) for its tests' control plane only.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct External {
    /// The CRD file the types are generated from (relative to the root when inside the
    /// project); `cargo operator update` generates them again from it.
    pub crd: PathBuf,
    /// The full API group, as the CRD names it (`cert-manager.io`).
    pub group: String,
    /// The version the project's controller uses (the CRD's every version has types).
    pub version: String,
    pub kind: String,
    /// The crate whose `src` holds the types, relative to the workspace root.
    pub path: PathBuf,
    /// The file with the kind's types of `version`.
    pub api: PathBuf,
    /// The file with its reconciler, if it has one here.
    pub controller: Option<PathBuf>,
    #[serde(default = "namespaced_by_default")]
    pub namespaced: bool,
}

/// Where the project keeps the copies of the external CRDs: applied to the local control
/// plane (`cargo xtask test`, and `install` and `run` there), never in a kustomization, since
/// the real cluster has the third party's operator install them.
pub const EXTERNAL_CRDS: &str = "config/crd/external";

/// `[compat]`: what `cargo xtask manifests` keeps the CRDs compatible with when no
/// `--against` is given. By default the last release: the nearest git tag matching
/// [`release-tags`](Compat::release_tags) in HEAD's history; before the first release the
/// gate only warns.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Compat {
    /// A baseline named instead of the last release: a git ref (`"v1.2.0"`, a branch),
    /// `"HEAD"` (the committed CRDs: every committed edit is judged, before any release
    /// too), or `"none"` (no gate).
    pub against: Option<String>,
    /// The git glob that release tags match (`git describe --match`); default
    /// [`DEFAULT_RELEASE_TAGS`].
    pub release_tags: Option<String>,
}

/// The release tags when `[compat] release-tags` is not set: `v1.2.0`, `v0.1.0-rc.1`, ...
pub const DEFAULT_RELEASE_TAGS: &str = "v*";

impl Compat {
    /// The glob release tags match.
    pub fn release_tags(&self) -> &str {
        self.release_tags.as_deref().unwrap_or(DEFAULT_RELEASE_TAGS)
    }

    fn check(&self) -> Result<()> {
        match (&self.against, &self.release_tags) {
            (Some(against), Some(tags)) => bail!(
                "[compat] sets both against = {against:?} and release-tags = {tags:?}: against \
                 names the baseline, so the release tags would not be looked at; keep one"
            ),
            (Some(against), None) if against.trim().is_empty() => bail!(
                "[compat] against = {against:?}: name a git ref (a release tag), \"HEAD\" or \
                 \"none\", or leave it out to compare with the last release tag"
            ),
            (None, Some(tags)) if tags.trim().is_empty() => bail!(
                "[compat] release-tags = {tags:?}: give the git glob your release tags match \
                 (\"v*\", \"my-operator-v*\"), or leave it out for {DEFAULT_RELEASE_TAGS:?}"
            ),
            _ => Ok(()),
        }
    }
}

/// The operator's binary crate.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Operator {
    /// The crate's directory, relative to the workspace root.
    pub path: PathBuf,
    /// Its package name.
    pub package: String,
    /// Its binary (default: the package name).
    pub bin: Option<String>,
}

/// One kind of one version, as `create api` records it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Resource {
    /// The group without the domain (`cache`).
    pub group: String,
    pub version: String,
    pub kind: String,
    /// The crate whose `src` holds the types, relative to the workspace root.
    pub path: PathBuf,
    /// The file with the kind's types.
    pub api: PathBuf,
    /// The file with its reconciler, if it has one here.
    pub controller: Option<PathBuf>,
    #[serde(default = "namespaced_by_default")]
    pub namespaced: bool,
    /// Its webhooks, as `create webhook` records them.
    #[serde(default)]
    pub webhooks: Option<Webhooks>,
    /// The finalizer its controller puts on objects, when kept from an operator that ran
    /// before this one (`create api --finalizer`); default `<api group>/finalizer`.
    #[serde(default)]
    pub finalizer: Option<String>,
    /// The field manager of its controller's applies (`create api --field-manager`); default
    /// the project's name.
    #[serde(default)]
    pub field_manager: Option<String>,
    /// The reporting controller of its controller's events (`create api --event-reporter`);
    /// default the field manager.
    #[serde(default)]
    pub event_reporter: Option<String>,
}

/// The webhooks of one kind and version (kubebuilder's `webhooks:` of a PROJECT resource).
#[derive(Debug, Default, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Webhooks {
    /// A defaulting (mutating) admission webhook.
    #[serde(default)]
    pub defaulting: bool,
    /// A validating admission webhook.
    #[serde(default)]
    pub validation: bool,
    /// A conversion webhook, with this version as the hub.
    #[serde(default)]
    pub conversion: bool,
    /// With `conversion`: the other versions, each converted to and from this one.
    #[serde(default)]
    pub spokes: Vec<String>,
}

impl External {
    /// The entry as messages name it: `PROJECT.toml: [[external]] cert-manager.io/v1 Certificate`.
    pub fn describe(&self) -> String {
        format!(
            "{FILE}: [[external]] {}/{} {}",
            self.group, self.version, self.kind
        )
    }
}

fn namespaced_by_default() -> bool {
    true
}

impl Project {
    /// Reads and checks `root/PROJECT.toml`.
    pub fn load(root: &Path) -> Result<Project> {
        let path = root.join(FILE);
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "cannot read {}: every project has one at its root (kubebuilder's PROJECT)",
                path.display()
            )
        })?;
        let project: Project = toml::from_str(&text)
            .map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.to_string().trim_end()))?;
        project
            .check(root)
            .with_context(|| format!("{} is not valid", path.display()))?;
        Ok(project)
    }

    fn check(&self, root: &Path) -> Result<()> {
        if self.version != VERSION {
            bail!(
                "version = {} is not known; this xtask reads version {VERSION}",
                self.version
            );
        }
        if let Err(problem) = check_domain(&self.domain) {
            bail!("{problem}");
        }
        self.compat.check()?;
        let mut seen = BTreeSet::new();
        let mut seen_external = BTreeSet::new();
        for r in &self.resources {
            let at = format!("[[resource]] {}/{} {}", r.group, r.version, r.kind);
            if let Err(problem) = api_group(&r.group, &self.domain) {
                bail!("{at}: {problem}");
            }
            if !is_version(&r.version) {
                bail!(
                    "{at}: version {:?} is not a Kubernetes version (v1, v1alpha1, v2beta3, ...)",
                    r.version
                );
            }
            if !is_kind(&r.kind) {
                bail!(
                    "{at}: kind {:?} is not an UpperCamelCase name of ASCII letters and digits",
                    r.kind
                );
            }
            check_kept_names(r).with_context(|| at.clone())?;
            if self.namespaced && !r.namespaced && r.controller.is_some() {
                bail!("{at}: {}", cluster_kind_in_namespaced_project());
            }
            if !seen.insert((&r.group, &r.version, &r.kind)) {
                bail!("{at} is listed twice");
            }
            if let Some(w) = &r.webhooks {
                check_webhooks(self, r, w).with_context(|| format!("{at}: webhooks"))?;
            }
            for file in std::iter::once(&r.api).chain(&r.controller) {
                if !root.join(file).is_file() {
                    bail!("{at}: {} does not exist", file.display());
                }
            }
        }
        for e in &self.externals {
            let at = format!("[[external]] {}/{} {}", e.group, e.version, e.kind);
            if !is_dns_subdomain(&e.group) || !e.group.contains('.') {
                bail!(
                    "{at}: group {:?} is not a CRD's API group (a DNS name with a dot: \
                     cert-manager.io)",
                    e.group
                );
            }
            if !is_version(&e.version) {
                bail!("{at}: version {:?} is not a Kubernetes version", e.version);
            }
            if !is_kind(&e.kind) {
                bail!("{at}: kind {:?} is not an UpperCamelCase name", e.kind);
            }
            if self.namespaced && !e.namespaced && e.controller.is_some() {
                bail!("{at}: {}", cluster_kind_in_namespaced_project());
            }
            if !seen_external.insert((&e.group, &e.kind)) {
                bail!("{at}: the kind is listed twice (one entry per external kind)");
            }
            if self.resources.iter().any(|r| {
                r.kind == e.kind && api_group(&r.group, &self.domain).ok() == Some(e.group.clone())
            }) {
                bail!("{at} is also a [[resource]] of this project");
            }
            for file in std::iter::once(&e.api).chain(&e.controller) {
                if !root.join(file).is_file() {
                    bail!("{at}: {} does not exist", file.display());
                }
            }
        }
        if !root.join(&self.operator.path).join("Cargo.toml").is_file() {
            bail!(
                "[operator] path {} has no Cargo.toml",
                self.operator.path.display()
            );
        }
        Ok(())
    }

    /// The crates whose sources hold markers (the operator's and every resource's), relative
    /// to the root, each once, in order.
    pub fn crates(&self) -> Vec<&Path> {
        let set: BTreeSet<&Path> = std::iter::once(self.operator.path.as_path())
            .chain(self.resources.iter().map(|r| r.path.as_path()))
            .chain(self.externals.iter().map(|e| e.path.as_path()))
            .collect();
        set.into_iter().collect()
    }

    /// The API group of `resource`: its group and the domain.
    pub fn api_group(&self, resource: &Resource) -> String {
        format!("{}.{}", resource.group, self.domain)
    }

    /// The operator's binary.
    pub fn bin(&self) -> &str {
        self.operator
            .bin
            .as_deref()
            .unwrap_or(&self.operator.package)
    }
}

/// Why a namespaced project refuses a controller of a cluster-scoped kind.
pub fn cluster_kind_in_namespaced_project() -> String {
    "the kind is cluster-scoped and has a controller, but the project's manager is \
     namespace-scoped (namespaced = true): its Role in its own namespace cannot grant a \
     cluster-scoped kind. Make the manager cluster-scoped (`cargo operator edit \
     --cluster-scoped`), or drop the controller"
        .to_string()
}

/// Checks a project's domain: a DNS name, one label or more (`example.com`, or `rs` for groups
/// such as `kube.rs`). The API group it makes with each group is checked by [`api_group`].
pub fn check_domain(domain: &str) -> std::result::Result<(), String> {
    if is_dns_subdomain(domain) {
        Ok(())
    } else {
        Err(format!(
            "domain {domain:?} is not a DNS name (lower-case labels of letters, digits and '-', \
             separated by dots)"
        ))
    }
}

/// The API group of `group` in a project of `domain` (`cache` + `example.com`), checked as the
/// API server checks a CustomResourceDefinition's group: a DNS name with at least one dot,
/// which a DNS label before a domain always has.
pub fn api_group(group: &str, domain: &str) -> std::result::Result<String, String> {
    if !is_dns_label(group) {
        return Err(format!(
            "group {group:?} is not a DNS label (lower-case letters, digits and '-', starting \
             and ending with a letter or digit); the domain {domain:?} is added to it"
        ));
    }
    let full = format!("{group}.{domain}");
    if !is_dns_subdomain(&full) {
        return Err(format!(
            "the API group {full:?} is longer than 253 characters"
        ));
    }
    Ok(full)
}

/// The names a controller keeps from an operator that ran before (finalizer, field manager,
/// event reporter): only with a controller, each as the API server takes it.
fn check_kept_names(r: &Resource) -> Result<()> {
    for (key, value) in r.kept_names() {
        let Some(value) = value else { continue };
        if r.controller.is_none() {
            bail!("{key} = {value:?} is a name of the controller, and this kind has none here");
        }
        if let Err(problem) = check_kept_name(key, value) {
            bail!("{key} = {value:?}: {problem}");
        }
    }
    Ok(())
}

/// The keys of the names a controller keeps (`finalizer`, `field-manager`, `event-reporter`),
/// which are also `create api`'s flags without their `--`.
pub const KEPT_NAMES: [&str; 3] = ["finalizer", "field-manager", "event-reporter"];

impl Resource {
    /// The kept names by their [`KEPT_NAMES`] key; `None` where the scaffold's default holds.
    pub fn kept_names(&self) -> [(&'static str, Option<&str>); 3] {
        let values = [&self.finalizer, &self.field_manager, &self.event_reporter];
        std::array::from_fn(|i| (KEPT_NAMES[i], values[i].as_deref()))
    }
}

/// Checks the kept name `value` of [`KEPT_NAMES`] key `key` as the API server would.
pub fn check_kept_name(key: &str, value: &str) -> std::result::Result<(), String> {
    if key == "field-manager" {
        check_field_manager(value)
    } else {
        check_qualified_name(value)
    }
}

/// A field manager as the API server takes it: 1 to 128 printable characters.
pub fn check_field_manager(name: &str) -> std::result::Result<(), String> {
    if name.is_empty() || name.chars().count() > 128 || name.chars().any(char::is_control) {
        return Err("a field manager is 1 to 128 printable characters".to_string());
    }
    Ok(())
}

/// A qualified name as the API server checks finalizers and event reporters:
/// `[prefix/]name`, the prefix a DNS name, the name at most 63 letters, digits, '-', '_' or
/// '.', starting and ending with a letter or digit (`example.com/finalizer`,
/// `documents.kube.rs`).
pub fn check_qualified_name(value: &str) -> std::result::Result<(), String> {
    let (prefix, name) = match value.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, value),
    };
    if let Some(prefix) = prefix
        && !is_dns_subdomain(prefix)
    {
        return Err(format!(
            "the prefix {prefix:?} is not a DNS name (lower-case labels separated by dots)"
        ));
    }
    let edge = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    if name.is_empty()
        || name.len() > 63
        || !edge(name.chars().next())
        || !edge(name.chars().last())
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(format!(
            "{name:?} is not a qualified name (at most 63 letters, digits, '-', '_' or '.', \
             starting and ending with a letter or digit, after an optional DNS-name prefix \
             and '/')"
        ));
    }
    Ok(())
}

/// A resource's webhooks: at least one; spokes exactly with a conversion, each another
/// listed version of the same kind, once.
fn check_webhooks(project: &Project, r: &Resource, w: &Webhooks) -> Result<()> {
    if !(w.defaulting || w.validation || w.conversion) {
        bail!("none of defaulting, validation and conversion is true");
    }
    if w.conversion && w.spokes.is_empty() {
        bail!("conversion = true needs the versions it converts (spokes = [\"v2\", ...])");
    }
    if !w.conversion && !w.spokes.is_empty() {
        bail!("spokes without conversion = true");
    }
    let mut seen = BTreeSet::new();
    for spoke in &w.spokes {
        if !seen.insert(spoke) {
            bail!("spoke {spoke:?} is listed twice");
        }
        if *spoke == r.version {
            bail!("spoke {spoke:?} is the hub itself");
        }
        let listed = project
            .resources
            .iter()
            .any(|o| o.group == r.group && o.kind == r.kind && o.version == *spoke);
        if !listed {
            bail!(
                "spoke {spoke:?} is not a version of {} in this file (no [[resource]] {}/{spoke} {})",
                r.kind,
                r.group,
                r.kind
            );
        }
    }
    Ok(())
}

/// `v1`, `v1alpha1`, `v2beta3`: what the API server sorts as a version.
pub fn is_version(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('v') else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || rest.starts_with('0') {
        return false;
    }
    let tail = &rest[digits..];
    if tail.is_empty() {
        return true;
    }
    ["alpha", "beta"].iter().any(|stage| {
        tail.strip_prefix(stage).is_some_and(|n| {
            !n.is_empty() && !n.starts_with('0') && n.bytes().all(|b| b.is_ascii_digit())
        })
    })
}

/// An UpperCamelCase name of ASCII letters and digits.
pub fn is_kind(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase()) && s.chars().all(|c| c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_project_file_is_valid_and_names_memcached() {
        let project = Project::load(&crate::root()).unwrap();
        assert_eq!(project.crates(), [Path::new("memcached")]);
        assert_eq!(project.bin(), "memcached");
        let r = &project.resources[0];
        assert_eq!(
            (
                project.api_group(r).as_str(),
                r.version.as_str(),
                r.kind.as_str()
            ),
            ("cache.example.com", "v1alpha1", "Memcached")
        );
    }

    fn load(text: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("op/src")).unwrap();
        std::fs::write(dir.path().join("op/Cargo.toml"), "").unwrap();
        std::fs::write(dir.path().join("op/src/api.rs"), "").unwrap();
        std::fs::write(dir.path().join(FILE), text).unwrap();
        match Project::load(dir.path()) {
            Ok(_) => "ok".into(),
            Err(e) => format!("{e:#}").replace(&dir.path().display().to_string(), "ROOT"),
        }
    }

    const HEAD: &str = "version = 1\ndomain = \"example.com\"\nproject-name = \"op\"\n\
                        [operator]\npath = \"op\"\npackage = \"op\"\n";

    fn with_resource(group: &str, version: &str, kind: &str) -> String {
        format!(
            "{HEAD}[[resource]]\ngroup = \"{group}\"\nversion = \"{version}\"\nkind = \"{kind}\"\n\
             path = \"op\"\napi = \"op/src/api.rs\"\n"
        )
    }

    #[test]
    fn names_are_checked_before_anything_runs() {
        assert_eq!(load(&with_resource("web", "v1beta2", "Site")), "ok");
        let cases = [
            (
                with_resource("Web", "v1", "Site"),
                "group \"Web\" is not a DNS label",
            ),
            (
                with_resource("web", "1", "Site"),
                "version \"1\" is not a Kubernetes version",
            ),
            (
                with_resource("web", "v1gamma1", "Site"),
                "version \"v1gamma1\"",
            ),
            (
                with_resource("web", "v1", "site"),
                "kind \"site\" is not an UpperCamelCase name",
            ),
            (with_resource("web", "v1", "Wid_get"), "kind \"Wid_get\""),
            (
                with_resource("web", "v1", "Site").replace("op/src/api.rs", "op/src/gone.rs"),
                "op/src/gone.rs does not exist",
            ),
            (
                HEAD.replace("example.com", "Example.com"),
                "domain \"Example.com\" is not a DNS name",
            ),
            (
                HEAD.replace("version = 1", "version = 2"),
                "version = 2 is not known",
            ),
        ];
        for (text, expected) in cases {
            let got = load(&text);
            assert!(
                got.starts_with("ROOT/PROJECT.toml is not valid: ") && got.contains(expected),
                "{expected:?} not in {got:?}"
            );
        }
        let twice = format!(
            "{}{}",
            with_resource("web", "v1", "Site"),
            with_resource("web", "v1", "Site").replace(HEAD, "")
        );
        assert!(load(&twice).contains("[[resource]] web/v1 Site is listed twice"));
    }

    #[test]
    fn a_one_label_domain_and_kept_controller_names_are_taken() {
        // kube-rs's documents.kube.rs: domain `rs`, group `kube`.
        assert_eq!(
            load(&with_resource("kube", "v1", "Document").replace("example.com", "rs")),
            "ok"
        );
        let controlled = |extra: &str| {
            with_resource("web", "v1", "Site") + "controller = \"op/src/api.rs\"\n" + extra
        };
        let kept = "finalizer = \"documents.kube.rs\"\nfield-manager = \"doc-controller\"\n\
                    event-reporter = \"doc-controller\"\n";
        assert_eq!(load(&controlled(kept)), "ok");
        assert_eq!(
            load(&controlled("finalizer = \"example.com/cleanup\"\n")),
            "ok"
        );
        let cases = [
            (
                controlled("finalizer = \"Bad_/x\"\n"),
                "the prefix \"Bad_\" is not a DNS name",
            ),
            (
                controlled("finalizer = \"example.com/-x\"\n"),
                "\"-x\" is not a qualified name",
            ),
            (
                controlled("event-reporter = \"a b\"\n"),
                "event-reporter = \"a b\"",
            ),
            (
                controlled("field-manager = \"\"\n"),
                "1 to 128 printable characters",
            ),
            (
                with_resource("web", "v1", "Site") + "finalizer = \"x\"\n",
                "is a name of the controller, and this kind has none here",
            ),
        ];
        for (text, expected) in cases {
            let got = load(&text);
            assert!(got.contains(expected), "{expected:?} not in {got:?}");
            assert!(got.contains("[[resource]] web/v1 Site"), "{got}");
        }
    }

    #[test]
    fn a_namespaced_manager_takes_no_controller_of_a_cluster_scoped_kind() {
        let namespaced =
            |resource: String| resource.replacen("[operator]", "namespaced = true\n[operator]", 1);
        let site = with_resource("web", "v1", "Site");
        let controlled = site.clone() + "controller = \"op/src/api.rs\"\n";
        let cluster_kind = |text: &str| text.to_string() + "namespaced = false\n";
        assert_eq!(load(&namespaced(controlled.clone())), "ok");
        assert_eq!(load(&cluster_kind(&controlled)), "ok");
        // Types only are fine.
        assert_eq!(load(&namespaced(cluster_kind(&site))), "ok");
        let got = load(&namespaced(cluster_kind(&controlled)));
        assert!(
            got.contains(
                "[[resource]] web/v1 Site: the kind is cluster-scoped and has a controller"
            ) && got.contains("cargo operator edit --cluster-scoped"),
            "{got}"
        );
    }

    #[test]
    fn webhooks_are_read_and_checked() {
        let two = format!(
            "{}{}",
            with_resource("web", "v1", "Site"),
            with_resource("web", "v2", "Site").replace(HEAD, "")
        );
        let with = |webhooks: &str| format!("{two}{webhooks}");
        assert_eq!(
            load(&with(
                "webhooks = { defaulting = true, validation = true }\n"
            )),
            "ok"
        );
        assert_eq!(
            load(&with(
                "webhooks = { conversion = true, spokes = [\"v1\"] }\n"
            )),
            "ok"
        );
        for (webhooks, expected) in [
            (
                "webhooks = {}\n",
                "none of defaulting, validation and conversion",
            ),
            (
                "webhooks = { conversion = true }\n",
                "needs the versions it converts",
            ),
            (
                "webhooks = { validation = true, spokes = [\"v1\"] }\n",
                "spokes without conversion",
            ),
            (
                "webhooks = { conversion = true, spokes = [\"v2\"] }\n",
                "is the hub itself",
            ),
            (
                "webhooks = { conversion = true, spokes = [\"v3\"] }\n",
                "no [[resource]] web/v3 Site",
            ),
            (
                "webhooks = { conversion = true, spokes = [\"v1\", \"v1\"] }\n",
                "listed twice",
            ),
        ] {
            let got = load(&with(webhooks));
            assert!(
                got.contains("[[resource]] web/v2 Site: webhooks: ") && got.contains(expected),
                "{expected:?} not in {got:?}"
            );
        }
        let got = load(&with("webhooks = { mutating = true }\n"));
        assert!(got.contains("unknown field `mutating`"), "{got}");
    }

    #[test]
    fn external_kinds_are_read_and_checked() {
        let external = |group: &str, kind: &str, api: &str| {
            format!(
                "[[external]]\ncrd = \"crds/certificates.yaml\"\ngroup = \"{group}\"\n\
                 version = \"v1\"\nkind = \"{kind}\"\npath = \"op\"\napi = \"{api}\"\n"
            )
        };
        let ok = external("cert-manager.io", "Certificate", "op/src/api.rs");
        assert_eq!(load(&format!("{HEAD}{ok}")), "ok");
        for (text, expected) in [
            (
                external("certmanager", "Certificate", "op/src/api.rs"),
                "group \"certmanager\" is not a CRD's API group",
            ),
            (
                external("cert-manager.io", "certificate", "op/src/api.rs"),
                "kind \"certificate\"",
            ),
            (
                external("cert-manager.io", "Certificate", "op/src/gone.rs"),
                "op/src/gone.rs does not exist",
            ),
            (format!("{ok}{ok}"), "listed twice"),
            (
                external("web.example.com", "Site", "op/src/api.rs")
                    + &with_resource("web", "v1", "Site").replace(HEAD, ""),
                "is also a [[resource]]",
            ),
        ] {
            let got = load(&format!("{HEAD}{text}"));
            assert!(
                got.contains("[[external]] ") && got.contains(expected),
                "{expected:?} not in {got:?}"
            );
        }
    }

    #[test]
    fn the_compat_table_names_one_baseline() {
        assert_eq!(load(HEAD), "ok");
        for body in [
            "against = \"v1.2.0\"",
            "against = \"none\"",
            "release-tags = \"op-v*\"",
        ] {
            assert_eq!(load(&format!("{HEAD}[compat]\n{body}\n")), "ok", "{body}");
        }
        for (body, expected) in [
            (
                "against = \"HEAD\"\nrelease-tags = \"v*\"",
                "[compat] sets both against = \"HEAD\" and release-tags = \"v*\": against names \
                 the baseline, so the release tags would not be looked at; keep one",
            ),
            ("against = \"\"", "[compat] against = \"\": name a git ref"),
            (
                "release-tags = \" \"",
                "[compat] release-tags = \" \": give the git glob",
            ),
            ("since = \"v1\"", "unknown field `since`"),
        ] {
            let got = load(&format!("{HEAD}[compat]\n{body}\n"));
            assert!(got.contains(expected), "{expected:?} not in {got:?}");
        }
    }

    #[test]
    fn toml_mistakes_name_the_file_and_the_line() {
        let got = load(&format!("{HEAD}colour = \"blue\"\n"));
        assert!(got.starts_with("ROOT/PROJECT.toml: "), "{got}");
        assert!(got.contains("unknown field `colour`"), "{got}");
        assert!(got.contains("line 7"), "{got}");
    }
}
