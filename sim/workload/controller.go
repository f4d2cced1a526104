package workload

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/sim"
)

// Role is the role of the controller's actor on the timeline, and its
// actor's name unless Options.Name says otherwise.
const Role = "workload"

// DefaultReadyAfter is how long a new pod takes to get ready unless
// Options.ReadyAfter or the workload's AnnotationReadyAfter says otherwise.
const DefaultReadyAfter = 30 * time.Second

// DefaultNode is the one node of a world that names none.
const DefaultNode = "node-0"

// Options configure a Controller.
type Options struct {
	// Scheduler runs the controller.
	Scheduler *sim.Scheduler
	// API is a direct client of the run's API server, which the
	// controller uses through Scheduler.Client.
	API client.Client
	// Namespaces are the only ones it acts in, by the scenario's names.
	Namespaces []string
	// Nodes are the cluster's nodes, in order: a DaemonSet runs a pod on
	// each, other pods spread over them. None means one, DefaultNode.
	Nodes []string
	// ReadyAfter is how long a new pod takes to get ready; 0 means
	// DefaultReadyAfter.
	ReadyAfter time.Duration
	// Name is the actor's name; "" means Role.
	Name string
}

// Controller plays the workload controllers and the kubelet (see the
// package doc). Its state (the pods it made, the faults in force) lives
// in memory; its methods are safe to call from scenario steps.
type Controller struct {
	name       string
	sched      *sim.Scheduler
	c          *sim.Client
	namespaces []string
	nodes      []string
	readyAfter time.Duration

	mu    sync.Mutex
	pods  map[workloadKey]map[string]*podRecord
	known map[workloadKey]bool
	stuck map[versionKey]bool
	held  map[string]bool
}

// podRecord is a pod as the controller last wrote it, and its life.
type podRecord struct {
	pod        *corev1.Pod
	readyAfter time.Duration
	life       life
}

// versionKey is a workload's version that Stick keeps from getting ready.
type versionKey struct{ Namespace, Workload, Version string }

// New returns a controller; Actor is what to start on the scheduler.
func New(opts Options) *Controller {
	c := &Controller{
		name:       cmp.Or(opts.Name, Role),
		sched:      opts.Scheduler,
		namespaces: slices.Clone(opts.Namespaces),
		nodes:      slices.Clone(opts.Nodes),
		readyAfter: opts.ReadyAfter,
		pods:       map[workloadKey]map[string]*podRecord{},
		known:      map[workloadKey]bool{},
		stuck:      map[versionKey]bool{},
		held:       map[string]bool{},
	}
	if len(c.nodes) == 0 {
		c.nodes = []string{DefaultNode}
	}
	if c.readyAfter == 0 {
		c.readyAfter = DefaultReadyAfter
	}
	c.c = opts.Scheduler.Client(opts.API, c.name, Role)
	return c
}

// kinds are the workload kinds the controller runs, in the order it
// lists them.
var kinds = []Kind{Deployment, DaemonSet, StatefulSet}

// Actor is the controller as the scheduler runs it: woken by every write
// of a Deployment, DaemonSet or StatefulSet in its namespaces (its
// requests are "<Kind>/<name>" in the namespace, so kinds sharing a name
// stay apart), and at first by one request per namespace that finds the
// workloads already there. It reads its pods beside the workload it
// reconciles, so its batches run one object at a time (sim.Actor's
// ReadsOthers): what it sees of a workload another actor writes at the
// same instant does not depend on goroutine timing.
func (c *Controller) Actor() sim.Actor {
	a := sim.Actor{Name: c.name, Role: Role, Reconciler: c, ReadsOthers: true}
	for _, k := range kinds {
		a.Watches = append(a.Watches, sim.Watch{GVK: appsv1.SchemeGroupVersion.WithKind(string(k)), Map: c.requestsFor(k)})
	}
	for _, ns := range c.namespaces {
		a.Initial = append(a.Initial, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns}})
	}
	return a
}

func (c *Controller) requestsFor(k Kind) handler.MapFunc {
	return func(_ context.Context, obj client.Object) []reconcile.Request {
		if !slices.Contains(c.namespaces, obj.GetNamespace()) {
			return nil
		}
		return []reconcile.Request{request(workloadKey{k, obj.GetNamespace(), obj.GetName()})}
	}
}

func request(k workloadKey) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: k.Namespace, Name: string(k.Kind) + "/" + k.Name}}
}

// Reconcile syncs one workload, or finds the workloads of a namespace.
func (c *Controller) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	kind, name, ok := strings.Cut(req.Name, "/")
	if !ok {
		return reconcile.Result{}, c.discover(ctx, req.Namespace)
	}
	next, err := c.sync(ctx, workloadKey{Kind(kind), req.Namespace, name})
	if err != nil || next.IsZero() {
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: next.Sub(c.sched.Now())}, nil
}

// discover queues every workload of a namespace, as an informer's first
// list would.
func (c *Controller) discover(ctx context.Context, ns string) error {
	for _, k := range kinds {
		list := newList(k)
		if err := c.c.List(ctx, list, client.InNamespace(ns)); err != nil {
			return err
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return err
		}
		for _, it := range items {
			obj := it.(client.Object)
			c.sched.Enqueue(c.name, request(workloadKey{k, ns, obj.GetName()}), c.sched.Now())
		}
	}
	return nil
}

