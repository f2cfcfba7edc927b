package v1

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KnownSpec has one field per Kubernetes type operator-gen knows, each named after its
// type and without a description of its own.
type KnownSpec struct {
	// +optional
	PodTemplateSpec *corev1.PodTemplateSpec `json:"podTemplateSpec,omitempty"`
	// +optional
	PodSpec *corev1.PodSpec `json:"podSpec,omitempty"`
	// +optional
	Container *corev1.Container `json:"container,omitempty"`
	// +optional
	ContainerPort *corev1.ContainerPort `json:"containerPort,omitempty"`
	// +optional
	EnvVar *corev1.EnvVar `json:"envVar,omitempty"`
	// +optional
	EnvFromSource *corev1.EnvFromSource `json:"envFromSource,omitempty"`
	// +optional
	ResourceRequirements *corev1.ResourceRequirements `json:"resourceRequirements,omitempty"`
	// +optional
	Volume *corev1.Volume `json:"volume,omitempty"`
	// +optional
	VolumeMount *corev1.VolumeMount `json:"volumeMount,omitempty"`
	// +optional
	Toleration *corev1.Toleration `json:"toleration,omitempty"`
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`
	// +optional
	TopologySpreadConstraint *corev1.TopologySpreadConstraint `json:"topologySpreadConstraint,omitempty"`
	// +optional
	LocalObjectReference *corev1.LocalObjectReference `json:"localObjectReference,omitempty"`
	// +optional
	ObjectReference *corev1.ObjectReference `json:"objectReference,omitempty"`
	// +optional
	SecretKeySelector *corev1.SecretKeySelector `json:"secretKeySelector,omitempty"`
	// +optional
	ConfigMapKeySelector *corev1.ConfigMapKeySelector `json:"configMapKeySelector,omitempty"`
	// +optional
	SecurityContext *corev1.SecurityContext `json:"securityContext,omitempty"`
	// +optional
	PodSecurityContext *corev1.PodSecurityContext `json:"podSecurityContext,omitempty"`
	// +optional
	Probe *corev1.Probe `json:"probe,omitempty"`
	// +optional
	ServicePort *corev1.ServicePort `json:"servicePort,omitempty"`
	// +optional
	PersistentVolumeClaimSpec *corev1.PersistentVolumeClaimSpec `json:"persistentVolumeClaimSpec,omitempty"`
	// +optional
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
}

// Known carries the table of Kubernetes types.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
type Known struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec KnownSpec `json:"spec,omitempty"`
}

// KnownBatchSpec holds the table's types of batch/v1, in a kind of their own to keep each
// CRD well below the API server's size limit.
type KnownBatchSpec struct {
	// +optional
	JobTemplateSpec *batchv1.JobTemplateSpec `json:"jobTemplateSpec,omitempty"`
}

// KnownBatch carries the table's batch/v1 types.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
type KnownBatch struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec KnownBatchSpec `json:"spec,omitempty"`
}

// WorkloadSpec uses Kubernetes objects the way an operator's API does.
type WorkloadSpec struct {
	// Template of the pods the workload runs.
	Template corev1.PodTemplateSpec `json:"template"`

	// Resources of the sidecar.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`

	// Selector of the pods, replaced as a whole.
	// +optional
	// +structType=atomic
	Selector *metav1.LabelSelector `json:"selector,omitempty"`

	// Env for every container.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=8
	Env []corev1.EnvVar `json:"env,omitempty"`

	// Tolerations of the pods.
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// CredentialsRef names a secret key.
	// +optional
	CredentialsRef *corev1.SecretKeySelector `json:"credentialsRef,omitempty"`
}

// Workload runs pods from an embedded template.
// +kubebuilder:object:root=true
type Workload struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WorkloadSpec `json:"spec"`
}
