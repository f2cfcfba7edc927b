package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CounterSpec counts things with Go's int.
type CounterSpec struct {
	// Replicas is a plain int.
	Replicas int `json:"replicas"`

	// Limit is an int with bounds.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	Limit *int `json:"limit,omitempty"`

	// Steps are ints in a list.
	// +kubebuilder:validation:items:Minimum=0
	// +optional
	Steps []int `json:"steps,omitempty"`

	// Quotas are ints by name.
	// +optional
	Quotas map[string]int `json:"quotas,omitempty"`

	// Retries defaults to three.
	// +kubebuilder:default=3
	// +optional
	Retries int `json:"retries,omitempty"`

	// Wide is an int64 beside them, which keeps its format.
	// +optional
	Wide int64 `json:"wide,omitempty"`
}

// CounterStatus reports counts.
type CounterStatus struct {
	// Seen is how many were seen.
	// +optional
	Seen int `json:"seen,omitempty"`
}

// Counter exercises Go's int.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Counter struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   CounterSpec   `json:"spec"`
	Status CounterStatus `json:"status,omitempty"`
}
