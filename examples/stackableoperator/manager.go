package stackableoperator

import (
	"context"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	ref "github.com/opcert/opcert/reference/stackable"
)

// NewManager returns a controller-runtime manager that runs the operator
// of opts on the wall clock; Start runs it.
func NewManager(cfg *rest.Config, opts ref.Options) (ctrl.Manager, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	mopts := ctrl.Options{
		Scheme:  scheme,
		Metrics: metricsserver.Options{BindAddress: "0"}, // several operators may share a host
	}
	if len(opts.Namespaces) > 0 {
		// Cache, and so list and watch, only its namespaces.
		mopts.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{}}
		for _, ns := range opts.Namespaces {
			mopts.Cache.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	mgr, err := ctrl.NewManager(cfg, mopts)
	if err != nil {
		return nil, err
	}
	op, err := ref.New(mgr.GetClient(), clock.RealClock{}, opts)
	if err != nil {
		return nil, err
	}
	return mgr, setup(mgr, op)
}

// setup runs op under mgr: its SampleClusters (unstructured: the operator
// needs no Go type of them), the workloads they own and their pods, each
// mapped to its cluster by op.Map, as the simulator's watches map them;
// and, at start, op.Initial's requests, one per namespace.
func setup(mgr ctrl.Manager, op *ref.Operator) error {
	sample := &unstructured.Unstructured{}
	sample.SetGroupVersionKind(ref.SampleClusterGVK)
	toCluster := handler.EnqueueRequestsFromMapFunc(op.Map)
	start := source.Func(func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		for _, r := range op.Initial() {
			q.Add(r)
		}
		return nil
	})
	b := ctrl.NewControllerManagedBy(mgr).Named("stackableoperator").Watches(sample, toCluster)
	for _, obj := range []client.Object{&appsv1.StatefulSet{}, &appsv1.Deployment{}, &appsv1.DaemonSet{}, &corev1.Pod{}} {
		b = b.Watches(obj, toCluster)
	}
	return b.WatchesRawSource(start).Complete(op)
}

// Namespaces reads a comma-separated list of namespaces ("" for none:
// every namespace).
func Namespaces(s string) []string {
	var out []string
	for ns := range strings.SplitSeq(s, ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			out = append(out, ns)
		}
	}
	return out
}
