// Command memcached-go is the tutorial's memcached operator on controller-runtime, with
// kubebuilder's standard flags, run out of cluster with KUBECONFIG.
package main

import (
	"flag"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

func main() {
	var (
		metricsAddr, probeAddr, watchNamespace, electionNamespace string
		leaderElect, secureMetrics, sameWork                      bool
		concurrency                                               int
	)
	flag.StringVar(&metricsAddr, "metrics-bind-address", "0",
		"Address the metrics endpoint binds to (:8443 for HTTPS, :8080 for HTTP); 0 disables it.")
	flag.BoolVar(&secureMetrics, "metrics-secure", false,
		"Serve metrics over HTTPS with a self-signed certificate instead of plain HTTP.")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "Address the probe endpoint binds to.")
	flag.BoolVar(&leaderElect, "leader-elect", false,
		"Enable leader election, so that only one manager is active at a time.")
	flag.StringVar(&electionNamespace, "leader-election-namespace", "",
		"Namespace of the leader election lease; out of cluster it must be given.")
	flag.IntVar(&concurrency, "max-concurrent-reconciles", 1,
		"How many Memcacheds are reconciled at once (controller-runtime's MaxConcurrentReconciles).")
	flag.StringVar(&watchNamespace, "watch-namespace", "",
		"Only watch and manage objects in this namespace; empty means all namespaces.")
	flag.BoolVar(&sameWork, "same-work", false,
		"Also do what the Rust operator does beyond the tutorial: a Service per Memcached and status.nodes.")
	opts := zap.Options{Development: false}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	setupLog := ctrl.Log.WithName("setup")

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(addKnownTypes(scheme))

	cacheOptions := cache.Options{}
	if watchNamespace != "" {
		cacheOptions.DefaultNamespaces = map[string]cache.Config{watchNamespace: {}}
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsserver.Options{BindAddress: metricsAddr, SecureServing: secureMetrics},
		HealthProbeBindAddress:  probeAddr,
		LeaderElection:          leaderElect,
		LeaderElectionID:        "go-memcached.operator-rs.dev",
		LeaderElectionNamespace: electionNamespace,
		Cache:                   cacheOptions,
	})
	if err != nil {
		setupLog.Error(err, "unable to create the manager")
		os.Exit(1)
	}

	reconciler := &memcachedReconciler{
		Client:   mgr.GetClient(),
		Scheme:   mgr.GetScheme(),
		Recorder: mgr.GetEventRecorderFor("memcached-controller"),
		SameWork: sameWork,
	}
	if err := reconciler.setupWithManager(mgr, concurrency); err != nil {
		setupLog.Error(err, "unable to create the controller")
		os.Exit(1)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		setupLog.Error(err, "unable to set up the health check")
		os.Exit(1)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		setupLog.Error(err, "unable to set up the ready check")
		os.Exit(1)
	}

	setupLog.Info("starting the manager")
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		setupLog.Error(err, "the manager stopped with an error")
		os.Exit(1)
	}
}
