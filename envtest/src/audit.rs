//! RBAC proven from the API server's audit log. The local control plane records every request
//! a service account outside `kube-system` makes (`logs/audit.log` in its state directory, at
//! the Metadata level: who, what, the answer). [`read`] collects one identity's requests,
//! [`Report::new`] lays them against the rules of a `role.yaml`: every grant, expanded to
//! (verb, group, resource) and its scope, with how often a request used it; every request
//! refused for want of a grant, with the `#[rbac]` marker that would grant it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io::BufRead as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::Error;

/// The audit policy the local control plane runs with: service accounts outside
/// `kube-system` (operators under test), at the Metadata level, once per request.
pub const POLICY: &str = "\
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted]
rules:
- level: None
  userGroups: [\"system:serviceaccounts:kube-system\"]
- level: Metadata
  userGroups: [\"system:serviceaccounts\"]
- level: None
";

/// Where the control plane whose kubeconfig is `kubeconfig` writes its audit log (the
/// local plane keeps its kubeconfig at the top of its state directory).
pub fn log_beside(kubeconfig: &Path) -> Option<PathBuf> {
    let log = kubeconfig.parent()?.join("logs/audit.log");
    log.is_file().then_some(log)
}

/// The audit log of the cluster of the current `KUBECONFIG`, when it is the local plane.
pub fn current_log() -> Option<PathBuf> {
    let kubeconfig = std::env::var_os("KUBECONFIG").filter(|k| !k.is_empty())?;
    std::env::split_paths(&kubeconfig).find_map(|k| log_beside(&k))
}

/// One request, as the audit log tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// `system:serviceaccount:<namespace>:<name>`.
    pub user: String,
    pub verb: String,
    /// `""` for the core group.
    pub group: String,
    pub resource: String,
    pub subresource: String,
    /// The object's namespace; empty for cluster-scoped objects and all-namespace lists.
    pub namespace: String,
    pub name: String,
    /// For requests that are not about a resource (`/metrics`, ...).
    pub url: Option<String>,
    pub code: u16,
    /// The authorizer's decision: `allow` or `forbid`.
    pub decision: String,
}

impl Request {
    /// `get apps/deployments` (`core` for the core group).
    pub fn what(&self) -> String {
        match &self.url {
            Some(url) => format!("{} {url}", self.verb),
            None => {
                let mut r = self.resource.clone();
                if !self.subresource.is_empty() {
                    r = format!("{r}/{}", self.subresource);
                }
                format!("{} {}/{r}", self.verb, group_name(&self.group))
            }
        }
    }

    fn refused(&self) -> bool {
        self.decision == "forbid" || (self.code == 403 && self.decision != "allow")
    }
}

fn group_name(group: &str) -> &str {
    if group.is_empty() { "core" } else { group }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Event {
    #[serde(default)]
    stage: String,
    verb: String,
    user: User,
    #[serde(default)]
    impersonated_user: Option<User>,
    #[serde(default)]
    object_ref: Option<ObjectRef>,
    #[serde(default)]
    request_u_r_i: String,
    #[serde(default)]
    response_status: Option<Status>,
    #[serde(default)]
    annotations: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct User {
    #[serde(default)]
    username: String,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ObjectRef {
    #[serde(default)]
    resource: String,
    #[serde(default)]
    namespace: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    api_group: String,
    #[serde(default)]
    subresource: String,
}

#[derive(Deserialize)]
struct Status {
    #[serde(default)]
    code: u16,
}

/// Every request in the audit log at `path` made by a user `keep` accepts (the impersonated
/// user when there is one).
pub fn read(path: &Path, keep: impl Fn(&str) -> bool) -> Result<Vec<Request>, Error> {
    read_from(path, 0, keep)
}

/// The audit log's length now: [`read_from`] it later to see only what came after (another
/// project's tests on the same control plane came before).
pub fn mark(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// [`read`], from byte `offset` of the log on (a [`mark`]).
pub fn read_from(
    path: &Path,
    offset: u64,
    keep: impl Fn(&str) -> bool,
) -> Result<Vec<Request>, Error> {
    use std::io::{Seek as _, SeekFrom};
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    file.seek(SeekFrom::Start(offset))
        .map_err(|e| Error::io(path, e))?;
    let mut out = Vec::new();
    for line in std::io::BufReader::new(file).lines() {
        let line = line.map_err(|e| Error::io(path, e))?;
        // A line being written while we read is skipped: it is complete next time.
        let Ok(event) = serde_json::from_str::<Event>(&line) else {
            continue;
        };
        if event.stage != "ResponseComplete" && event.stage != "Panic" {
            continue;
        }
        let user = event
            .impersonated_user
            .map(|u| u.username)
            .unwrap_or(event.user.username);
        if !keep(&user) {
            continue;
        }
        let r = event.object_ref.unwrap_or_default();
        out.push(Request {
            user,
            verb: event.verb,
            group: r.api_group,
            url: r.resource.is_empty().then(|| {
                event
                    .request_u_r_i
                    .split('?')
                    .next()
                    .unwrap_or_default()
                    .to_string()
            }),
            resource: r.resource,
            subresource: r.subresource,
            namespace: r.namespace,
            name: r.name,
            code: event.response_status.map_or(0, |s| s.code),
            decision: event
                .annotations
                .get("authorization.k8s.io/decision")
                .cloned()
                .unwrap_or_default(),
        });
    }
    Ok(out)
}

/// One rule of a role, as `role.yaml` writes it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    #[serde(default)]
    api_groups: Vec<String>,
    #[serde(default)]
    resources: Vec<String>,
    #[serde(default)]
    resource_names: Vec<String>,
    #[serde(default)]
    non_resource_u_r_ls: Vec<String>,
    #[serde(default)]
    verbs: Vec<String>,
}

#[derive(Deserialize)]
struct RoleDoc {
    kind: String,
    #[serde(default)]
    metadata: RoleMeta,
    #[serde(default)]
    rules: Vec<Rule>,
}

#[derive(Deserialize, Default)]
struct RoleMeta {
    #[serde(default)]
    namespace: Option<String>,
}

/// One grant: a verb on a resource (or URL) of a group, cluster-wide or in one namespace.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Grant {
    pub verb: String,
    pub group: String,
    /// `deployments`, `deployments/status`, or a non-resource URL.
    pub resource: String,
    /// `None`: every namespace (a ClusterRole); `Some(ns)`: a Role's namespace.
    pub namespace: Option<String>,
    pub resource_names: Vec<String>,
    non_resource: bool,
}

impl Grant {
    fn covers(&self, r: &Request) -> bool {
        let any = |pattern: &str, value: &str| pattern == "*" || pattern == value;
        if !any(&self.verb, &r.verb) {
            return false;
        }
        if let Some(url) = &r.url {
            return self.non_resource
                && (self.resource == *url
                    || self
                        .resource
                        .strip_suffix('*')
                        .is_some_and(|p| url.starts_with(p)));
        }
        if self.non_resource || !any(&self.group, &r.group) {
            return false;
        }
        let wanted = if r.subresource.is_empty() {
            r.resource.clone()
        } else {
            format!("{}/{}", r.resource, r.subresource)
        };
        let resource_ok = self.resource == "*"
            || self.resource == wanted
            || (self.resource.ends_with("/*")
                && self.resource.trim_end_matches("/*") == r.resource
                && !r.subresource.is_empty())
            || (self.resource.starts_with("*/")
                && self.resource.trim_start_matches("*/") == r.subresource);
        let ns_ok = self.namespace.as_ref().is_none_or(|ns| *ns == r.namespace);
        let names_ok = self.resource_names.is_empty() || self.resource_names.contains(&r.name);
        resource_ok && ns_ok && names_ok
    }
}

impl fmt::Display for Grant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.non_resource {
            write!(f, "{} {}", self.verb, self.resource)?;
        } else {
            write!(
                f,
                "{} {}/{}",
                self.verb,
                group_name(&self.group),
                self.resource
            )?;
        }
        if !self.resource_names.is_empty() {
            write!(f, " named {}", self.resource_names.join(","))?;
        }
        match &self.namespace {
            None => write!(f, " (all namespaces)"),
            Some(ns) => write!(f, " (Role in namespace {ns})"),
        }
    }
}

/// Every grant of the ClusterRoles and Roles in `role_yaml`.
pub fn grants(role_yaml: &str) -> Result<Vec<Grant>, Error> {
    let mut out = BTreeSet::new();
    for doc in serde_yaml::Deserializer::from_str(role_yaml) {
        let doc = RoleDoc::deserialize(doc)
            .map_err(|e| Error::Build(format!("role.yaml is not a list of roles: {e}")))?;
        let namespace = match doc.kind.as_str() {
            "ClusterRole" => None,
            "Role" => doc.metadata.namespace.clone(),
            _ => continue,
        };
        for rule in doc.rules {
            for verb in &rule.verbs {
                for url in &rule.non_resource_u_r_ls {
                    out.insert(Grant {
                        verb: verb.clone(),
                        group: String::new(),
                        resource: url.clone(),
                        namespace: None,
                        resource_names: Vec::new(),
                        non_resource: true,
                    });
                }
                for group in &rule.api_groups {
                    for resource in &rule.resources {
                        out.insert(Grant {
                            verb: verb.clone(),
                            group: group.clone(),
                            resource: resource.clone(),
                            namespace: namespace.clone(),
                            resource_names: rule.resource_names.clone(),
                            non_resource: false,
                        });
                    }
                }
            }
        }
    }
    Ok(out.into_iter().collect())
}

/// The grants of a role against the requests of the identities that ran under it.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Every grant, with how many requests it allowed.
    pub grants: Vec<(Grant, usize)>,
    /// Requests refused (403), each once by what it asked, with how often.
    pub refused: Vec<(Request, usize)>,
    /// Requests allowed that no grant of the role covers (allowed by another binding).
    pub elsewhere: Vec<(String, usize)>,
}

