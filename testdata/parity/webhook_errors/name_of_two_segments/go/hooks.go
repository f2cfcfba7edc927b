// Package hooks: controller-gen writes it; the API server wants three segments.
package hooks

// +kubebuilder:webhook:path=/p,mutating=true,failurePolicy=fail,sideEffects=None,groups=example.com,resources=foos,verbs=create,versions=v1,name=mfoo.io,admissionReviewVersions=v1

// Hooks is the type the markers are declared next to.
type Hooks struct{}
