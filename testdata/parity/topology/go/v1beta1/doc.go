// Package v1beta1 is the topology case: list, map and struct topology, schemaless and
// embedded fields, int-or-string, preserve-unknown-fields, integer widths, byte strings and
// the Kubernetes types from apimachinery.
// +groupName=topology.parity.example.com
package v1beta1
