package main

import (
	"context"
	"fmt"
	"os"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

const (
	// finalizerName is the tutorial's finalizer: it lets the operator record the deletion
	// before the object goes away.
	finalizerName = "cache.example.com/finalizer"

	conditionAvailable   = "Available"
	conditionProgressing = "Progressing"
	conditionDegraded    = "Degraded"

	// defaultImage is used when neither spec.image nor MEMCACHED_IMAGE names one.
	defaultImage = "memcached:1.6.26-alpine3.19"
)

// memcachedReconciler keeps one Deployment per Memcached at spec.size replicas and reports
// how that went in the Memcached's conditions, following the tutorial step by step.
type memcachedReconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder record.EventRecorder
	// SameWork adds the Rust operator's Service and status.nodes (samework.go).
	SameWork bool
}

func (r *memcachedReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)

	mc := &Memcached{}
	if err := r.Get(ctx, req.NamespacedName, mc); err != nil {
		if apierrors.IsNotFound(err) {
			// Deleted; the garbage collector removes what it owned.
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("reading the Memcached: %w", err)
	}

	// A new object first says that reconciliation has started.
	if len(mc.Status.Conditions) == 0 {
		meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{
			Type: conditionAvailable, Status: metav1.ConditionUnknown,
			Reason: "Reconciling", Message: "Starting reconciliation",
		})
		if err := r.Status().Update(ctx, mc); err != nil {
			return ctrl.Result{}, fmt.Errorf("updating the status: %w", err)
		}
		// Read it again so the next update carries the current resourceVersion.
		if err := r.Get(ctx, req.NamespacedName, mc); err != nil {
			return ctrl.Result{}, fmt.Errorf("re-reading the Memcached: %w", err)
		}
	}

	if !controllerutil.ContainsFinalizer(mc, finalizerName) {
		controllerutil.AddFinalizer(mc, finalizerName)
		if err := r.Update(ctx, mc); err != nil {
			return ctrl.Result{}, fmt.Errorf("adding the finalizer: %w", err)
		}
	}

	if mc.GetDeletionTimestamp() != nil {
		return r.finalize(ctx, req, mc)
	}

	deployment := &appsv1.Deployment{}
	err := r.Get(ctx, types.NamespacedName{Namespace: mc.Namespace, Name: mc.Name}, deployment)
	if apierrors.IsNotFound(err) {
		desired, err := r.deploymentFor(mc)
		if err != nil {
			r.setCondition(ctx, mc, conditionAvailable, metav1.ConditionFalse, "Reconciling",
				fmt.Sprintf("Cannot build the Deployment: %v", err))
			return ctrl.Result{}, err
		}
		log.Info("creating the Deployment", "name", desired.Name)
		if err := r.Create(ctx, desired); err != nil {
			return ctrl.Result{}, fmt.Errorf("creating the Deployment: %w", err)
		}
		r.setCondition(ctx, mc, conditionProgressing, metav1.ConditionTrue, "DeploymentCreated",
			"The Deployment was created")
		// As the tutorial: look again in a minute to make sure everything is in place.
		return ctrl.Result{RequeueAfter: time.Minute}, nil
	} else if err != nil {
		return ctrl.Result{}, fmt.Errorf("reading the Deployment: %w", err)
	}

	size := mc.Spec.Size
	if deployment.Spec.Replicas == nil || *deployment.Spec.Replicas != size {
		deployment.Spec.Replicas = ptr.To(size)
		if err := r.Update(ctx, deployment); err != nil {
			// Re-read the Memcached before writing its status, as the tutorial does.
			if err := r.Get(ctx, req.NamespacedName, mc); err != nil {
				return ctrl.Result{}, fmt.Errorf("re-reading the Memcached: %w", err)
			}
			r.setCondition(ctx, mc, conditionAvailable, metav1.ConditionFalse, "Resizing",
				fmt.Sprintf("Failed to resize the Deployment: %v", err))
			return ctrl.Result{}, fmt.Errorf("resizing the Deployment: %w", err)
		}
		if r.SameWork {
			// As ours: a resized Memcached is not Available until all spec.size pods are
			// ready, so it says so now (in the same write) and once they are (sameWorkStatus).
			meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{
				Type: conditionAvailable, Status: metav1.ConditionFalse, Reason: "Updating",
				Message: fmt.Sprintf("%d/%d pods are ready", deployment.Status.ReadyReplicas, size),
			})
		}
		r.setCondition(ctx, mc, conditionProgressing, metav1.ConditionTrue, "Resizing",
			fmt.Sprintf("Resized the Deployment to %d replicas", size))
		return ctrl.Result{RequeueAfter: time.Minute}, nil
	}

	if r.SameWork {
		if err := r.ensureService(ctx, mc); err != nil {
			return ctrl.Result{}, err
		}
		nodes, err := r.podNames(ctx, mc)
		if err != nil {
			return ctrl.Result{}, err
		}
		mc.Status.Nodes = nodes
		return r.sameWorkStatus(ctx, mc, deployment)
	}

	meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{
		Type: conditionProgressing, Status: metav1.ConditionFalse,
		Reason: "Reconciled", Message: "The Deployment has the requested size",
	})
	meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{
		Type: conditionAvailable, Status: metav1.ConditionTrue, Reason: "Reconciling",
		Message: fmt.Sprintf("Deployment for %s with %d replicas created successfully", mc.Name, size),
	})
	if err := r.Status().Update(ctx, mc); err != nil {
		return ctrl.Result{}, fmt.Errorf("updating the status: %w", err)
	}
	return ctrl.Result{}, nil
}

