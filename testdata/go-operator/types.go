package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The API of config/crd/bases/cache.example.com_memcacheds.yaml (the CRD is the Rust
// operator's; this is the part the tutorial's controller reads and writes). Hand-written, with
// hand-written deep copies, so no controller-gen run is needed to build this module.

var groupVersion = schema.GroupVersion{Group: "cache.example.com", Version: "v1alpha1"}

// MemcachedSpec is the desired state: how many memcached pods to run.
type MemcachedSpec struct {
	Size  int32  `json:"size"`
	Image string `json:"image,omitempty"`
}

// MemcachedStatus is the observed state, as conditions.
type MemcachedStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Nodes are the names of the Memcached's pods; only --same-work writes them.
	Nodes []string `json:"nodes,omitempty"`
}

// Memcached is one memcached deployment managed by this operator.
type Memcached struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   MemcachedSpec   `json:"spec,omitempty"`
	Status MemcachedStatus `json:"status,omitempty"`
}

// MemcachedList is a list of Memcacheds.
type MemcachedList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Memcached `json:"items"`
}

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(groupVersion, &Memcached{}, &MemcachedList{})
	metav1.AddToGroupVersion(s, groupVersion)
	return nil
}

// DeepCopyInto copies every field of the status, conditions included.
func (in *MemcachedStatus) DeepCopyInto(out *MemcachedStatus) {
	*out = *in
	if in.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(in.Conditions))
		for i := range in.Conditions {
			in.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
	if in.Nodes != nil {
		out.Nodes = append([]string(nil), in.Nodes...)
	}
}

// DeepCopyInto copies the whole object into out.
func (in *Memcached) DeepCopyInto(out *Memcached) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = in.Spec
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a new copy of the object.
func (in *Memcached) DeepCopy() *Memcached {
	if in == nil {
		return nil
	}
	out := new(Memcached)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (in *Memcached) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies the list and each item.
func (in *MemcachedList) DeepCopyInto(out *MemcachedList) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]Memcached, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a new copy of the list.
func (in *MemcachedList) DeepCopy() *MemcachedList {
	if in == nil {
		return nil
	}
	out := new(MemcachedList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (in *MemcachedList) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}
