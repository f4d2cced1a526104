package stackableoperator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// Options configure an Operator.
type Options struct {
	// Namespaces are where its SampleClusters are; none means every
	// namespace.
	Namespaces []string
	// Resync is how often every cluster is reconciled again even when
	// nothing changed.
	Resync time.Duration
	// Workers reconcile clusters in parallel (one cluster at a time each).
	Workers int
	// IgnoreUnknown is the careless variant: it takes a pod whose phase
	// is Unknown (its node stopped reporting) for a running one, as an
	// operator that only counts replicas does, so that a cluster missing
	// such a pod is Available False where ADR027 says Unknown.
	IgnoreUnknown bool
	// IgnorePause is another careless variant: it reconciles a cluster's
	// workloads though the user paused it, as an operator that reports
	// the pause but never consults it in its reconcile loop does
	// (STACKABLE-005 fails it; a mistake a real cluster shows, where
	// phase Unknown cannot be made).
	IgnorePause bool
	// Log is where it logs; nil: slog.Default().
	Log *slog.Logger
}

// Operator reconciles SampleClusters: informers on the clusters, their
// workloads and their pods feed a rate-limited workqueue of cluster keys
// (namespace/name), and workers bring each cluster's workloads and status
// up to date.
type Operator struct {
	kube   kubernetes.Interface
	dyn    dynamic.Interface
	opts   Options
	queue  workqueue.TypedRateLimitingInterface[string]
	caches map[string]*namespaceCache // by namespace, "" for all
	synced []cache.InformerSynced
	start  []func(<-chan struct{})
}

// namespaceCache holds the listers of one watched namespace (or all).
type namespaceCache struct {
	clusters     cache.GenericNamespaceLister
	clusterList  cache.GenericLister
	statefulSets appslisters.StatefulSetLister
	deployments  appslisters.DeploymentLister
	daemonSets   appslisters.DaemonSetLister
	pods         corelisters.PodLister
}

// New is an Operator on the cluster of cfg.
func New(cfg *rest.Config, opts Options) (*Operator, error) {
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	if opts.Workers < 1 {
		opts.Workers = 1
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	// A failed reconcile (a conflict, a spec it cannot render) is retried
	// soon, then less and less often.
	limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[string](20*time.Millisecond, 30*time.Second)
	o := &Operator{kube: kube, dyn: dyn, opts: opts, caches: map[string]*namespaceCache{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[string]{Name: "sampleclusters"})}
	namespaces := opts.Namespaces
	if len(namespaces) == 0 {
		namespaces = []string{metav1.NamespaceAll}
	}
	for _, ns := range namespaces {
		if err := o.watch(ns); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// watch sets up the informers of one namespace: the SampleClusters, and
// the workloads and pods this operator labelled as its own.
func (o *Operator) watch(ns string) error {
	dynf := dynamicinformer.NewFilteredDynamicSharedInformerFactory(o.dyn, o.opts.Resync, ns, nil)
	mine := informers.WithTweakListOptions(func(lo *metav1.ListOptions) {
		lo.LabelSelector = labels.Set{labelManagedBy: managedBy}.String()
	})
	kf := informers.NewSharedInformerFactoryWithOptions(o.kube, o.opts.Resync, informers.WithNamespace(ns), mine)
	clusters := dynf.ForResource(sampleClusters)
	apps := kf.Apps().V1()
	nc := &namespaceCache{clusterList: clusters.Lister(), clusters: clusters.Lister().ByNamespace(ns),
		statefulSets: apps.StatefulSets().Lister(), deployments: apps.Deployments().Lister(),
		daemonSets: apps.DaemonSets().Lister(), pods: kf.Core().V1().Pods().Lister()}
	if ns == metav1.NamespaceAll {
		nc.clusters = nil // looked up per namespace (clustersIn)
	}
	o.caches[ns] = nc
	for inf, key := range map[cache.SharedIndexInformer]func(any) (string, bool){
		clusters.Informer():              clusterKey,
		apps.StatefulSets().Informer():   instanceKey,
		apps.Deployments().Informer():    instanceKey,
		apps.DaemonSets().Informer():     instanceKey,
		kf.Core().V1().Pods().Informer(): instanceKey,
	} {
		if _, err := inf.AddEventHandler(o.enqueueBy(key)); err != nil {
			return err
		}
		o.synced = append(o.synced, inf.HasSynced)
	}
	o.start = append(o.start, dynf.Start, kf.Start)
	return nil
}

// enqueueBy is an event handler that queues the key of the cluster an
// object belongs to, on every add, update (resyncs included) and delete.
func (o *Operator) enqueueBy(key func(any) (string, bool)) cache.ResourceEventHandler {
	add := func(obj any) {
		if k, ok := key(obj); ok {
			o.queue.Add(k)
		}
	}
	return cache.ResourceEventHandlerFuncs{AddFunc: add, UpdateFunc: func(_, obj any) { add(obj) }, DeleteFunc: add}
}

// clusterKey is a SampleCluster's own key.
func clusterKey(obj any) (string, bool) {
	k, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	return k, err == nil
}

// instanceKey is the key of the cluster a workload or pod belongs to, by
// its instance label.
func instanceKey(obj any) (string, bool) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	m, ok := obj.(metav1.Object)
	if !ok || m.GetLabels()[labelInstance] == "" {
		return "", false
	}
	return m.GetNamespace() + "/" + m.GetLabels()[labelInstance], true
}

// Run starts the informers, waits for their caches and runs the workers
// until ctx ends.
func (o *Operator) Run(ctx context.Context) error {
	defer o.queue.ShutDown()
	for _, start := range o.start {
		start(ctx.Done())
	}
	if !cache.WaitForCacheSync(ctx.Done(), o.synced...) {
		return errors.New("the informers' caches did not sync")
	}
	o.opts.Log.Info("caches synced, reconciling", "namespaces", o.opts.Namespaces, "workers", o.opts.Workers)
	var wg sync.WaitGroup
	for range o.opts.Workers {
		wg.Go(func() {
			for o.next(ctx) {
			}
		})
	}
	<-ctx.Done()
	o.queue.ShutDown()
	wg.Wait()
	return nil
}

// next reconciles one queued cluster; false once the queue shuts down.
func (o *Operator) next(ctx context.Context) bool {
	key, quit := o.queue.Get()
	if quit {
		return false
	}
	defer o.queue.Done(key)
	if err := o.reconcile(ctx, key); err != nil {
		if ctx.Err() == nil {
			o.opts.Log.Error("reconcile failed, retrying", "cluster", key, "err", err)
		}
		o.queue.AddRateLimited(key)
		return true
	}
	o.queue.Forget(key)
	return true
}

// reconcile brings one cluster's workloads (unless it is paused) and
// status up to date. A spec it cannot render fails the reconcile and
// leaves the status as it is.
func (o *Operator) reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // not a key this operator queues
	}
	nc := o.cacheOf(ns)
	if nc == nil {
		return nil
	}
	obj, err := nc.clustersIn(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil // gone: its workloads go with it (owner references)
	}
	if err != nil {
		return err
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return fmt.Errorf("%s: unexpected object %T", key, obj)
	}
	pc, err := readCluster(u)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	if err := pc.validate(); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	if !pc.paused() || o.opts.IgnorePause {
		if err := o.applyWorkloads(ctx, pc); err != nil {
			return fmt.Errorf("%s: workloads: %w", key, err)
		}
	}
	ob, err := o.observe(pc)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	conds, changed := merge(pc.conditions, conditions(pc, ob), time.Now())
	if !changed {
		return nil
	}
	out := u.DeepCopy()
	var raw []any
	if err := fromMap(conds, &raw); err != nil {
		return err
	}
	if err := unstructured.SetNestedSlice(out.Object, raw, "status", "conditions"); err != nil {
		return err
	}
	_, err = o.dyn.Resource(sampleClusters).Namespace(ns).UpdateStatus(ctx, out, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("%s: status: %w", key, err)
	}
	return nil
}