impl Report {
    /// `requests` laid against `grants`. A Role's namespace in `role.yaml` (kubebuilder's
    /// `system`, or none) stands for the namespace the operator runs in: namespaced grants
    /// are matched in any namespace.
    pub fn new(grants: &[Grant], requests: &[Request]) -> Report {
        let anywhere: Vec<Grant> = grants
            .iter()
            .map(|g| Grant {
                namespace: None,
                ..g.clone()
            })
            .collect();
        let mut used = vec![0usize; grants.len()];
        let mut refused: BTreeMap<String, (Request, usize)> = BTreeMap::new();
        let mut elsewhere: BTreeMap<String, usize> = BTreeMap::new();
        for r in requests {
            if r.refused() {
                refused.entry(r.what()).or_insert_with(|| (r.clone(), 0)).1 += 1;
                continue;
            }
            // A server-side apply that creates its object (201) is authorized as a patch
            // and, inside the same request, as a create: both grants were needed.
            let created = (r.verb == "patch" && r.code == 201).then(|| Request {
                verb: "create".into(),
                ..r.clone()
            });
            let mut covered = false;
            for (g, n) in anywhere.iter().zip(used.iter_mut()) {
                if g.covers(r) || created.as_ref().is_some_and(|c| g.covers(c)) {
                    *n += 1;
                    covered = true;
                }
            }
            if !covered {
                *elsewhere.entry(r.what()).or_default() += 1;
            }
        }
        Report {
            grants: grants.iter().cloned().zip(used).collect(),
            refused: refused.into_values().collect(),
            elsewhere: elsewhere.into_iter().collect(),
        }
    }

