// Package v1alpha1 is one version of the multiple-versions case.
// +groupName=versions.parity.example.com
package v1alpha1
