package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GitSource is a repository.
type GitSource struct {
	// URL of the repository.
	// +kubebuilder:validation:MinLength=1
	URL string `json:"url"`
	// Revision to check out.
	// +optional
	Revision string `json:"revision,omitempty"`
}

// InlineText holds content in full (its variant renames its fields to upper case).
type InlineText struct {
	// Text of the content.
	Text string `json:"TEXT"`
}

// Source says where the content comes from: exactly one of git, image or inline.
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:validation:MaxProperties=1
type Source struct {
	// Git fetches a repository.
	// +optional
	Git *GitSource `json:"git,omitempty"`
	// Image pulls an image by reference.
	// +optional
	Image *string `json:"image,omitempty"`
	// InlineText is written out in full.
	// +optional
	InlineText *InlineText `json:"inlineText,omitempty"`
}

// Trigger starts a run: on a schedule, on a webhook, or by hand.
// +kubebuilder:validation:XValidation:rule="self.kind != 'Schedule' || (has(self.cron))",message="kind Schedule needs cron"
// +kubebuilder:validation:XValidation:rule="self.kind != 'Webhook' || (has(self.path))",message="kind Webhook needs path"
type Trigger struct {
	// +kubebuilder:validation:Enum=Schedule;Webhook;Manual
	Kind string `json:"kind"`
	// Cron expression.
	// +optional
	Cron string `json:"cron,omitempty"`
	// Time zone name.
	// +optional
	TimeZone string `json:"timeZone,omitempty"`
	// Path the webhook listens on.
	// +optional
	Path string `json:"path,omitempty"`
}

type RetryParams struct {
	// Limit of attempts.
	// +kubebuilder:validation:Minimum=1
	// +optional
	Limit int32 `json:"limit,omitempty"`
}

// Retry is how failures are retried.
// +kubebuilder:validation:XValidation:rule="self.policy != 'Never' || (!has(self.params))",message="policy Never takes no params"
// +kubebuilder:validation:XValidation:rule="self.policy != 'Backoff' || (has(self.params) && has(self.params.limit))",message="policy Backoff needs params with limit"
type Retry struct {
	// +kubebuilder:validation:Enum=Never;Backoff
	Policy string `json:"policy"`
	// +optional
	Params *RetryParams `json:"params,omitempty"`
}

// Target is a pod or a service, told apart by their fields.
// +kubebuilder:validation:XValidation:rule="(has(self.pod)) || (has(self.service))",message="must be one of the forms of Target: with pod, or with service"
type Target struct {
	// Pod name.
	// +optional
	Pod string `json:"pod,omitempty"`
	// Service name.
	// +optional
	Service string `json:"service,omitempty"`
	// Port of the service.
	// +optional
	Port int32 `json:"port,omitempty"`
}

// PipelineSpec uses an enum of each representation.
type PipelineSpec struct {
	// Source of the content.
	Source Source `json:"source"`
	// Trigger of the runs.
	Trigger Trigger `json:"trigger"`
	// Retry of failed runs.
	// +optional
	Retry *Retry `json:"retry,omitempty"`
	// Target of the runs.
	// +optional
	Target *Target `json:"target,omitempty"`
}

// Pipeline exercises data-carrying enums.
// +kubebuilder:object:root=true
type Pipeline struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec PipelineSpec `json:"spec"`
}
