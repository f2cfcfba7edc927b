package main

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
// (owned, cached as metadata) and status.nodes, the names of its pods (a metadata-only pod
// watch mapped back to the Memcached by its instance label). The bench then compares the two
// runtimes on the same work.

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
