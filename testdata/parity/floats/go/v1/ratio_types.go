package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RatioSpec holds floating-point settings.
type RatioSpec struct {
	// Share of traffic, a fraction.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	Share float64 `json:"share"`

	// Step is a multiple of a quarter.
	// +kubebuilder:validation:MultipleOf=0.25
	// +optional
	Step float32 `json:"step,omitempty"`

	// Threshold above a half.
	// +kubebuilder:validation:Minimum=0.5
	// +kubebuilder:validation:ExclusiveMinimum=true
	// +kubebuilder:default=1.5
	// +optional
	Threshold *float64 `json:"threshold,omitempty"`

	// Weights are fractions.
	// +kubebuilder:validation:items:Maximum=2.5
	// +optional
	Weights []float64 `json:"weights,omitempty"`

	// Factors by name.
	// +optional
	Factors map[string]float32 `json:"factors,omitempty"`

	// Whole is an integer next to the floats.
	// +optional
	Whole int32 `json:"whole,omitempty"`
}

// Ratio exercises float fields.
// +kubebuilder:object:root=true
type Ratio struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec RatioSpec `json:"spec"`
}
