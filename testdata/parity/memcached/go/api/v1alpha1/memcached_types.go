package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MemcachedSpec defines the desired state of Memcached.
type MemcachedSpec struct {
	// Size is the number of memcached pods the operator keeps running.
	// Scaling to zero keeps the Deployment but runs no pods.
	// +kubebuilder:validation:Minimum=0
	Size int32 `json:"size"`

	// Image is the memcached container image. Left out, the operator's
	// defaulting webhook sets the image the operator is configured with.
	// +kubebuilder:validation:MinLength=1
	// +optional
	Image *string `json:"image,omitempty"`
}

// MemcachedStatus defines the observed state of Memcached.
type MemcachedStatus struct {
	// Nodes are the names of the memcached pods, sorted.
	// +optional
	Nodes []string `json:"nodes,omitempty"`

	// Conditions tell how the Memcached is doing. Known types are
	// Available, Progressing and Degraded.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Memcached is the Schema for the memcacheds API.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=mc;memc,categories=all
// +kubebuilder:printcolumn:name="Size",type="integer",JSONPath=".spec.size",description="Desired number of pods"
// +kubebuilder:printcolumn:name="Available",type="string",JSONPath=".status.conditions[?(@.type==\"Available\")].status"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
type Memcached struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   MemcachedSpec   `json:"spec"`
	Status MemcachedStatus `json:"status,omitempty"`
}
