package v1beta1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Route sends traffic to a backend.
type Route struct {
	// Name identifies the route in the list.
	Name string `json:"name"`
	// Namespace of the backend.
	Namespace string `json:"namespace"`
	// Weight of the route.
	// +optional
	Weight int32 `json:"weight,omitempty"`
}

// Limits is replaced as a whole by server-side apply.
// +structType=atomic
type Limits struct {
	// CPU limit.
	// +optional
	CPU *resource.Quantity `json:"cpu,omitempty"`
	// Memory limit.
	// +optional
	Memory *resource.Quantity `json:"memory,omitempty"`
}

// MeshSpec holds topology and type-mapping fields.
type MeshSpec struct {
	// Routes are keyed by name and namespace.
	// +listType=map
	// +listMapKey=name
	// +listMapKey=namespace
	// +optional
	Routes []Route `json:"routes,omitempty"`

	// Hosts is a set.
	// +listType=set
	// +optional
	Hosts []string `json:"hosts,omitempty"`

	// Args are replaced as a whole.
	// +listType=atomic
	// +optional
	Args []string `json:"args,omitempty"`

	// Selector is replaced as a whole.
	// +mapType=atomic
	// +optional
	Selector map[string]string `json:"selector,omitempty"`

	// Annotations merge key by key.
	// +mapType=granular
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`

	// Limits of each member.
	// +optional
	Limits *Limits `json:"limits,omitempty"`

	// Config is kept as written.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +optional
	Config *runtime.RawExtension `json:"config,omitempty"`

	// Template is a whole Kubernetes object.
	// +kubebuilder:validation:EmbeddedResource
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Template runtime.RawExtension `json:"template,omitempty"`

	// Templates are whole Kubernetes objects.
	// +kubebuilder:validation:items:XEmbeddedResource
	// +kubebuilder:validation:items:XPreserveUnknownFields
	// +optional
	Templates []runtime.RawExtension `json:"templates,omitempty"`

	// Surges are numbers or percentages.
	// +kubebuilder:validation:items:XIntOrString
	// +kubebuilder:validation:items:Pattern=`^[0-9]+%?$`
	// +optional
	Surges []intstr.IntOrString `json:"surges,omitempty"`

	// Extra keeps unknown fields.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	// +optional
	Extra map[string]string `json:"extra,omitempty"`

	// Port is a number or a named port.
	// +optional
	Port intstr.IntOrString `json:"port,omitempty"`

	// MaxSurge is written as int-or-string explicitly.
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:Pattern=`^[0-9]+%?$`
	// +optional
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`

	// Memory is a resource quantity.
	// +optional
	Memory resource.Quantity `json:"memory,omitempty"`

	// StartedAt is a time.
	// +optional
	StartedAt metav1.Time `json:"startedAt,omitempty"`

	// Timeout is a duration.
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// Payload is base64 on the wire.
	// +optional
	Payload []byte `json:"payload,omitempty"`

	// Small is an 8-bit integer.
	// +optional
	Small int8 `json:"small,omitempty"`
	// Medium is a 16-bit integer.
	// +optional
	Medium int16 `json:"medium,omitempty"`
	// Count is a 32-bit integer.
	// +optional
	Count int32 `json:"count,omitempty"`
	// Total is a 64-bit integer.
	// +optional
	Total int64 `json:"total,omitempty"`
	// Unsigned is an unsigned 32-bit integer.
	// +optional
	Unsigned uint32 `json:"unsigned,omitempty"`
	// Big is an unsigned 64-bit integer.
	// +optional
	Big uint64 `json:"big,omitempty"`
	// Enabled is a flag.
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// Matrix is a list of lists.
	// +optional
	Matrix [][]int32 `json:"matrix,omitempty"`
	// Groups maps names to lists.
	// +optional
	Groups map[string][]string `json:"groups,omitempty"`
	// Nested maps names to maps.
	// +optional
	Nested map[string]map[string]int64 `json:"nested,omitempty"`
}

// MeshStatus is what the controller saw.
type MeshStatus struct {
	// Conditions of the mesh.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// ObservedAt is a precise time.
	// +optional
	ObservedAt *metav1.MicroTime `json:"observedAt,omitempty"`
}

// Mesh exercises list, map and struct topology and the Kubernetes types.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Mesh struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   MeshSpec   `json:"spec,omitempty"`
	Status MeshStatus `json:"status,omitempty"`
}
