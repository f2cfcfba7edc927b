// Package hooks: controller-gen: "TimeoutSeconds must be between 1 and 30 seconds".
package hooks

// +kubebuilder:webhook:path=/p,mutating=true,failurePolicy=fail,sideEffects=None,groups=example.com,resources=foos,verbs=create,versions=v1,name=mfoo.example.com,admissionReviewVersions=v1,timeoutSeconds=31

// Hooks is the type the markers are declared next to.
type Hooks struct{}
