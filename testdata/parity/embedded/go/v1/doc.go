// Package v1 is the embedded case: whole Kubernetes objects from k8s.io/api inside a
// custom resource, with their upstream schemas and descriptions. The Known* kinds have one
// field per type, named after it and without a doc of its own, so that their schemas are
// the types' own: this case checks a selection of the table operator-gen keeps of these
// schemas (`cargo xtask known-types` writes it) against controller-gen.
// +groupName=embedded.parity.example.com
package v1
