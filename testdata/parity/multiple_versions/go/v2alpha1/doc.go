// Package v2alpha1 is one version of the multiple-versions case.
// +groupName=versions.parity.example.com
package v2alpha1
