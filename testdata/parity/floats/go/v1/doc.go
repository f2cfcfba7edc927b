// Package v1 is the floats case: float fields, allowed only with allowDangerousTypes,
// with bounds, steps and defaults that are not whole numbers.
// +groupName=floats.parity.example.com
package v1
