// Package v1 is the cronjob case: the CronJob API of the kubebuilder book and of
// controller-tools' testdata, re-expressed: a schedule, a concurrency policy as a string
// enum type, history limits, an embedded job template, active jobs as object references
// and the last schedule time.
// +groupName=batch.parity.example.com
package v1
