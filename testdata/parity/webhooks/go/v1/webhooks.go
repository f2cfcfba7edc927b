// Package v1 holds the webhooks of a zoo's v1 API, declared out of name order, with
// every optional argument of the webhook marker, and the configurations' own names.
package v1

// +kubebuilder:webhookconfiguration:mutating=true,name=zoo-mutating
// +kubebuilder:webhookconfiguration:mutating=false,name=zoo-validating

// +kubebuilder:webhook:path=/validate-zoo,mutating=false,failurePolicy=ignore,sideEffects=NoneOnDryRun,groups=core;apps,resources=pods;deployments/status,verbs=delete;connect,versions=v1;v1beta1,name=zoo-keeper.example.org,admissionReviewVersions=v1;v1beta1,matchPolicy=exact,timeoutSeconds=7,serviceName=hooks,serviceNamespace=zoo-system,servicePort=8443
// +kubebuilder:webhook:path=/mutate-lion,mutating=true,failurePolicy=Fail,sideEffects=none,groups=*,resources=*,verbs=*,versions=*,name=lion.example.org,admissionReviewVersions=v1,matchPolicy=Equivalent,timeoutSeconds=30,reinvocationPolicy=ifneeded,servicePort=443
// +kubebuilder:webhook:path=/mutate-antelope,mutating=true,failurePolicy=fail,sideEffects=None,groups=apps,resources=deployments,verbs=update,versions=v1,name=antelope.example.org,admissionReviewVersions=v1,reinvocationPolicy=Never,webhookVersions=v1
// +kubebuilder:webhook:path=/validate-antelope,mutating=false,failurePolicy=fail,sideEffects=None,groups=apps,resources=deployments,verbs=update,versions=v1,name=antelope.example.org,admissionReviewVersions=v1
// +kubebuilder:webhook:url="https://hooks.example.org:9443/validate-cage",mutating=false,failurePolicy=fail,sideEffects=None,groups=zoo.example.org,resources=cages,verbs=create;update,versions=v1,name=cage.example.org,admissionReviewVersions=v1

// Keeper is the type the webhooks above are declared next to.
type Keeper struct{}
