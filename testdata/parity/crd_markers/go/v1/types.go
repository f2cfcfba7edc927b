package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PoolSpec is the desired pool.
type PoolSpec struct {
	// Replicas wanted.
	// +kubebuilder:validation:Minimum=0
	Replicas int32 `json:"replicas"`
	// Color of the pool, selectable with field selectors.
	// +optional
	Color string `json:"color,omitempty"`
}

// PoolStatus is the observed pool.
type PoolStatus struct {
	// Replicas running.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// Selector of the pods, for the scale subresource.
	// +optional
	Selector string `json:"selector,omitempty"`
	// Phase of the pool.
	// +optional
	Phase string `json:"phase,omitempty"`
}

// Pool is a scalable, namespaced kind with every CRD-level marker.
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=poolz,singular=pooly,shortName=pl;pz,categories=parity;all
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:printcolumn:name="Replicas",type="integer",JSONPath=".spec.replicas",description="Desired replicas",format="int32"
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase",priority=1
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:selectablefield:JSONPath=".spec.color"
// +kubebuilder:metadata:annotations="parity.example.com/owner=team-a",labels="parity.example.com/tier=gold"
// +kubebuilder:metadata:annotations="parity.example.com/reviewed=yes"
type Pool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   PoolSpec   `json:"spec"`
	Status PoolStatus `json:"status,omitempty"`
}

// Policy is cluster-scoped; its plural is irregular.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=rg
// +kubebuilder:externalDocs:url="https://example.com/docs/regions"
type Policy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Rules are opaque words.
	// +optional
	Rules []string `json:"rules,omitempty"`
}
