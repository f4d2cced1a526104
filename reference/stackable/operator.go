package stackable

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Options configure an Operator.
type Options struct {
	// Namespaces are where its SampleClusters are, as the client names
	// them; none means every namespace.
	Namespaces []string
	// Profile is ProfileSeed when empty.
	Profile Profile
	// Flaw is "" for the reference.
	Flaw Flaw
}

// Operator is the product clusters' operator as a controller-runtime
// Reconciler: for each SampleCluster it writes the workloads Desired
// asks for (none while Paused), reads them and their pods, and publishes
// Status, with time from its clock. It reconciles on every change of a
// SampleCluster, of an owned workload and of their pods (Map), so its
// conditions follow the table at the quiescence of each instant.
type Operator struct {
	client client.Client
	clock  clock.PassiveClock
	o      Options

	mu sync.Mutex
	// owed holds, per cluster, the conditions the Late flaw writes at
	// its next reconcile.
	owed map[types.NamespacedName][]Condition
	// due holds, per cluster, when the Slow flaw reconciles it.
	due map[types.NamespacedName]time.Time
}

// New is an Operator talking through c, with time from clk. The error is
// options it cannot work with.
func New(c client.Client, clk clock.PassiveClock, o Options) (*Operator, error) {
	switch o.Profile {
	case "":
		o.Profile = ProfileSeed
	case ProfileSeed, ProfileOperatorRS:
	default:
		return nil, fmt.Errorf("stackable operator: unknown profile %q: give %q or %q", o.Profile, ProfileSeed, ProfileOperatorRS)
	}
	if o.Flaw != "" && o.Flaw.Description() == "" {
		return nil, fmt.Errorf("stackable operator: unknown flaw %q", o.Flaw)
	}
	o.Namespaces = slices.Clone(o.Namespaces)
	return &Operator{client: c, clock: clk, o: o, owed: map[types.NamespacedName][]Condition{}, due: map[types.NamespacedName]time.Time{}}, nil
}

// Initial are the requests that find the SampleClusters already there,
// one per namespace (a request without a name), as an informer's first
// list would; nil when Options.Namespaces is empty.
func (o *Operator) Initial() []reconcile.Request {
	var out []reconcile.Request
	for _, ns := range o.o.Namespaces {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns}})
	}
	return out
}

// Map is the handler.MapFunc of the watches of owned workloads and pods:
// a workload asks for the SampleCluster that controls it (its owner
// reference), a pod for the one its app.kubernetes.io/instance label
// names, a SampleCluster for itself; anything outside Options.Namespaces
// for nothing.
func (o *Operator) Map(_ context.Context, obj client.Object) []reconcile.Request {
	if !o.serves(obj.GetNamespace()) {
		return nil
	}
	name := obj.GetLabels()[LabelInstance]
	if obj.GetObjectKind().GroupVersionKind() == SampleClusterGVK {
		name = obj.GetName()
	} else if ref := metav1.GetControllerOf(obj); ref != nil && ref.Kind == SampleClusterGVK.Kind && ref.APIVersion == SampleClusterGVK.GroupVersion().String() {
		name = ref.Name
	}
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: name}}}
}

func (o *Operator) serves(ns string) bool {
	return len(o.o.Namespaces) == 0 || slices.Contains(o.o.Namespaces, ns)
}

// Reconcile brings one SampleCluster's workloads and status up to date; a
// request without a name does so for every SampleCluster of its namespace. A
// cluster it cannot render (Desired's error) fails the reconcile, to be
// retried with backoff, and its status is not written: the table applies only
// after a reconcile without errors (004 §Implementation details' precondition,
// decision 004, conformance/stackable/README.md).
func (o *Operator) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if !o.serves(req.Namespace) {
		return reconcile.Result{}, nil
	}
	if req.Name != "" {
		if wait := o.wait(req.NamespacedName); wait > 0 {
			return reconcile.Result{RequeueAfter: wait}, nil
		}
		return reconcile.Result{}, o.reconcile(ctx, req.NamespacedName)
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(SampleClusterGVK.GroupVersion().WithKind(SampleClusterGVK.Kind + "List"))
	if err := o.client.List(ctx, list, client.InNamespace(req.Namespace)); err != nil {
		return reconcile.Result{}, err
	}
	var errs []error
	for _, u := range list.Items {
		errs = append(errs, o.reconcile(ctx, client.ObjectKeyFromObject(&u)))
	}
	return reconcile.Result{}, errors.Join(errs...)
}

// wait is how long the Slow flaw still puts off a cluster's reconcile:
// SlowAfter from the first event that asked for it; 0 without the flaw.
func (o *Operator) wait(key types.NamespacedName) time.Duration {
	if o.o.Flaw != Slow {
		return 0
	}
	now := o.clock.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	due, ok := o.due[key]
	switch {
	case !ok:
		o.due[key] = now.Add(SlowAfter)
		return SlowAfter
	case now.Before(due):
		return due.Sub(now)
	}
	delete(o.due, key)
	return 0
}

