// Package v1 is the short-descriptions case: descriptions cut at a sentence end, at a
// space, in the middle of a long word, or left alone when short enough.
// +groupName=short.parity.example.com
package v1