// maxSyncs bounds the syncs of one workload at one instant: each makes
// pods move, so more means the planner and the kubelet disagree.
const maxSyncs = 1000

// sync brings a workload's pods to now (their states, then the planner's
// creations and deletions, until it asks for nothing more) and publishes
// its status; it returns when a pod changes next by itself (zero: never).
// The caller holds c.mu.
func (c *Controller) sync(ctx context.Context, k workloadKey) (time.Time, error) {
	obj := newObject(k.Kind)
	err := c.c.Get(ctx, types.NamespacedName{Namespace: k.Namespace, Name: k.Name}, obj)
	if apierrors.IsNotFound(err) {
		return time.Time{}, c.collect(ctx, k)
	}
	if err != nil {
		return time.Time{}, err
	}
	c.known[k] = true
	spec, template := specOf(k, obj)
	spec.Nodes, spec.Held = c.nodes, c.held
	wait := readyAfter(obj, c.readyAfter)
	if c.pods[k] == nil {
		if err := c.adopt(ctx, k, wait); err != nil {
			return time.Time{}, err
		}
	}
	now := c.sched.Now()
	hasNew := func() bool { return slices.ContainsFunc(c.view(k), func(p Pod) bool { return p.Hash == spec.Hash }) }
	had := hasNew()
	var next time.Time
	for i := 0; ; i++ {
		if next, err = c.kubelet(ctx, k, now); err != nil {
			return time.Time{}, err
		}
		acts := Plan(spec, c.view(k))
		if len(acts) == 0 {
			break
		}
		if i == maxSyncs {
			return time.Time{}, fmt.Errorf("%s: no steady state after %d syncs at one instant, still %v", k, maxSyncs, acts)
		}
		for _, a := range acts {
			if err := c.apply(ctx, k, obj, a, template, spec.Hash, wait, now); err != nil {
				return time.Time{}, err
			}
		}
	}
	deadline, err := c.publish(ctx, obj, spec, !had && hasNew(), now)
	if next.IsZero() || !deadline.IsZero() && deadline.Before(next) {
		next = deadline
	}
	return next, err
}

// view is the workload's pods as the planner sees them, sorted by name.
func (c *Controller) view(k workloadKey) []Pod {
	var out []Pod
	for _, name := range slices.Sorted(maps.Keys(c.pods[k])) {
		out = append(out, podOf(c.pods[k][name].pod))
	}
	return out
}

// apply creates or deletes one pod. Deletion is immediate (grace period
// 0): no kubelet is there to confirm a graceful one.
func (c *Controller) apply(ctx context.Context, k workloadKey, owner client.Object, a Action, t corev1.PodTemplateSpec, hash string, wait time.Duration, now time.Time) error {
	if a.Delete != "" {
		r := c.pods[k][a.Delete]
		if err := c.c.Delete(ctx, r.pod, client.GracePeriodSeconds(0)); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		delete(c.pods[k], a.Delete)
		return nil
	}
	pod := newPod(k, t, hash, a.Create, a.Node)
	pod.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(owner, appsv1.SchemeGroupVersion.WithKind(string(k.Kind)))}
	if err := c.c.Create(ctx, pod); err != nil {
		return err
	}
	c.pods[k][a.Create] = &podRecord{pod: pod, readyAfter: wait, life: life{readyAt: now.Add(wait)}}
	return nil
}

// adopt takes over the pods an earlier controller made for a workload
// this one has not seen (those it controls, by their owner reference), as
// a restarted controller-manager finds its pods: a ready pod stays ready,
// a failed or lost one stays so, and one not ready yet gets ready wait
// after its Ready condition last moved (when it was made or recovered).
// Faults in force (Stick, HoldNode) were the earlier controller's.
func (c *Controller) adopt(ctx context.Context, k workloadKey, wait time.Duration) error {
	list := &corev1.PodList{}
	if err := c.c.List(ctx, list, client.InNamespace(k.Namespace), client.MatchingLabels{LabelWorkload: k.Name}); err != nil {
		return err
	}
	c.pods[k] = map[string]*podRecord{}
	for i := range list.Items {
		p := &list.Items[i]
		ref := metav1.GetControllerOf(p)
		if p.DeletionTimestamp != nil || ref == nil || ref.Kind != string(k.Kind) || ref.Name != k.Name {
			continue
		}
		r := &podRecord{pod: p, readyAfter: wait}
		switch cond := readyCondition(p); {
		case p.Status.Phase == corev1.PodFailed:
			r.life.fault = failed
		case p.Status.Phase == corev1.PodUnknown:
			r.life.fault = lost
		case cond != nil && cond.Status == corev1.ConditionTrue:
			r.life.readied = true
		case cond != nil:
			r.life = life{readyAt: cond.LastTransitionTime.Add(wait), restarted: p.Status.Phase == corev1.PodRunning}
		default:
			r.life.readyAt = c.sched.Now().Add(wait)
		}
		c.pods[k][p.Name] = r
	}
	return nil
}

