package v1

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KnownSpec has one field per Kubernetes type of a selection from operator-gen's table,
// each named after its type and without a description of its own, so that its schema is
// the type's own.
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

// KnownBatchSpec holds the selection's types of batch/v1, in a kind of their own to keep
// each CRD well below the API server's size limit.
type KnownBatchSpec struct {
	// +optional
	JobTemplateSpec *batchv1.JobTemplateSpec `json:"jobTemplateSpec,omitempty"`
	// +optional
	CronJobSpec *batchv1.CronJobSpec `json:"cronJobSpec,omitempty"`
}

// KnownBatch carries the selection's batch/v1 types.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
type KnownBatch struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec KnownBatchSpec `json:"spec,omitempty"`
}

// KnownWorkloadSpec holds workload specs of apps/v1, each with a whole pod template.
type KnownWorkloadSpec struct {
	// +optional
	DeploymentSpec *appsv1.DeploymentSpec `json:"deploymentSpec,omitempty"`
	// +optional
	StatefulSetSpec *appsv1.StatefulSetSpec `json:"statefulSetSpec,omitempty"`
}

// KnownWorkload carries the selection's apps/v1 types.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
type KnownWorkload struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec KnownWorkloadSpec `json:"spec,omitempty"`
}

// KnownMiscSpec holds smaller types from several API groups.
type KnownMiscSpec struct {
	// +optional
	ServiceSpec *corev1.ServiceSpec `json:"serviceSpec,omitempty"`
	// +optional
	SecretReference *corev1.SecretReference `json:"secretReference,omitempty"`
	// +optional
	TypedLocalObjectReference *corev1.TypedLocalObjectReference `json:"typedLocalObjectReference,omitempty"`
	// +optional
	IngressSpec *networkingv1.IngressSpec `json:"ingressSpec,omitempty"`
	// +optional
	NetworkPolicySpec *networkingv1.NetworkPolicySpec `json:"networkPolicySpec,omitempty"`
	// +optional
	HorizontalPodAutoscalerSpec *autoscalingv2.HorizontalPodAutoscalerSpec `json:"horizontalPodAutoscalerSpec,omitempty"`
	// +optional
	PodDisruptionBudgetSpec *policyv1.PodDisruptionBudgetSpec `json:"podDisruptionBudgetSpec,omitempty"`
	// +optional
	Duration *metav1.Duration `json:"duration,omitempty"`
}

// KnownMisc carries the selection's smaller types.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
type KnownMisc struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec KnownMiscSpec `json:"spec,omitempty"`
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
