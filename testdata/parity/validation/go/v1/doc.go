// Package v1 is the validation case: every value constraint on fields, on list items and
// on named types, CEL rules, immutability, one-of groups, defaults and external docs.
// +groupName=validation.parity.example.com
package v1
