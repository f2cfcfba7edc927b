// Package v1 is the plurals case: kinds whose default plural is irregular, compound or odd,
// none of them with a path marker, so controller-gen names each resource itself.
// +groupName=plurals.parity.example.com
package v1
