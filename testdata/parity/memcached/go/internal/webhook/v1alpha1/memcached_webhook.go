// Package v1alpha1 declares the Memcached webhooks as kubebuilder's create webhook
// scaffolds them (the markers only: the handlers are not part of this fixture).
package v1alpha1

// +kubebuilder:webhook:path=/mutate-cache-example-com-v1alpha1-memcached,mutating=true,failurePolicy=fail,sideEffects=None,groups=cache.example.com,resources=memcacheds,verbs=create;update,versions=v1alpha1,name=mmemcached-v1alpha1.kb.io,admissionReviewVersions=v1

// MemcachedCustomDefaulter fills in the image of a Memcached.
type MemcachedCustomDefaulter struct {
	Image string
}

// +kubebuilder:webhook:path=/validate-cache-example-com-v1alpha1-memcached,mutating=false,failurePolicy=fail,sideEffects=None,groups=cache.example.com,resources=memcacheds,verbs=create;update,versions=v1alpha1,name=vmemcached-v1alpha1.kb.io,admissionReviewVersions=v1

// MemcachedCustomValidator checks the size of a Memcached.
type MemcachedCustomValidator struct {
	MaxSize int32
}
