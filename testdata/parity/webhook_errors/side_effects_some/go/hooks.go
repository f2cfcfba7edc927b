// Package hooks: controller-gen: sideEffects should not be `Some`.
package hooks

// +kubebuilder:webhook:path=/p,mutating=true,failurePolicy=fail,sideEffects=Some,groups=example.com,resources=foos,verbs=create,versions=v1,name=mfoo.example.com,admissionReviewVersions=v1

// Hooks is the type the markers are declared next to.
type Hooks struct{}
