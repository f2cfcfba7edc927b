// Package hooks: controller-gen writes the operation Patch; the API server refuses it.
package hooks

// +kubebuilder:webhook:path=/p,mutating=true,failurePolicy=fail,sideEffects=None,groups=example.com,resources=foos,verbs=create;Patch,versions=v1,name=mfoo.example.com,admissionReviewVersions=v1

// Hooks is the type the markers are declared next to.
type Hooks struct{}
