// Package hooks: controller-gen: missing argument "admissionReviewVersions".
package hooks

// +kubebuilder:webhook:path=/p,mutating=true,failurePolicy=fail,sideEffects=None,groups=example.com,resources=foos,verbs=create,versions=v1,name=mfoo.example.com

// Hooks is the type the markers are declared next to.
type Hooks struct{}
