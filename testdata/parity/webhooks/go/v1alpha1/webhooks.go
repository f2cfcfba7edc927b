// Package v1alpha1 adds webhooks from a second package, whose names sort between and
// around the first package's: the result must not depend on the order packages load in.
package v1alpha1

// +kubebuilder:webhook:path=/mutate-zoo-example-org-v1alpha1-cage,mutating=true,failurePolicy=fail,sideEffects=None,groups=zoo.example.org,resources=cages,verbs=create;update,versions=v1alpha1,name=mcage-v1alpha1.kb.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-zoo-example-org-v1alpha1-cage,mutating=false,failurePolicy=fail,sideEffects=None,groups=zoo.example.org,resources=cages;cages/scale,verbs=create;update;delete,versions=v1alpha1,name=vcage-v1alpha1.kb.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/mutate--v1-pod,mutating=true,failurePolicy=ignore,sideEffects=None,groups="",resources=pods,verbs=create,versions=v1,name=mpod-v1.kb.io,admissionReviewVersions=v1

// Cage is the type the webhooks above are declared next to.
type Cage struct{}