// finalize records the deletion (Degraded condition, Warning event), then lets it proceed.
func (r *memcachedReconciler) finalize(ctx context.Context, req ctrl.Request, mc *Memcached) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(mc, finalizerName) {
		return ctrl.Result{}, nil
	}
	meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{
		Type: conditionDegraded, Status: metav1.ConditionUnknown, Reason: "Finalizing",
		Message: "Performing finalizer operations",
	})
	if err := r.Status().Update(ctx, mc); err != nil {
		return ctrl.Result{}, fmt.Errorf("updating the status: %w", err)
	}

	// The tutorial's "finalizer operations": only an event; the Deployment is garbage
	// collected through its owner reference.
	r.Recorder.Event(mc, corev1.EventTypeWarning, "Deleting",
		fmt.Sprintf("Memcached %s is being deleted from namespace %s", mc.Name, mc.Namespace))

	if err := r.Get(ctx, req.NamespacedName, mc); err != nil {
		return ctrl.Result{}, fmt.Errorf("re-reading the Memcached: %w", err)
	}
	meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{
		Type: conditionDegraded, Status: metav1.ConditionTrue, Reason: "Finalizing",
		Message: "Finalizer operations done",
	})
	if err := r.Status().Update(ctx, mc); err != nil {
		return ctrl.Result{}, fmt.Errorf("updating the status: %w", err)
	}
	if controllerutil.RemoveFinalizer(mc, finalizerName) {
		if err := r.Update(ctx, mc); err != nil {
			return ctrl.Result{}, fmt.Errorf("removing the finalizer: %w", err)
		}
	}
	return ctrl.Result{}, nil
}

// setCondition sets one condition and writes the status, logging (not returning) a failure,
// as the tutorial does on its error paths.
func (r *memcachedReconciler) setCondition(ctx context.Context, mc *Memcached, kind string,
	status metav1.ConditionStatus, reason, message string) {
	meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{
		Type: kind, Status: status, Reason: reason, Message: message,
	})
	if err := r.Status().Update(ctx, mc); err != nil {
		logf.FromContext(ctx).Error(err, "updating the status", "condition", kind)
	}
}

// deploymentFor is the tutorial's Deployment: spec.size memcached pods, restricted security
// context, owned by the Memcached.
func (r *memcachedReconciler) deploymentFor(mc *Memcached) (*appsv1.Deployment, error) {
	labels := labelsFor(mc)
	image := mc.Spec.Image
	if image == "" {
		image = os.Getenv("MEMCACHED_IMAGE")
	}
	if image == "" {
		image = defaultImage
	}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: mc.Name, Namespace: mc.Namespace},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(mc.Spec.Size),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr.To(true),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{{
						Name:            "memcached",
						Image:           image,
						ImagePullPolicy: corev1.PullIfNotPresent,
						SecurityContext: &corev1.SecurityContext{
							RunAsNonRoot:             ptr.To(true),
							RunAsUser:                ptr.To(int64(1001)),
							AllowPrivilegeEscalation: ptr.To(false),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
						Ports:   []corev1.ContainerPort{{ContainerPort: 11211, Name: "memcached"}},
						Command: []string{"memcached", "--memory-limit=64", "-o", "modern", "-v"},
					}},
				},
			},
		},
	}
	if err := ctrl.SetControllerReference(mc, d, r.Scheme); err != nil {
		return nil, err
	}
	return d, nil
}

// setupWithManager watches Memcacheds and the Deployments they own.
func (r *memcachedReconciler) setupWithManager(mgr ctrl.Manager, concurrency int) error {
	b := ctrl.NewControllerManagedBy(mgr).
		For(&Memcached{}).
		Owns(&appsv1.Deployment{})
	if r.SameWork {
		b = sameWorkWatches(b)
	}
	return b.
		Named("memcached").
		WithOptions(controller.Options{MaxConcurrentReconciles: concurrency}).
		Complete(r)
}
