// Package hooks: controller-gen writes failurePolicy: Sometimes; the API server refuses it.
package hooks

// +kubebuilder:webhook:path=/p,mutating=true,failurePolicy=Sometimes,sideEffects=None,groups=example.com,resources=foos,verbs=create,versions=v1,name=mfoo.example.com,admissionReviewVersions=v1

// Hooks is the type the markers are declared next to.
type Hooks struct{}
