use operator_derive::rbac;

#[rbac(groups = "apps", resources = "deployments")]
#[rbac(resources = "pods", verbs = "get")]
#[rbac(urls = "/metrics", verbs = "get", namespace = "ops")]
pub async fn reconcile() {}

#[rbac(groups = "", resources = "pods", verbs = "get")]
const NOT_A_FUNCTION: u8 = 0;

fn main() {}

#[rbac(urls = "/metrics", resources = "pods", groups = "", verbs = "get")]
#[rbac(group = "apps", resources = "deployments", verbs = "get")]
pub fn second() {}
