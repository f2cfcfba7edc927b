#[rbac(groups = "apps", resources = "deployments", verbs = "get;lst")]
#[rbac(groups = "apps", resources = "deployments")]
#[rbac(resources = "pods", verbs = "get")]
#[rbac(urls = "/metrics", resources = "pods", groups = "", verbs = "get")]
#[rbac(urls = "/metrics", verbs = "get", namespace = "ops")]
#[rbac(group = "apps", resources = "deployments", verbs = "get")]
pub async fn reconcile() {}
