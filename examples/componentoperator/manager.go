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
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// NewManager returns a manager running the operator of cfg: informers on
// its ClusterOperator and on the workloads, pods and ConfigMaps of its
// namespace, resynced every cfg.Resync, feeding one workqueue whose every
// item means "look again".
func NewManager(rc *rest.Config, cfg Config) (ctrl.Manager, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, configv1.Install} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	resync := cfg.Resync
	mgr, err := ctrl.NewManager(rc, ctrl.Options{
		Scheme:  scheme,
		Metrics: metricsserver.Options{BindAddress: "0"}, // no port: several operators share a host
		Cache: cache.Options{
			SyncPeriod:        &resync,
			DefaultNamespaces: map[string]cache.Config{cfg.Namespace: {}},
			ByObject: map[client.Object]cache.ByObject{
				&configv1.ClusterOperator{}: {Field: fields.OneTermEqualSelector("metadata.name", cfg.Name)},
			},
		},
	})
	if err != nil {
		return nil, err
	}
	key := reconcile.Request{NamespacedName: types.NamespacedName{Name: cfg.Name}}
	lookAgain := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{key}
	})
	// Its ClusterOperator may not exist yet, and nothing else may change:
	// the first look is asked at start.
	first := source.Func(func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		q.Add(key)
		return nil
	})
	b := ctrl.NewControllerManagedBy(mgr).Named("component-status").WatchesRawSource(first)
	for _, obj := range []client.Object{&configv1.ClusterOperator{}, &appsv1.Deployment{}, &appsv1.DaemonSet{}, &corev1.Pod{}, &corev1.ConfigMap{}} {
		b = b.Watches(obj, lookAgain)
	}
	return mgr, b.Complete(NewReconciler(mgr.GetClient(), cfg))
}
