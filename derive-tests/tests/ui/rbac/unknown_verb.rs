use operator_derive::rbac;

#[rbac(groups = "apps", resources = "deployments", verbs = "get;lsit;watch")]
pub async fn reconcile() {}

fn main() {}