func (o *Operator) reconcile(ctx context.Context, key types.NamespacedName) error {
	now := o.clock.Now()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(SampleClusterGVK)
	if err := o.client.Get(ctx, key, u); err != nil {
		if apierrors.IsNotFound(err) {
			o.mu.Lock()
			delete(o.owed, key)
			o.mu.Unlock()
			return nil
		}
		return err
	}
	c, prev, err := clusterOf(u)
	if err != nil {
		return err
	}
	owned, err := o.owned(ctx, c)
	if err != nil {
		return err
	}
	render := c
	if o.o.Flaw == StopKeepsReplicas {
		render.Command, render.Spec.ClusterOperation.Stopped = "", false
	}
	desired, failed := Desired(render, o.o.Profile)
	if o.o.Flaw == StopKeepsDaemonSets && c.Stopped(o.o.Profile) && failed == nil {
		running := c
		running.Command = ""
		all, _ := Desired(running, o.o.Profile)
		for _, w := range all {
			if w.Kind == DaemonSet {
				desired = append(desired, w)
			}
		}
	}
	if failed != nil {
		return failed
	}
	if !c.Paused(o.o.Profile) || o.o.Flaw == WritesWhilePaused {
		if owned, err = o.apply(ctx, c, desired, owned); err != nil {
			return err
		}
	}
	return o.publish(ctx, u, c, prev, owned, now)
}

// owned lists the workloads the cluster controls (by owner UID), all
// kinds, with its instance label.
func (o *Operator) owned(ctx context.Context, c Cluster) ([]client.Object, error) {
	var out []client.Object
	for _, k := range []Kind{StatefulSet, Deployment, DaemonSet} {
		list := newList(k)
		if err := o.client.List(ctx, list, client.InNamespace(c.Namespace), client.MatchingLabels{LabelInstance: c.Name}); err != nil {
			return nil, err
		}
		for _, obj := range items(list) {
			if ref := metav1.GetControllerOf(obj); ref != nil && ref.UID == c.UID {
				out = append(out, obj)
			}
		}
	}
	return out, nil
}

// apply creates the desired workloads that are missing, updates those
// that differ and deletes the owned ones no role wants (a removed role; a
// DaemonSet of a stopped cluster). It returns the owned workloads as
// they are after its writes.
func (o *Operator) apply(ctx context.Context, c Cluster, desired []Workload, owned []client.Object) ([]client.Object, error) {
	var out []client.Object
	for _, w := range desired {
		i := slices.IndexFunc(owned, func(obj client.Object) bool { return kindOf(obj) == w.Kind && obj.GetName() == w.Name })
		if i < 0 {
			obj := newObject(w, c.Namespace)
			if err := o.client.Create(ctx, obj); err != nil {
				return nil, err
			}
			out = append(out, obj)
			continue
		}
		obj := owned[i]
		if reconcileObject(obj, w) {
			if err := o.client.Update(ctx, obj); err != nil {
				return nil, err
			}
		}
		out = append(out, obj)
	}
	for _, obj := range owned {
		if slices.Contains(out, obj) {
			continue
		}
		if err := o.client.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
			return nil, err
		}
	}
	return out, nil
}

// publish writes the cluster's status from its owned workloads and their
// pods, if it changed.
func (o *Operator) publish(ctx context.Context, u *unstructured.Unstructured, c Cluster, prev []Condition, owned []client.Object, now time.Time) error {
	ws, err := o.observe(ctx, c, owned)
	if err != nil {
		return err
	}
	s := ClusterState{Cluster: c, Workloads: ws, Profile: o.o.Profile, Flaw: o.o.Flaw}
	want := Table(s)
	if o.o.Flaw == Late {
		key := types.NamespacedName{Namespace: c.Namespace, Name: c.Name}
		o.mu.Lock()
		owed, ok := o.owed[key]
		o.owed[key] = want
		o.mu.Unlock()
		if !ok {
			return nil
		}
		want = owed
	}
	conds, write := s.stamp(want, prev, now)
	if !write {
		return nil
	}
	if err := setConditions(u, conds); err != nil {
		return err
	}
	return o.client.Status().Update(ctx, u)
}

// observe is the cluster's workloads as the table reads them, one per
// role in the spec's order: an owned workload of the role's kind and
// name with its pods (by the role's labels, those not being deleted), or,
// when there is none, a workload with none of the role's replicas.
func (o *Operator) observe(ctx context.Context, c Cluster, owned []client.Object) ([]WorkloadState, error) {
	pods := &corev1.PodList{}
	if err := o.client.List(ctx, pods, client.InNamespace(c.Namespace), client.MatchingLabels{LabelInstance: c.Name}); err != nil {
		return nil, err
	}
	byRole := map[string][]Pod{}
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			role := p.Labels[LabelComponent]
			byRole[role] = append(byRole[role], Pod{Name: p.Name, Phase: p.Status.Phase})
		}
	}
	var out []WorkloadState
	for _, r := range c.Spec.Roles {
		name := c.Name + "-" + r.Name
		i := slices.IndexFunc(owned, func(obj client.Object) bool { return kindOf(obj) == r.Kind && obj.GetName() == name })
		if i < 0 {
			missing := WorkloadState{Kind: r.Kind, Name: name}
			if r.Kind != DaemonSet {
				missing.Replicas = r.Replicas
			}
			out = append(out, missing)
			continue
		}
		st := stateOf(owned[i], byRole[r.Name])
		if r.Kind != DaemonSet && o.o.Profile == ProfileSeed && o.o.Flaw != DesiredFromWorkload {
			st.Replicas = r.Replicas // the cluster's spec says what is desired (decision 004, conformance/stackable/README.md)
		}
		out = append(out, st)
	}
	return out, nil
}
