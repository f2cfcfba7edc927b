// Package controller carries the RBAC markers of the memcached reconciler, mirroring the
// #[rbac] attributes on memcached/src/controller.rs.
package controller

// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds,verbs=list;watch;patch
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/status,verbs=patch
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/finalizers,verbs=update
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=list;watch;create;patch
// +kubebuilder:rbac:groups=core,resources=services,verbs=list;watch;create;patch
// +kubebuilder:rbac:groups=core,resources=pods,verbs=list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;create;patch,namespace=system,roleName=leader-election-role

// Reconcile is where the operator's work would go.
func Reconcile() {}