// cacheOf is the cache that holds namespace ns; nil if none does.
func (o *Operator) cacheOf(ns string) *namespaceCache {
	if nc, ok := o.caches[ns]; ok {
		return nc
	}
	return o.caches[metav1.NamespaceAll]
}

func (nc *namespaceCache) clustersIn(ns string) cache.GenericNamespaceLister {
	if nc.clusters != nil {
		return nc.clusters
	}
	return nc.clusterList.ByNamespace(ns)
}

// observe reads, from the caches, each role's wanted and available
// replicas and the cluster's unhealthy pods. A StatefulSet or Deployment
// wants what the spec asks for; a DaemonSet what its controller
// schedules (none before it exists).
func (o *Operator) observe(pc *productCluster) (observation, error) {
	nc := o.cacheOf(pc.namespace)
	var ob observation
	for _, r := range pc.spec.Roles {
		rs := roleState{role: r.Name, desired: r.Replicas}
		name := pc.workloadName(r.Name)
		var err error
		switch r.Kind {
		case kindStatefulSet:
			w, e := nc.statefulSets.StatefulSets(pc.namespace).Get(name)
			if err = e; e == nil {
				rs.available = w.Status.AvailableReplicas
			}
		case kindDeployment:
			w, e := nc.deployments.Deployments(pc.namespace).Get(name)
			if err = e; e == nil {
				rs.available = w.Status.AvailableReplicas
			}
		case kindDaemonSet:
			rs.desired = 0
			w, e := nc.daemonSets.DaemonSets(pc.namespace).Get(name)
			if err = e; e == nil {
				rs.desired, rs.available = w.Status.DesiredNumberScheduled, w.Status.NumberAvailable
			}
		}
		if err != nil && !apierrors.IsNotFound(err) {
			return ob, err
		}
		ob.roles = append(ob.roles, rs)
	}
	pods, err := nc.pods.Pods(pc.namespace).List(labels.SelectorFromSet(labels.Set{labelInstance: pc.name}))
	if err != nil {
		return ob, err
	}
	for _, p := range pods {
		switch {
		case p.DeletionTimestamp != nil:
		case p.Status.Phase == corev1.PodFailed:
			ob.failed = append(ob.failed, p.Name)
		case p.Status.Phase == corev1.PodUnknown && !o.opts.IgnoreUnknown:
			ob.unknown = append(ob.unknown, p.Name)
		}
	}
	slices.Sort(ob.failed)
	slices.Sort(ob.unknown)
	return ob, nil
}
