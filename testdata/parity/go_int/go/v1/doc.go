// Package v1 is the go_int case: Go's platform-sized int, which controller-gen writes as a
// bare integer, and its Rust spelling isize.
// +groupName=goint.parity.example.com
package v1
