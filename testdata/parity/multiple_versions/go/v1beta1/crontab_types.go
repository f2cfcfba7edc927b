package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CronTabSpec is the desired schedule.
type CronTabSpec struct {
	// Schedule in cron syntax.
	Schedule string `json:"schedule"`
	// Image to run.
	Image string `json:"image"`
}

// CronTab runs a command on a schedule.
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=ct
// +kubebuilder:deprecatedversion:warning="versions.parity.example.com/v1beta1 CronTab is deprecated; use v1"
type CronTab struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec CronTabSpec `json:"spec"`
}
