// Package v1 is the embedded_meta case: ObjectMeta below the root (a field of the API's
// own, and inside Kubernetes types), with controller-gen's generateEmbeddedObjectMeta.
// +groupName=embeddedmeta.parity.example.com
package v1
