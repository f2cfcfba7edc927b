//! RBAC roles from `#[rbac]` markers, normalised the way controller-gen does it: one rule
//! per resource, `core` read as the core group `""`, verbs unioned per (groups, resources,
//! resource names, URLs), then rules merged that differ only in resources, then only in
//! groups, then only in URLs; rules sorted by their key; `*` among the verbs wins.
//! Every map here is ordered, so the result does not depend on the order of the markers.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::rbac::v1::{ClusterRole, PolicyRule, Role};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::markers::RbacMarker;

/// A ClusterRole (no namespace) or a namespaced Role.
#[derive(Debug, Clone, PartialEq)]
pub enum RbacRole {
    Cluster(ClusterRole),
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
                    ..Default::default()
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
