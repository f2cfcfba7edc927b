// Package v1 is the embedded case: whole Kubernetes objects from k8s.io/api inside a
// custom resource, with their upstream schemas and descriptions. The fields of KnownSpec
// named after a type, without docs of their own, are also where `cargo xtask known-types`
// reads the table operator-gen keeps of these schemas.
// +groupName=embedded.parity.example.com
package v1
