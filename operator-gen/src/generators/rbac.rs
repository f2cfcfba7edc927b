//! RBAC roles from `#[rbac]` markers, normalised the way controller-gen does it: one rule
//! per resource, `core` read as the core group `""`, verbs unioned per (groups, resources,
//! resource names, URLs), then rules merged that differ only in resources, then only in
//! groups, then only in URLs; rules sorted by their key; `*` among the verbs wins.
//! Every map here is ordered, so the result does not depend on the order of the markers.

use std::collections::{BTreeMap, BTreeSet};

use crate::api::meta::v1::ObjectMeta;
use crate::api::rbac::v1::{ClusterRole, PolicyRule, Role};

use super::{Artifact, ArtifactKind};
use crate::generators::{Generator, Reads};
use crate::markers::RbacMarker;
use crate::model::Api;
use crate::render::document;
use crate::render::yaml;
use crate::{LocatedError, Options, Origin};

/// The file the roles go to, as controller-gen names it.
pub const ROLE_FILE: &str = "role.yaml";

/// The RBAC generator: `#[rbac]` markers to `rbac/role.yaml`.
#[derive(Debug)]
pub struct RbacGenerator;

impl Generator for RbacGenerator {
    fn name(&self) -> &'static str {
        "rbac"
    }

    fn help(&self) -> &'static str {
        "ClusterRoles and Roles from #[rbac] markers, into rbac/role.yaml"
    }

    fn dir(&self) -> &'static str {
        "rbac"
    }

    fn owns(&self, file_name: &str) -> bool {
        file_name == ROLE_FILE
    }

    fn reads(&self) -> Reads {
        Reads {
            rbac: true,
            ..Default::default()
        }
    }

    fn build(&self, api: &Api, options: &Options) -> Result<Vec<Artifact>, Vec<LocatedError>> {
        let Some(namespace) = &options.rbac_namespace else {
            let found: Vec<RbacMarker> = api.rbac.iter().map(|m| m.value.clone()).collect();
            return Ok(render_roles(&build_roles(&found, &options.role_name))
                .into_iter()
                .collect());
        };
        let mut errors = Vec::new();
        let mut found = Vec::with_capacity(api.rbac.len());
        for marker in &api.rbac {
            let mut value = marker.value.clone();
            if value.namespace.is_none() {
                if !value.urls.is_empty() {
                    errors.push(LocatedError::new(
                        marker.at.clone(),
                        format!(
                            "non-resource `urls` can only be granted by a ClusterRole, and the \
                             rules of this project's #[rbac] markers go to a Role in namespace \
                             {namespace:?} (a namespace-scoped manager: PROJECT.toml's \
                             `namespaced = true`, or --rbac-namespace); grant the URLs with a \
                             ClusterRole and binding of your own under config/rbac, or make the \
                             manager cluster-scoped (`cargo operator edit --cluster-scoped`)"
                        ),
                        Origin::Source,
                    ));
                    continue;
                }
                value.namespace = Some(namespace.clone());
            }
            found.push(value);
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(render_roles(&build_roles(&found, &options.role_name))
            .into_iter()
            .collect())
    }
}

/// The role file of `roles` (none when there are no roles).
pub fn render_roles(roles: &[RbacRole]) -> Option<Artifact> {
    if roles.is_empty() {
        return None;
    }
    let docs: Vec<yaml::Node> = roles
        .iter()
        .map(|r| match r {
            RbacRole::Cluster(c) => document(c),
            RbacRole::Namespaced(r) => document(r),
        })
        .collect();
    Some(Artifact {
        kind: ArtifactKind::RBAC,
        file_name: ROLE_FILE.into(),
        contents: yaml::to_yaml_stream(&docs),
    })
}

/// A ClusterRole (no namespace) or a namespaced Role.
#[derive(Debug, Clone, PartialEq)]
pub enum RbacRole {
    /// A ClusterRole.
    Cluster(ClusterRole),
    /// A Role in a namespace.
    Namespaced(Role),
}

