package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CronTabSpec is the desired schedule.
type CronTabSpec struct {
	// Schedule in cron syntax.
	Schedule string `json:"schedule"`
}

// CronTab runs a command on a schedule.
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=ct
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion
type CronTab struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec CronTabSpec `json:"spec"`
}
