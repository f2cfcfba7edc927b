// Package hooks: controller-gen writes it; the API server wants DNS-subdomain path segments.
package hooks

// +kubebuilder:webhook:path=/mutate_foo,mutating=true,failurePolicy=fail,sideEffects=None,groups=example.com,resources=foos,verbs=create,versions=v1,name=mfoo.example.com,admissionReviewVersions=v1

// Hooks is the type the markers are declared next to.
type Hooks struct{}
