package componentoperator

import (
	"context"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/opcert/opcert/reference/component"
)

// NewManager returns a controller-runtime manager that runs the operator
// of opts on the wall clock; Start runs it.
func NewManager(cfg *rest.Config, opts component.Options) (ctrl.Manager, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := configv1.Install(scheme); err != nil {
		return nil, err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:  scheme,
		Metrics: metricsserver.Options{BindAddress: "0"}, // several operators may share a host
		// Cache, and so list and watch, only its namespace and its own
		// ClusterOperator.
		Cache: cache.Options{
			DefaultNamespaces: map[string]cache.Config{opts.Namespace: {}},
			ByObject: map[client.Object]cache.ByObject{
				&configv1.ClusterOperator{}: {Field: fields.OneTermEqualSelector("metadata.name", opts.Name)},
			},
		},
	})
	if err != nil {
		return nil, err
	}
	r := component.NewOperator(mgr.GetClient(), clock.RealClock{}, opts)
	return mgr, setup(mgr, r, opts.Name)
}

// setup runs the operator of ClusterOperator name under mgr: its
// ClusterOperator, and the operands, pods and ConfigMaps of its namespace,
// all to one request; and one request at start, since a missing
// ClusterOperator sends no event and the operator must create it.
func setup(mgr ctrl.Manager, r reconcile.Reconciler, name string) error {
	req := reconcile.Request{NamespacedName: types.NamespacedName{Name: name}}
	one := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{req}
	})
	ours := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() == name })
	start := source.Func(func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		q.Add(req)
		return nil
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("componentoperator").
		For(&configv1.ClusterOperator{}, builder.WithPredicates(ours)).
		Watches(&appsv1.Deployment{}, one).
		Watches(&appsv1.DaemonSet{}, one).
		Watches(&corev1.Pod{}, one).
		Watches(&corev1.ConfigMap{}, one).
		WatchesRawSource(start).
		Complete(r)
}
