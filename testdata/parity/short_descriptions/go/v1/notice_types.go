package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NoticeSpec is what the notice says. The rest of this sentence runs well past the limit.
type NoticeSpec struct {
	// Short fits.
	Short string `json:"short"`

	// Sentence ends early. Then this second sentence goes on past the limit of the case.
	// +optional
	Sentence string `json:"sentence,omitempty"`

	// Words only, no sentence end anywhere within the first forty bytes of this text
	// +optional
	Words string `json:"words,omitempty"`

	// Supercalifragilisticexpialidociousandthensomemorelettersbeyondthelimit
	// +optional
	Word string `json:"word,omitempty"`

	// Lines are kept apart.
	// A second line, and a third
	// line that goes past the limit.
	// +optional
	Lines string `json:"lines,omitempty"`

	// Target names a place; its own description is long enough to be cut as well.
	// +optional
	Target *Target `json:"target,omitempty"`
}

// Target is a place described at some length, longer than the limit.
type Target struct {
	// Host of the place, which is described at a length that is cut.
	Host string `json:"host"`
}

// NoticeStatus carries conditions, whose upstream descriptions are cut too.
type NoticeStatus struct {
	// Conditions of the notice.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Notice exercises maxDescLen.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Notice struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   NoticeSpec   `json:"spec"`
	Status NoticeStatus `json:"status,omitempty"`
}
