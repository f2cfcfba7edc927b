package main

import (
	"context"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// With --same-work the operator also does what the Rust operator does beyond the tutorial,
// the way a controller-runtime author would: a Service in front of each Memcached's pods
// (owned, cached as metadata), status.nodes, the names of its pods (a metadata-only pod
// watch mapped back to the Memcached by its instance label), and the Rust operator's meaning
// of Available: all spec.size pods ready, not merely the Deployment resized. The bench then
// compares the two runtimes on the same work.

const (
	instanceLabel  = "app.kubernetes.io/instance"
	managedByLabel = "app.kubernetes.io/managed-by"
	managedBy      = "go-memcached-operator"
)

// labelsFor are the labels of a Memcached's Deployment, pods and Service.
func labelsFor(mc *Memcached) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name": "go-memcached",
		instanceLabel:            mc.Name,
		managedByLabel:           managedBy,
	}
}

// ensureService creates the Memcached's Service if its cache does not hold one.
func (r *memcachedReconciler) ensureService(ctx context.Context, mc *Memcached) error {
	existing := &metav1.PartialObjectMetadata{}
	existing.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Service"))
	err := r.Get(ctx, types.NamespacedName{Namespace: mc.Namespace, Name: mc.Name}, existing)
	if err == nil {
		return nil
	}
	if !apierrors.IsNotFound(err) {
		return fmt.Errorf("reading the Service: %w", err)
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: mc.Name, Namespace: mc.Namespace, Labels: labelsFor(mc)},
		Spec: corev1.ServiceSpec{
			Selector: labelsFor(mc),
			Ports: []corev1.ServicePort{{
				Name: "memcached", Port: 11211, Protocol: corev1.ProtocolTCP,
				TargetPort: intstr.FromString("memcached"),
			}},
		},
	}
	if err := ctrl.SetControllerReference(mc, svc, r.Scheme); err != nil {
		return err
	}
	if err := r.Create(ctx, svc); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the Service: %w", err)
	}
	return nil
}

// podNames are the names of the Memcached's pods that are not being deleted, sorted.
func (r *memcachedReconciler) podNames(ctx context.Context, mc *Memcached) ([]string, error) {
	pods := &metav1.PartialObjectMetadataList{}
	pods.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PodList"))
	if err := r.List(ctx, pods, client.InNamespace(mc.Namespace),
		client.MatchingLabels{instanceLabel: mc.Name, managedByLabel: managedBy}); err != nil {
		return nil, fmt.Errorf("listing the pods: %w", err)
	}
	var names []string
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			names = append(names, p.Name)
		}
	}
	slices.Sort(names)
	return names, nil
}

// memcachedOfPod maps one of our pods to its Memcached.
func memcachedOfPod(_ context.Context, obj client.Object) []reconcile.Request {
	l := obj.GetLabels()
	if l[managedByLabel] != managedBy || l[instanceLabel] == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{
		Namespace: obj.GetNamespace(), Name: l[instanceLabel],
	}}}
}

// sameWorkWatches adds the Service and pod watches to the controller.
func sameWorkWatches(b *builder.Builder) *builder.Builder {
	return b.
		Owns(&corev1.Service{}, builder.OnlyMetadata).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(memcachedOfPod), builder.OnlyMetadata)
}

// sameWorkStatus writes the status as the Rust operator computes it: Available when every
// one of spec.size pods is ready, Progressing until the Deployment runs them all.
func (r *memcachedReconciler) sameWorkStatus(ctx context.Context, mc *Memcached,
	d *appsv1.Deployment) (ctrl.Result, error) {
	size := mc.Spec.Size
	ready := d.Status.ReadyReplicas
	done := d.Status.ObservedGeneration >= d.Generation && ready == size &&
		d.Status.UpdatedReplicas == size && d.Status.Replicas == size
	message := fmt.Sprintf("%d/%d pods are ready", ready, size)
	available := metav1.Condition{Type: conditionAvailable, Status: metav1.ConditionTrue,
		Reason: "Ready", Message: message}
	if ready != size {
		available.Status, available.Reason = metav1.ConditionFalse, "Unavailable"
	}
	progressing := metav1.Condition{Type: conditionProgressing, Status: metav1.ConditionFalse,
		Reason: "Complete", Message: fmt.Sprintf("the Deployment runs %d ready pods", size)}
	if !done {
		progressing.Status, progressing.Reason = metav1.ConditionTrue, "Scaling"
		progressing.Message = fmt.Sprintf("scaling the Deployment to %d pods (%d ready)", size, ready)
	}
	meta.SetStatusCondition(&mc.Status.Conditions, available)
	meta.SetStatusCondition(&mc.Status.Conditions, progressing)
	if err := r.Status().Update(ctx, mc); err != nil {
		return ctrl.Result{}, fmt.Errorf("updating the status: %w", err)
	}
	return ctrl.Result{}, nil
}
