// Package hooks: controller-gen: "unsupported webhook version: v1beta1".
package hooks

// +kubebuilder:webhook:path=/p,mutating=true,failurePolicy=fail,sideEffects=None,groups=example.com,resources=foos,verbs=create,versions=v1,name=mfoo.example.com,admissionReviewVersions=v1,webhookVersions=v1beta1

// Hooks is the type the markers are declared next to.
type Hooks struct{}