    /// The grants no request used.
    pub fn unused(&self) -> impl Iterator<Item = &Grant> {
        self.grants.iter().filter(|(_, n)| *n == 0).map(|(g, _)| g)
    }
}

/// The `#[rbac]` marker that grants what `r` asked.
pub fn marker_for(r: &Request) -> String {
    if let Some(url) = &r.url {
        return format!("#[rbac(urls = \"{url}\", verbs = \"{}\")]", r.verb);
    }
    let resource = if r.subresource.is_empty() {
        r.resource.clone()
    } else {
        format!("{}/{}", r.resource, r.subresource)
    };
    format!(
        "#[rbac(groups = \"{}\", resources = \"{resource}\", verbs = \"{}\")]",
        group_name(&r.group),
        r.verb
    )
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (g, n) in &self.grants {
            if *n > 0 {
                writeln!(
                    f,
                    "  used     {g}: {n} request{}",
                    if *n == 1 { "" } else { "s" }
                )?;
            }
        }
        for g in self.unused() {
            writeln!(f, "  unused   {g}: granted, no test used it")?;
        }
        for (what, n) in &self.elsewhere {
            writeln!(
                f,
                "  not in the role: {what} ({n}, allowed by another binding)"
            )?;
        }
        for (r, n) in &self.refused {
            writeln!(
                f,
                "  REFUSED  {} ({n}x, e.g. {} in namespace {:?}): add {} to the reconciler",
                r.what(),
                if r.name.is_empty() { "a list" } else { &r.name },
                r.namespace,
                marker_for(r)
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROLE: &str = "\
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: manager-role
rules:
- apiGroups:
  - apps
  resources:
  - deployments
  verbs:
  - create
  - get
  - list
- apiGroups:
  - cache.example.com
  resources:
  - memcacheds/status
  verbs:
  - patch
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: manager-role
  namespace: system
rules:
- apiGroups:
  - coordination.k8s.io
  resources:
  - leases
  verbs:
  - get
";

    fn event(
        verb: &str,
        group: &str,
        resource: &str,
        sub: &str,
        code: u16,
        decision: &str,
    ) -> String {
        serde_json::json!({
            "kind": "Event", "stage": "ResponseComplete", "verb": verb,
            "user": {"username": "system:admin"},
            "impersonatedUser": {"username": "system:serviceaccount:t:controller-manager"},
            "objectRef": {"resource": resource, "apiGroup": group, "subresource": sub, "namespace": "t", "name": "x"},
            "requestURI": "/apis/x",
            "responseStatus": {"code": code},
            "annotations": {"authorization.k8s.io/decision": decision}
        })
        .to_string()
    }

    #[test]
    fn grants_are_counted_refusals_name_their_marker_and_unused_grants_are_listed() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("audit.log");
        let lines = [
            event("get", "apps", "deployments", "", 200, "allow"),
            event("get", "apps", "deployments", "", 200, "allow"),
            event(
                "patch",
                "cache.example.com",
                "memcacheds",
                "status",
                200,
                "allow",
            ),
            event("get", "coordination.k8s.io", "leases", "", 200, "allow"),
            event("patch", "apps", "deployments", "", 201, "allow"),
            event("create", "", "services", "", 403, "forbid"),
            "{not json".to_string(),
        ];
        std::fs::write(&log, lines.join("\n")).unwrap();
        let requests = read(&log, |u| u.ends_with(":controller-manager")).unwrap();
        assert_eq!(requests.len(), 6);
        let report = Report::new(&grants(ROLE).unwrap(), &requests);
        let text = report.to_string();
        assert!(
            text.contains("  used     get apps/deployments (all namespaces): 2 requests"),
            "{text}"
        );
        assert!(
            text.contains("  used     patch cache.example.com/memcacheds/status"),
            "{text}"
        );
        assert!(
            text.contains("  used     create apps/deployments (all namespaces): 1 request"),
            "an apply that created its object used the create grant: {text}"
        );
        assert!(
            text.contains(
                "  unused   list apps/deployments (all namespaces): granted, no test used it"
            ),
            "{text}"
        );
        assert!(
            text.contains("  REFUSED  create core/services (1x, e.g. x in namespace \"t\"): add #[rbac(groups = \"core\", resources = \"services\", verbs = \"create\")] to the reconciler"),
            "{text}"
        );
        assert_eq!(report.unused().count(), 1);

        // What came before a mark is another run's.
        let from = mark(&log);
        let more = format!(
            "\n{}\n",
            event("list", "apps", "deployments", "", 200, "allow")
        );
        std::fs::write(
            &log,
            format!("{}{more}", std::fs::read_to_string(&log).unwrap()),
        )
        .unwrap();
        let after = read_from(&log, from, |_| true).unwrap();
        assert_eq!(after.len(), 1);
        assert_eq!(after[0].verb, "list");
    }
}
