package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Port is a TCP port number; its bounds hold wherever the type is used.
// +kubebuilder:validation:Minimum=1
// +kubebuilder:validation:Maximum=65535
type Port int32

// Tier names a service level.
// +kubebuilder:validation:Enum=Gold;Silver;Bronze
type Tier string

// Endpoint is where a gauge reads from.
// +kubebuilder:validation:XValidation:rule="self.host != 'localhost'",message="use a routable host"
// +kubebuilder:externalDocs:url="https://example.com/docs/endpoint",description="How endpoints are read"
type Endpoint struct {
	// Host is a DNS name.
	// +kubebuilder:validation:MaxLength=253
	Host string `json:"host"`
	// Port on the host.
	// +optional
	Port Port `json:"port,omitempty"`
}

// Window is a sampling window.
type Window struct {
	// Seconds in the window.
	// +kubebuilder:validation:Minimum=1
	Seconds int32 `json:"seconds"`
	// Mode of aggregation.
	// +optional
	Mode string `json:"mode,omitempty"`
}

// GaugeSpec holds the constrained fields.
// +kubebuilder:validation:XValidation:rule="self.low < self.high",message="low must be below high",reason=FieldValueForbidden,fieldPath=".low"
// +kubebuilder:validation:ExactlyOneOf=byName;byLabel
// +kubebuilder:validation:AtMostOneOf=paused;suspended
// +kubebuilder:validation:AtLeastOneOf=owner;team
// +kubebuilder:validation:MinProperties=3
type GaugeSpec struct {
	// Low bound, exclusive.
	// +kubebuilder:validation:Minimum=-10
	// +kubebuilder:validation:ExclusiveMinimum=true
	Low int64 `json:"low"`

	// High bound, exclusive.
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:validation:ExclusiveMaximum=true
	High int64 `json:"high"`

	// Step is a multiple of five; the bound is inclusive, said explicitly.
	// +kubebuilder:validation:MultipleOf=5
	// +kubebuilder:validation:Maximum=1000
	// +kubebuilder:validation:ExclusiveMaximum=false
	// +optional
	Step int32 `json:"step,omitempty"`

	// Name is a DNS label.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +k8s:immutable
	Name string `json:"name"`

	// Mode is one of the known modes.
	// +kubebuilder:validation:Enum=Fast;Safe
	// +k8s:immutable
	// +optional
	Mode string `json:"mode,omitempty"`

	// Tier of service.
	// +optional
	Tier Tier `json:"tier,omitempty"`

	// Tags are lower-case words, at most eight, no duplicates.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +listType=set
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:Pattern=`^[a-z]+$`
	// +kubebuilder:validation:items:XValidation:rule="self != 'none'",message="none is reserved"
	// +optional
	Tags []string `json:"tags,omitempty"`

	// Weights are small numbers.
	// +kubebuilder:validation:items:Minimum=0
	// +kubebuilder:validation:items:Maximum=10
	// +kubebuilder:validation:items:Enum=0;5;10
	// +optional
	Weights []int32 `json:"weights,omitempty"`

	// Labels has one to four entries.
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=4
	// +k8s:immutable
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// NotBefore is an RFC 3339 time.
	// +kubebuilder:validation:Format=date-time
	// +optional
	NotBefore string `json:"notBefore,omitempty"`

	// Count is written as a string on the wire.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^[0-9]+$`
	// +optional
	Count string `json:"count,omitempty"`

	// Port is the main port.
	Port Port `json:"port"`

	// AdminPort documents itself; the field doc wins over the type doc.
	// +kubebuilder:validation:Maximum=1024
	// +optional
	AdminPort Port `json:"adminPort,omitempty"`

	// Replicas is required although it is a pointer.
	// +kubebuilder:validation:Required
	Replicas *int32 `json:"replicas,omitempty"`

	// Workers defaults to three.
	// +kubebuilder:default=3
	// +kubebuilder:example=5
	// +optional
	Workers int32 `json:"workers,omitempty"`

	// Zones defaults to two zones.
	// +kubebuilder:default={"a","b"}
	// +kubebuilder:title=Zones
	// +nullable
	// +optional
	Zones []string `json:"zones,omitempty"`

	// Window defaults to a whole object.
	// +kubebuilder:default={seconds: 60, mode: "avg"}
	// +optional
	Window *Window `json:"window,omitempty"`

	// Source is read from.
	// +kubebuilder:externalDocs:url="https://example.com/docs/source"
	// +k8s:immutable
	// +optional
	Source *Endpoint `json:"source,omitempty"`

	// Limit may only grow.
	// +kubebuilder:validation:XValidation:rule="!oldSelf.hasValue() || self >= oldSelf.value()",optionalOldSelf=true,message="limit may only grow"
	// +kubebuilder:validation:XValidation:rule="self <= 1000",messageExpression="'limit ' + (self > 5000 ? 'far ' : '') + 'above 1000'"
	// +optional
	Limit int32 `json:"limit,omitempty"`

	// ByName selects by name.
	// +optional
	ByName string `json:"byName,omitempty"`
	// ByLabel selects by label.
	// +optional
	ByLabel string `json:"byLabel,omitempty"`
	// Paused stops sampling.
	// +optional
	Paused *bool `json:"paused,omitempty"`
	// Suspended stops everything.
	// +optional
	Suspended *bool `json:"suspended,omitempty"`
	// Owner is a person.
	// +optional
	Owner string `json:"owner,omitempty"`
	// Team is a group of people.
	// +optional
	Team string `json:"team,omitempty"`
}

// GaugeStatus is what the controller saw.
type GaugeStatus struct {
	// Value last read.
	// +optional
	Value int64 `json:"value,omitempty"`
}

// Gauge exercises the validation markers.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Gauge struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GaugeSpec   `json:"spec"`
	Status GaugeStatus `json:"status,omitempty"`
}