#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Rule {
    groups: BTreeSet<String>,
    resources: BTreeSet<String>,
    resource_names: BTreeSet<String>,
    urls: BTreeSet<String>,
    verbs: BTreeSet<String>,
}

fn join(set: &BTreeSet<String>) -> String {
    set.iter().cloned().collect::<Vec<_>>().join("&")
}

impl Rule {
    /// controller-gen's sort key: `groups + resources + resourceNames + urls`.
    fn key(&self) -> String {
        format!(
            "{} + {} + {} + {}",
            join(&self.groups),
            join(&self.resources),
            join(&self.resource_names),
            join(&self.urls)
        )
    }

    fn into_policy_rule(self) -> PolicyRule {
        let list = |s: BTreeSet<String>| (!s.is_empty()).then(|| s.into_iter().collect());
        let verbs = if self.verbs.contains("*") {
            vec!["*".to_string()]
        } else {
            self.verbs.into_iter().collect()
        };
        PolicyRule {
            api_groups: list(self.groups),
            resources: list(self.resources),
            resource_names: list(self.resource_names),
            non_resource_urls: list(self.urls),
            verbs,
        }
    }
}

/// Merges rules whose `identity` (everything but one list) is equal, unioning that list.
fn merge_by(
    rules: Vec<Rule>,
    identity: impl Fn(&Rule) -> Rule,
    merge: impl Fn(&mut Rule, Rule),
) -> Vec<Rule> {
    let mut groups: BTreeMap<Rule, Rule> = BTreeMap::new();
    for rule in rules {
        match groups.entry(identity(&rule)) {
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert(rule);
            }
            std::collections::btree_map::Entry::Occupied(mut o) => merge(o.get_mut(), rule),
        }
    }
    groups.into_values().collect()
}

fn normalize(rules: Vec<Rule>) -> Vec<PolicyRule> {
    // 1. Same groups/resources/names/urls: union the verbs.
    let rules = merge_by(
        rules,
        |r| Rule {
            verbs: BTreeSet::new(),
            ..r.clone()
        },
        |into, r| into.verbs.extend(r.verbs),
    );
    // 2. Differ only in resources.
    let rules = merge_by(
        rules,
        |r| Rule {
            resources: BTreeSet::new(),
            ..r.clone()
        },
        |into, r| into.resources.extend(r.resources),
    );
    // 3. Differ only in groups.
    let rules = merge_by(
        rules,
        |r| Rule {
            groups: BTreeSet::new(),
            ..r.clone()
        },
        |into, r| into.groups.extend(r.groups),
    );
    // 4. Differ only in URLs.
    let rules = merge_by(
        rules,
        |r| Rule {
            urls: BTreeSet::new(),
            ..r.clone()
        },
        |into, r| into.urls.extend(r.urls),
    );
    let mut keyed: BTreeMap<String, Rule> = BTreeMap::new();
    for rule in rules {
        match keyed.get_mut(&rule.key()) {
            Some(existing) => existing.verbs.extend(rule.verbs),
            None => {
                keyed.insert(rule.key(), rule);
            }
        }
    }
    keyed.into_values().map(Rule::into_policy_rule).collect()
}

