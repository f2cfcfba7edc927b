// Package v1 is the CRD-markers case: resource names, scope, short names and categories,
// print columns, status and scale subresources, selectable fields and CRD metadata, on a
// namespaced and a cluster-scoped kind.
// +groupName=crds.parity.example.com
package v1
