package olmoperator

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
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
)

// NewManager returns a controller-runtime manager that runs the operator
// on the wall clock, its CRs those of the CRDs named (plural.group, the
// kind and version found through discovery); Start runs it. It caches
// only its own namespace and its CRs' (every namespace when
// opts.Namespaces is empty).
func NewManager(cfg *rest.Config, crds []string, opts Options) (ctrl.Manager, error) {
	var defaults map[string]cache.Config
	if len(opts.Namespaces) > 0 {
		defaults = map[string]cache.Config{opts.Namespace: {}}
		for _, ns := range opts.Namespaces {
			defaults[ns] = cache.Config{}
		}
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:  runtime.NewScheme(),
		Metrics: metricsserver.Options{BindAddress: "0"},
		Cache:   cache.Options{DefaultNamespaces: defaults},
	})
	if err != nil {
		return nil, err
	}
	for _, name := range crds {
		resource, group, ok := strings.Cut(name, ".")
		if !ok {
			return nil, fmt.Errorf("CRD %q: want plural.group, like foos.example.com", name)
		}
		gvk, err := mgr.GetRESTMapper().KindFor(schema.GroupVersionResource{Group: group, Resource: resource})
		if err != nil {
			return nil, fmt.Errorf("CRD %s: %w", name, err)
		}
		opts.Kinds = append(opts.Kinds, gvk)
	}
	r := NewReconciler(mgr.GetClient(), clock.RealClock{}, opts)
	return mgr, r.SetupWithManager(mgr)
}

// SetupWithManager runs the reconciler under mgr: every change of its
// CRs, its Probe and its OperatorCondition is one request for the whole
// operator, and so is its start.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: r.opts.Namespace, Name: r.opts.Name}}
	toOperator := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{req}
	})
	start := source.Func(func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		q.Add(req)
		return nil
	})
	b := ctrl.NewControllerManagedBy(mgr).Named("olmoperator").WatchesRawSource(start)
	for _, gvk := range append([]schema.GroupVersionKind{ProbeGVK, OperatorConditionGVK}, r.opts.Kinds...) {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		b = b.Watches(u, toOperator)
	}
	return b.Complete(r)
}
