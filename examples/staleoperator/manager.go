package staleoperator

import (
	"context"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// NewManager returns a controller-runtime manager that runs the operator of
// the ClusterOperator name on the wall clock; Start runs it.
func NewManager(cfg *rest.Config, name string, opts Options) (ctrl.Manager, error) {
	scheme := runtime.NewScheme()
	if err := configv1.Install(scheme); err != nil {
		return nil, err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:  scheme,
		Metrics: metricsserver.Options{BindAddress: "0"}, // several operators may share a host
		// Cache, and so list and watch, only the ClusterOperator it owns.
		Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{
			&configv1.ClusterOperator{}: {Field: fields.OneTermEqualSelector("metadata.name", name)},
		}},
	})
	if err != nil {
		return nil, err
	}
	r := NewReconciler(mgr.GetClient(), clock.RealClock{}, name, opts)
	return mgr, r.SetupWithManager(mgr)
}

// SetupWithManager runs the reconciler under mgr: a watch of its own
// ClusterOperator, and one request at start, since a missing object sends
// no event and the operator must create it.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	ours := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() == r.name })
	start := source.Func(func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Name: r.name}})
		return nil
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("staleoperator").
		For(&configv1.ClusterOperator{}, builder.WithPredicates(ours)).
		WatchesRawSource(start).
		Complete(r)
}
