package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CronTabSpec is the desired schedule.
type CronTabSpec struct {
	// Schedule in cron syntax.
	Schedule string `json:"schedule"`
	// Image to run.
	// +kubebuilder:validation:MinLength=1
	Image string `json:"image"`
	// Replicas of the job.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
}

// CronTab runs a command on a schedule.
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=ct
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Schedule",type="string",JSONPath=".spec.schedule"
type CronTab struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec CronTabSpec `json:"spec"`
}
