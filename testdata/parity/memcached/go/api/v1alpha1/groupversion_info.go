// Package v1alpha1 holds the cache.example.com/v1alpha1 API, written in Go to
// mirror memcached/src/api/v1alpha1.rs for the controller-gen parity check.
// +kubebuilder:object:generate=true
// +groupName=cache.example.com
package v1alpha1
