// Package controller carries RBAC markers in the situations of controller-gen's rbac
// testdata: duplicate and overlapping rules, core and "", wildcards, resource names,
// non-resource URLs, namespaced roles and a role of its own name.
package controller

// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=watch;get
// +kubebuilder:rbac:groups=apps,resources=statefulsets,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=replicasets;daemonsets,verbs=list
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch
// +kubebuilder:rbac:groups=batch;extensions,resources=jobs/status,verbs=get
// +kubebuilder:rbac:groups=core,resources=pods,verbs=get
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get
// +kubebuilder:rbac:groups=art,resources=jobs,verbs=*;get
// +kubebuilder:rbac:groups=apps,resources=deployments,resourceNames=api;web,verbs=update
// +kubebuilder:rbac:urls=/metrics,verbs=get
// +kubebuilder:rbac:urls=/healthz;/readyz,verbs=get
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;update,namespace=zoo
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=create,namespace=zoo
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get,namespace=park,roleName=secret-reader
// +kubebuilder:rbac:groups=batch,resources=cronjobs,verbs=get;list;watch

// Reconcile is where the work would go.
func Reconcile() {}
