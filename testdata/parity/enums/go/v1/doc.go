// Package v1 is the enums case: what Rust writes as enums with data, spelled the Go way
// with optional fields, property counts and CEL rules.
// +groupName=enums.parity.example.com
package v1
