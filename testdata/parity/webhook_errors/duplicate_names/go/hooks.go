// Package hooks: controller-gen writes both webhooks; the API server refuses the duplicate name.
package hooks

// +kubebuilder:webhook:path=/p,mutating=true,failurePolicy=fail,sideEffects=None,groups=example.com,resources=foos,verbs=create,versions=v1,name=mfoo.example.com,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/q,mutating=true,failurePolicy=fail,sideEffects=None,groups=example.com,resources=foos,verbs=update,versions=v1,name=mfoo.example.com,admissionReviewVersions=v1

// Hooks is the type the markers are declared next to.
type Hooks struct{}
