// Package faithful holds seed 004's faithful operators: written from the ADR
// (Stackable's ADR027) and decision 004, conformance/stackable/README.md, not
// from reference/stackable, and different from it wherever the seed allows, so
// that the self-test shows the STACKABLE rules accept more than the reference.
// Each is a controller-runtime Reconciler over the SampleCluster (read as
// unstructured), its workloads and their pods.
//
// Where they differ from the reference:
//   - "requeue" reacts to every change only after a requeue of Latency
//     (20 s, within the rules' 30 s bound), words its messages its own way
//     with its own reasons, writes no lastProbeTime, takes the other
//     answer where the Progressing rows overlap (True while a pod still
//     runs), reports a failed reconcile itself (Degraded True with the
//     error), and names its workloads <cluster>-<role>-<kind>.
//   - "terse" reacts at once, writes no reason at all, conditions in
//     another order, Degraded and Progressing Unknown where the table
//     leaves them open, the table's rows by the letter while stopped
//     (only Available forced False), and stops writing its status while
//     its reconcile fails.
package faithful

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Variant is one faithful operator.
type Variant string

// The variants.
const (
	Requeue Variant = "requeue"
	Terse   Variant = "terse"
)

// Latency is how long Requeue waits before it reconciles a change.
const Latency = 20 * time.Second

// ClusterGVK is the SampleCluster (fixtures/sampleclusters.crd.yaml).
var ClusterGVK = schema.GroupVersionKind{Group: "samples.opcert.io", Version: "v1alpha1", Kind: "SampleCluster"}

// The labels the harness finds a cluster's pods by (its scenarios' steps
// name a pod by its cluster and role).
const (
	labelInstance  = "app.kubernetes.io/instance"
	labelComponent = "app.kubernetes.io/component"
	annotation     = "operator-command"
)

// Operator is a faithful operator of SampleClusters.
type Operator struct {
	c          client.Client
	clk        clock.PassiveClock
	v          Variant
	namespaces []string

	mu          sync.Mutex
	pausedSince map[types.NamespacedName]time.Time // when each paused cluster's pause began
}

// New is the variant v talking through c, with time from clk, serving
// namespaces.
func New(v Variant, c client.Client, clk clock.PassiveClock, namespaces []string) (*Operator, error) {
	if v != Requeue && v != Terse {
		return nil, fmt.Errorf("faithful stackable operator: no variant %q", v)
	}
	return &Operator{c: c, clk: clk, v: v, namespaces: slices.Clone(namespaces), pausedSince: map[types.NamespacedName]time.Time{}}, nil
}

// Initial asks for every SampleCluster of each namespace.
func (o *Operator) Initial() []reconcile.Request {
	out := make([]reconcile.Request, 0, len(o.namespaces))
	for _, ns := range o.namespaces {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns}})
	}
	return out
}

// Map asks for the cluster an object's instance label names (a
// SampleCluster for itself).
func (o *Operator) Map(_ context.Context, obj client.Object) []reconcile.Request {
	if !slices.Contains(o.namespaces, obj.GetNamespace()) {
		return nil
	}
	name := obj.GetLabels()[labelInstance]
	if obj.GetObjectKind().GroupVersionKind() == ClusterGVK {
		name = obj.GetName()
	}
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: name}}}
}

// Reconcile reconciles one cluster, or every cluster of a namespace.
func (o *Operator) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if req.Name == "" {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(ClusterGVK.GroupVersion().WithKind(ClusterGVK.Kind + "List"))
		if err := o.c.List(ctx, list, client.InNamespace(req.Namespace)); err != nil {
			return reconcile.Result{}, err
		}
		var errs []error
		for _, u := range list.Items {
			errs = append(errs, o.sync(ctx, client.ObjectKeyFromObject(&u)))
		}
		return reconcile.Result{}, errors.Join(errs...)
	}
	if wait := o.wait(req.NamespacedName); wait > 0 {
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	return reconcile.Result{}, o.sync(ctx, req.NamespacedName)
}

// wait is how long Requeue still puts a cluster's reconcile off: the
// first event for a cluster starts a Latency-long pause, and the reconcile
// that comes once it is over runs and ends it.
func (o *Operator) wait(key types.NamespacedName) time.Duration {
	if o.v != Requeue {
		return 0
	}
	now := o.clk.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	since, paused := o.pausedSince[key]
	if !paused {
		o.pausedSince[key] = now
		return Latency
	}
	if left := since.Add(Latency).Sub(now); left > 0 {
		return left
	}
	delete(o.pausedSince, key)
	return 0
}

// role is one entry of a SampleCluster's spec.roles.
type role struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Replicas int32  `json:"replicas"`
}

// spec is what the operator reads of a SampleCluster's spec.
type spec struct {
	Roles  []role `json:"roles"`
	Broken string `json:"broken"`
}

func (o *Operator) sync(ctx context.Context, key types.NamespacedName) error {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(ClusterGVK)
	if err := o.c.Get(ctx, key, u); err != nil {
		return client.IgnoreNotFound(err)
	}
	var sp spec
	if err := fromMap(u.Object["spec"], &sp); err != nil {
		return err
	}
	command := u.GetAnnotations()[annotation]
	if sp.Broken != "" {
		// The table applies only after a reconcile without errors; Requeue
		// reports the error itself, Terse leaves its status as it was.
		err := fmt.Errorf("cluster %s cannot be rendered: %s", key, sp.Broken)
		if o.v == Requeue {
			conds := o.current(u)
			conds = set(conds, metav1.Condition{Type: "Degraded", Status: metav1.ConditionTrue, Reason: "ReconcileFailed", Message: err.Error()}, o.clk.Now())
			return errors.Join(err, o.write(ctx, u, conds))
		}
		return err
	}
	if command != "Paused" {
		if err := o.apply(ctx, u, sp, command == "Stopped"); err != nil {
			return err
		}
	}
	obs, err := o.observe(ctx, u, sp)
	if err != nil {
		return err
	}
	conds := o.current(u)
	for _, c := range o.table(obs, command) {
		conds = set(conds, c, o.clk.Now())
	}
	return o.write(ctx, u, conds)
}