/// Builds the roles for `markers`. `default_role_name` names the roles of markers without
/// their own `role_name` (kubebuilder projects use `manager-role`). Roles come ordered by
/// namespace (the ClusterRole first), then name.
pub fn build_roles(markers: &[RbacMarker], default_role_name: &str) -> Vec<RbacRole> {
    let mut by_role: BTreeMap<(String, String), Vec<Rule>> = BTreeMap::new();
    for marker in markers {
        let role_name = marker
            .role_name
            .clone()
            .unwrap_or_else(|| default_role_name.to_string());
        let key = (marker.namespace.clone().unwrap_or_default(), role_name);
        let groups: BTreeSet<String> = marker
            .groups
            .iter()
            .map(|g| {
                if g == "core" {
                    String::new()
                } else {
                    g.clone()
                }
            })
            .collect();
        let base = Rule {
            groups,
            resources: BTreeSet::new(),
            resource_names: marker.resource_names.iter().cloned().collect(),
            urls: marker.urls.iter().cloned().collect(),
            verbs: marker.verbs.iter().cloned().collect(),
        };
        let rules = by_role.entry(key).or_default();
        if marker.resources.is_empty() {
            rules.push(base);
        } else {
            for resource in &marker.resources {
                let mut rule = base.clone();
                rule.resources.insert(resource.clone());
                rules.push(rule);
            }
        }
    }
    by_role
        .into_iter()
        .filter_map(|((namespace, name), rules)| {
            let rules = normalize(rules);
            if rules.is_empty() {
                return None;
            }
            Some(if namespace.is_empty() {
                RbacRole::Cluster(ClusterRole {
                    metadata: ObjectMeta {
                        name: Some(name),
                        ..Default::default()
                    },
                    rules: Some(rules),
                })
            } else {
                RbacRole::Namespaced(Role {
                    metadata: ObjectMeta {
                        name: Some(name),
                        namespace: Some(namespace),
                        ..Default::default()
                    },
                    rules: Some(rules),
                })
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marker(groups: &str, resources: &str, verbs: &str) -> RbacMarker {
        let list = |s: &str| crate::markers::split_list(s);
        RbacMarker {
            groups: if groups == "-" {
                Vec::new()
            } else {
                vec![groups.into()]
            },
            resources: list(resources),
            resource_names: Vec::new(),
            verbs: list(verbs),
            urls: Vec::new(),
            namespace: None,
            role_name: None,
        }
    }

    /// Each rule of each role as one line: `name/namespace: groups | resources | urls | verbs`.
    fn lines(roles: &[RbacRole]) -> Vec<String> {
        let list = |l: &Option<Vec<String>>| l.as_ref().map_or("-".into(), |l| format!("{l:?}"));
        let mut out = Vec::new();
        for role in roles {
            let (meta, rules) = match role {
                RbacRole::Cluster(c) => (&c.metadata, &c.rules),
                RbacRole::Namespaced(r) => (&r.metadata, &r.rules),
            };
            for r in rules.iter().flatten() {
                out.push(format!(
                    "{}/{}: {} | {} | {} | {:?}",
                    meta.name.as_deref().unwrap_or_default(),
                    meta.namespace.as_deref().unwrap_or_default(),
                    list(&r.api_groups),
                    list(&r.resources),
                    list(&r.non_resource_urls),
                    r.verbs
                ));
            }
        }
        out
    }

    #[test]
    fn rules_are_normalised_as_controller_gen_does() {
        let metrics = RbacMarker {
            urls: vec!["/metrics".into()],
            ..marker("-", "", "get")
        };
        let markers = vec![
            marker("apps", "deployments", "get;list"),
            marker("apps", "deployments", "watch;get"),
            marker("apps", "statefulsets", "get;list;watch"),
            marker("core", "pods", "get"),
            marker("", "pods", "list"),
            marker("batch", "jobs", "*;get"),
            marker("extensions", "deployments;statefulsets", "get;list;watch"),
            metrics,
        ];
        let expected = [
            // Sorted by controller-gen's key (groups + resources + names + URLs): empty
            // groups first, the URL rule (no resources) before pods.
            r#"manager-role/: - | - | ["/metrics"] | ["get"]"#,
            // `core` is the core group "", and verbs of one resource are unioned.
            r#"manager-role/: [""] | ["pods"] | - | ["get", "list"]"#,
            // Rules differing only in resources merge, then those differing only in groups.
            r#"manager-role/: ["apps", "extensions"] | ["deployments", "statefulsets"] | - | ["get", "list", "watch"]"#,
            // `*` among the verbs wins.
            r#"manager-role/: ["batch"] | ["jobs"] | - | ["*"]"#,
        ];
        assert_eq!(lines(&build_roles(&markers, "manager-role")), expected);
        // The order of the markers does not matter.
        let mut reversed = markers.clone();
        reversed.reverse();
        assert_eq!(lines(&build_roles(&reversed, "manager-role")), expected);
        let mut rotated = markers;
        rotated.rotate_left(3);
        assert_eq!(lines(&build_roles(&rotated, "manager-role")), expected);
    }

    #[test]
    fn namespaces_and_role_names_make_their_own_roles() {
        let with = |namespace: Option<&str>, role: Option<&str>, resource: &str| RbacMarker {
            namespace: namespace.map(Into::into),
            role_name: role.map(Into::into),
            ..marker("", resource, "get")
        };
        let roles = build_roles(
            &[
                with(Some("zoo"), Some("keeper"), "secrets"),
                with(Some("zoo"), None, "configmaps"),
                with(None, Some("keeper"), "nodes"),
                with(None, None, "pods"),
                with(Some("zoo"), None, "services"),
            ],
            "mgr",
        );
        assert_eq!(
            lines(&roles),
            [
                r#"keeper/: [""] | ["nodes"] | - | ["get"]"#,
                r#"mgr/: [""] | ["pods"] | - | ["get"]"#,
                r#"keeper/zoo: [""] | ["secrets"] | - | ["get"]"#,
                r#"mgr/zoo: [""] | ["configmaps", "services"] | - | ["get"]"#,
            ]
        );
        assert!(matches!(roles[0], RbacRole::Cluster(_)));
        assert!(matches!(roles[3], RbacRole::Namespaced(_)));
        assert!(build_roles(&[], "mgr").is_empty());
    }

    /// The role file `generate_from_texts` makes of `source` (one file, `src/lib.rs`).
    fn role_file(source: &str, options: &Options) -> Result<String, String> {
        let texts = vec![(std::path::PathBuf::from("src/lib.rs"), source.to_string())];
        match crate::generate_from_texts(std::path::Path::new("src"), texts, options) {
            Ok(generated) => Ok(generated
                .files
                .iter()
                .find(|f| f.file_name == ROLE_FILE)
                .map(|f| f.contents.clone())
                .unwrap_or_default()),
            Err(err) => Err(err.to_string()),
        }
    }

    #[test]
    fn a_project_namespace_turns_the_markers_without_one_into_a_role() {
        let source = r#"
#[rbac(groups = "apps", resources = "deployments", verbs = "get;list")]
#[rbac(groups = "coordination.k8s.io", resources = "leases", verbs = "get", namespace = "other", role_name = "le")]
pub async fn reconcile() {}
"#;
        let cluster = role_file(source, &Options::default()).unwrap();
        assert!(
            cluster.contains("kind: ClusterRole\nmetadata:\n  name: manager-role\n"),
            "{cluster}"
        );
        let options = Options {
            rbac_namespace: Some("system".into()),
            ..Options::default()
        };
        let namespaced = role_file(source, &options).unwrap();
        assert!(!namespaced.contains("ClusterRole"), "{namespaced}");
        assert!(
            namespaced
                .contains("kind: Role\nmetadata:\n  name: manager-role\n  namespace: system\n"),
            "{namespaced}"
        );
        // A marker's own namespace stays its own.
        assert!(
            namespaced.contains("  name: le\n  namespace: other\n"),
            "{namespaced}"
        );
    }

    #[test]
    fn non_resource_urls_are_refused_where_the_project_namespace_applies() {
        let source = "\n#[rbac(urls = \"/metrics\", verbs = \"get\")]\npub async fn scrape() {}\n";
        assert!(role_file(source, &Options::default()).is_ok());
        let options = Options {
            rbac_namespace: Some("system".into()),
            ..Options::default()
        };
        let err = role_file(source, &options).unwrap_err();
        assert!(err.contains("src/lib.rs:2:"), "{err}");
        assert!(
            err.contains("only be granted by a ClusterRole")
                && err.contains("namespace \"system\""),
            "{err}"
        );
    }
}
