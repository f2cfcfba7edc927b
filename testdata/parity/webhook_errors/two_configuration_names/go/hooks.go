// Package hooks: controller-gen: "duplicate mutating kubebuilder:webhookconfiguration".
package hooks

// +kubebuilder:webhookconfiguration:mutating=true,name=one
// +kubebuilder:webhookconfiguration:mutating=true,name=two

// +kubebuilder:webhook:path=/p,mutating=true,failurePolicy=fail,sideEffects=None,groups=example.com,resources=foos,verbs=create,versions=v1,name=mfoo.example.com,admissionReviewVersions=v1

// Hooks is the type the markers are declared next to.
type Hooks struct{}