// workloadName is the name of a role's workload.
func (o *Operator) workloadName(cluster string, r role) string {
	if o.v == Requeue {
		return cluster + "-" + r.Name + "-" + strings.ToLower(r.Kind)
	}
	return cluster + "-" + r.Name
}

// apply creates or scales each role's workload; stopped, to 0 replicas, a
// DaemonSet (which cannot scale) deleted.
func (o *Operator) apply(ctx context.Context, u *unstructured.Unstructured, sp spec, stopped bool) error {
	for _, r := range sp.Roles {
		labels := map[string]string{labelInstance: u.GetName(), labelComponent: r.Name}
		meta := metav1.ObjectMeta{Namespace: u.GetNamespace(), Name: o.workloadName(u.GetName(), r), Labels: labels}
		sel := &metav1.LabelSelector{MatchLabels: labels}
		tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}}}}
		n := r.Replicas
		if stopped {
			n = 0
		}
		var obj client.Object
		switch r.Kind {
		case "StatefulSet":
			obj = &appsv1.StatefulSet{ObjectMeta: meta, Spec: appsv1.StatefulSetSpec{Replicas: &n, Selector: sel, Template: tmpl}}
		case "Deployment":
			obj = &appsv1.Deployment{ObjectMeta: meta, Spec: appsv1.DeploymentSpec{Replicas: &n, Selector: sel, Template: tmpl}}
		case "DaemonSet":
			obj = &appsv1.DaemonSet{ObjectMeta: meta, Spec: appsv1.DaemonSetSpec{Selector: sel, Template: tmpl}}
		default:
			continue
		}
		if err := o.ensure(ctx, obj, n, stopped && r.Kind == "DaemonSet"); err != nil {
			return err
		}
	}
	return nil
}

// ensure makes want exist with n replicas (gone, when remove).
func (o *Operator) ensure(ctx context.Context, want client.Object, n int32, remove bool) error {
	have := want.DeepCopyObject().(client.Object)
	err := o.c.Get(ctx, client.ObjectKeyFromObject(want), have)
	switch {
	case apierrors.IsNotFound(err) && remove:
		return nil
	case apierrors.IsNotFound(err):
		return o.c.Create(ctx, want)
	case err != nil:
		return err
	case remove:
		return client.IgnoreNotFound(o.c.Delete(ctx, have))
	}
	var replicas **int32
	switch h := have.(type) {
	case *appsv1.StatefulSet:
		replicas = &h.Spec.Replicas
	case *appsv1.Deployment:
		replicas = &h.Spec.Replicas
	default:
		return nil
	}
	if *replicas != nil && **replicas == n {
		return nil
	}
	*replicas = &n
	return o.c.Update(ctx, have)
}

// observed is what the table reads of a cluster: per role, replicas
// desired (the spec's; a DaemonSet's controller's) and available, and its
// pods' phases by name.
type observed struct {
	equal, fewer bool
	unknown      []string
	failed       []string
	live         bool
}

func (o *Operator) observe(ctx context.Context, u *unstructured.Unstructured, sp spec) (observed, error) {
	obs := observed{equal: true}
	for _, r := range sp.Roles {
		key := types.NamespacedName{Namespace: u.GetNamespace(), Name: o.workloadName(u.GetName(), r)}
		want, got := r.Replicas, int32(0)
		switch r.Kind {
		case "StatefulSet":
			s := &appsv1.StatefulSet{}
			if err := o.c.Get(ctx, key, s); client.IgnoreNotFound(err) != nil {
				return obs, err
			}
			got = s.Status.AvailableReplicas
		case "Deployment":
			d := &appsv1.Deployment{}
			if err := o.c.Get(ctx, key, d); client.IgnoreNotFound(err) != nil {
				return obs, err
			}
			got = d.Status.AvailableReplicas
		case "DaemonSet":
			d := &appsv1.DaemonSet{}
			err := o.c.Get(ctx, key, d)
			if client.IgnoreNotFound(err) != nil {
				return obs, err
			}
			want, got = d.Status.DesiredNumberScheduled, d.Status.NumberAvailable
			if err != nil {
				want = 1 // not there: its nodes want a pod it does not run
			}
		}
		obs.equal = obs.equal && got == want
		obs.fewer = obs.fewer || got < want
	}
	pods := &corev1.PodList{}
	if err := o.c.List(ctx, pods, client.InNamespace(u.GetNamespace()), client.MatchingLabels{labelInstance: u.GetName()}); err != nil {
		return obs, err
	}
	for _, p := range pods.Items {
		switch p.Status.Phase {
		case corev1.PodUnknown:
			obs.unknown = append(obs.unknown, p.Name)
		case corev1.PodFailed:
			obs.failed = append(obs.failed, p.Name)
		}
		obs.live = obs.live || p.Status.Phase != corev1.PodFailed
	}
	sort.Strings(obs.unknown)
	sort.Strings(obs.failed)
	return obs, nil
}

// fromMap moves an unstructured value into out.
func fromMap(v any, out any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	return runtimeConvert(m, out)
}
