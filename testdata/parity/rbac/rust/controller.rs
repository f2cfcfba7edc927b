//! RBAC markers in the situations of controller-gen's rbac testdata: duplicate and
//! overlapping rules, core and "", wildcards, resource names, non-resource URLs, namespaced
//! roles and a role of its own name.

#[rbac(groups = "apps", resources = "deployments", verbs = "get;list")]
#[rbac(groups = "apps", resources = "deployments", verbs = "watch;get")]
#[rbac(groups = "apps", resources = "statefulsets", verbs = "get;list;watch")]
#[rbac(groups = "apps", resources = "replicasets;daemonsets", verbs = "list")]
#[rbac(groups = "batch", resources = "jobs", verbs = "get;list;watch")]
#[rbac(groups = "batch;extensions", resources = "jobs/status", verbs = "get")]
#[rbac(groups = "core", resources = "pods", verbs = "get")]
#[rbac(groups = "", resources = "configmaps", verbs = "get")]
#[rbac(groups = "art", resources = "jobs", verbs = "*;get")]
#[rbac(groups = "apps", resources = "deployments", resource_names = "api;web", verbs = "update")]
#[rbac(urls = "/metrics", verbs = "get")]
#[rbac(urls = "/healthz;/readyz", verbs = "get")]
#[rbac(groups = "coordination.k8s.io", resources = "leases", verbs = "get;update", namespace = "zoo")]
#[rbac(groups = "coordination.k8s.io", resources = "leases", verbs = "create", namespace = "zoo")]
#[rbac(groups = "", resources = "secrets", verbs = "get", namespace = "park", role_name = "secret-reader")]
pub async fn reconcile() {}

mod nested {
    #[rbac(groups = "batch", resources = "cronjobs", verbs = "get;list;watch")]
    pub fn helper() {}
}
