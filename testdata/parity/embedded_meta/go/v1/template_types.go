package v1

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AccountTemplate is what the operator's service accounts are made from.
type AccountTemplate struct {
	// Metadata carries the account's labels and annotations (an IAM role, say).
	// +optional
	Metadata metav1.ObjectMeta `json:"metadata,omitempty"`
}

// StampSpec holds templates with metadata in them.
type StampSpec struct {
	// Account is a template of the API's own.
	// +optional
	Account *AccountTemplate `json:"account,omitempty"`

	// Pod is a pod template.
	// +optional
	Pod *corev1.PodTemplateSpec `json:"pod,omitempty"`

	// Claims are volume claim templates.
	// +optional
	Claims []corev1.PersistentVolumeClaimTemplate `json:"claims,omitempty"`

	// Job is a job template, with a pod template inside it.
	// +optional
	Job *batchv1.JobTemplateSpec `json:"job,omitempty"`

	// Scratch is a volume, whose ephemeral claim template has metadata.
	// +optional
	Scratch *corev1.Volume `json:"scratch,omitempty"`
}

// Stamp exercises embedded metadata.
// +kubebuilder:object:root=true
type Stamp struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec StampSpec `json:"spec"`
}