// collect deletes the pods of a workload that is gone, as the garbage
// collector would.
func (c *Controller) collect(ctx context.Context, k workloadKey) error {
	for _, name := range slices.Sorted(maps.Keys(c.pods[k])) {
		if err := c.apply(ctx, k, nil, Action{Delete: name}, corev1.PodTemplateSpec{}, "", 0, time.Time{}); err != nil {
			return err
		}
	}
	delete(c.pods, k)
	delete(c.known, k)
	return nil
}

// kubelet writes each pod's state at now where it changed, and returns
// when the next changes by itself.
func (c *Controller) kubelet(ctx context.Context, k workloadKey, now time.Time) (time.Time, error) {
	var next time.Time
	for _, name := range slices.Sorted(maps.Keys(c.pods[k])) {
		r := c.pods[k][name]
		stuck := c.stuck[versionKey{k.Namespace, k.Name, r.pod.Labels[LabelVersion]}]
		l, st, at := r.life.at(now, stuck, r.pod.Spec.Containers[0].Name)
		r.life = l
		if err := c.report(ctx, r, st, now); err != nil {
			if err := c.refresh(ctx, k, r, err); err != nil {
				return time.Time{}, err
			}
			continue // gone
		}
		if !at.IsZero() && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	return next, nil
}

// refresh, after a write of a pod failed, forgets the pod if it is gone
// (someone deleted it: the sync goes on, and makes it again), else takes
// it as the API server has it (someone wrote it) and returns err, so that
// the sync is retried.
func (c *Controller) refresh(ctx context.Context, k workloadKey, r *podRecord, err error) error {
	fresh := &corev1.Pod{}
	switch gerr := c.c.Get(ctx, client.ObjectKeyFromObject(r.pod), fresh); {
	case apierrors.IsNotFound(gerr):
		delete(c.pods[k], r.pod.Name)
		return nil
	case gerr == nil:
		r.pod = fresh
	}
	return err
}

// report writes a pod's phase and Ready condition through the status
// subresource if they changed; the condition's lastTransitionTime moves
// only with its status.
func (c *Controller) report(ctx context.Context, r *podRecord, st podState, now time.Time) error {
	cur := readyCondition(r.pod)
	if r.pod.Status.Phase == st.Phase && cur != nil && cur.Status == st.Ready && cur.Reason == st.Reason && cur.Message == st.Message {
		return nil
	}
	pod := r.pod.DeepCopy()
	pod.Status.Phase = st.Phase
	cond := corev1.PodCondition{Type: corev1.PodReady, Status: st.Ready, Reason: st.Reason, Message: st.Message,
		LastTransitionTime: metav1.NewTime(now)}
	if cur != nil && cur.Status == st.Ready {
		cond.LastTransitionTime = cur.LastTransitionTime
	}
	if old := readyCondition(pod); old != nil {
		*old = cond
	} else {
		pod.Status.Conditions = append(pod.Status.Conditions, cond)
	}
	if err := c.c.Status().Update(ctx, pod); err != nil {
		return err
	}
	r.pod = pod
	return nil
}

// publish writes the workload's status counted from its pods, if it
// changed, keeping what the counts do not cover (a DaemonSet's and a
// StatefulSet's conditions, collision counts). A Deployment's conditions
// follow its counts (DeploymentConditions; created: the sync made the
// first pod of the current template); publish returns when its progress
// deadline needs a look (zero for none).
func (c *Controller) publish(ctx context.Context, obj client.Object, s Spec, created bool, now time.Time) (time.Time, error) {
	pods := c.view(workloadKey{s.Kind, obj.GetNamespace(), s.Name})
	var next time.Time
	switch w := obj.(type) {
	case *appsv1.Deployment:
		st := DeploymentStatus(w.Generation, s.Hash, pods)
		st.CollisionCount, st.TerminatingReplicas = w.Status.CollisionCount, w.Status.TerminatingReplicas
		st, next = DeploymentConditions(Rollout{Replicas: int32(s.Replicas), Generation: w.Generation,
			Deadline: w.Spec.ProgressDeadlineSeconds, ReplicaSet: s.Name + "-" + s.Hash, Created: created}, w.Status, st, now)
		if equality.Semantic.DeepEqual(st, w.Status) {
			return next, nil
		}
		w.Status = st
	case *appsv1.DaemonSet:
		st := DaemonSetStatus(w.Generation, s.Hash, c.nodes, pods)
		st.Conditions, st.CollisionCount = w.Status.Conditions, w.Status.CollisionCount
		if equality.Semantic.DeepEqual(st, w.Status) {
			return next, nil
		}
		w.Status = st
	case *appsv1.StatefulSet:
		st := StatefulSetStatus(w.Generation, s.Name, s.Replicas, s.Hash, w.Status.CurrentRevision, pods)
		st.Conditions, st.CollisionCount = w.Status.Conditions, w.Status.CollisionCount
		if equality.Semantic.DeepEqual(st, w.Status) {
			return next, nil
		}
		w.Status = st
	}
	return next, c.c.Status().Update(ctx, obj)
}
