// Package hooks: controller-gen writes port: 0; the API server refuses it.
package hooks

// +kubebuilder:webhook:path=/p,mutating=true,failurePolicy=fail,sideEffects=None,groups=example.com,resources=foos,verbs=create,versions=v1,name=mfoo.example.com,admissionReviewVersions=v1,servicePort=0

// Hooks is the type the markers are declared next to.
type Hooks struct{}
