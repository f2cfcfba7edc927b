// Package hooks: controller-gen: "`url` or `path` markers are required and mutually exclusive".
package hooks

// +kubebuilder:webhook:path=/p,mutating=true,failurePolicy=fail,sideEffects=None,groups=example.com,resources=foos,verbs=create,versions=v1,name=mfoo.example.com,admissionReviewVersions=v1,url="https://hooks.example.com/p"

// Hooks is the type the markers are declared next to.
type Hooks struct{}
