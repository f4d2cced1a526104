package faithful

import (
	"context"
	"fmt"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/sim/workload"
)

// The world's keys (the package doc).
const (
	labelVersion = workload.LabelVersion
	labelApp     = "app"
	blockerKey   = "upgradeBlocker"
)

// Setup is an operator's place in the world: what a team's operator knows
// of itself.
type Setup struct {
	Name      string // its ClusterOperator
	Namespace string // its operands'
	// Self is its own Deployment: the version it runs is its pod
	// template's; absent, it is not deployed yet and does nothing.
	Self types.NamespacedName
	// AdminConfigMap names the ConfigMap in Namespace whose data an admin blocks upgrades with.
	AdminConfigMap string
	// Operands are the workloads it rolls out, in order.
	Operands   []Operand
	Nodes      []string      // a DaemonSet's
	ReadyAfter time.Duration // passed on to the operands, if set
}

// Operand is a workload the operator rolls out.
type Operand struct {
	Kind string // Deployment or DaemonSet
	// Name is the workload's, in the Setup's Namespace.
	Name     string
	Replicas int // a Deployment's
}

// Operator is one component's operator: a controller-runtime Reconciler
// that reacts to a change only at its next look (Variant.look).
type Operator struct {
	c     client.Client
	clk   clock.PassiveClock
	setup Setup
	v     Variant

	next time.Time // the look pending, zero if none
	mem  memory
}

// New returns the operator of setup, variant v, talking through c, its
// time from clk.
func New(c client.Client, clk clock.PassiveClock, setup Setup, v Variant) *Operator {
	return &Operator{c: c, clk: clk, setup: setup, v: v}
}

// Reconcile is woken by any change of its objects; it looks only when a
// look is due (its variant's latency after the first change it has not
// looked at yet), and otherwise asks to be woken then.
func (o *Operator) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	now := o.clk.Now()
	if at := o.v.look(now); o.next.IsZero() || at.Before(o.next) {
		o.next = at
	}
	if now.Before(o.next) {
		return reconcile.Result{RequeueAfter: o.next.Sub(now)}, nil
	}
	o.next = time.Time{}
	wake, err := o.look(ctx, now)
	if err != nil || wake.IsZero() {
		return reconcile.Result{}, err
	}
	// A deadline of its own (a stall's): looked at when it falls.
	o.next = wake
	return reconcile.Result{RequeueAfter: max(wake.Sub(now), time.Nanosecond)}, nil
}

// look reads the world, writes what the specs and the status must be,
// and returns when it must look again with nothing changed (zero: never).
func (o *Operator) look(ctx context.Context, now time.Time) (time.Time, error) {
	self := &appsv1.Deployment{}
	if err := o.c.Get(ctx, o.setup.Self, self); err != nil {
		return time.Time{}, client.IgnoreNotFound(err)
	}
	version := self.Spec.Template.Labels[labelVersion]
	co := &configv1.ClusterOperator{}
	err := o.c.Get(ctx, client.ObjectKey{Name: o.setup.Name}, co)
	if apierrors.IsNotFound(err) {
		co = &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: o.setup.Name}}
		err = o.c.Create(ctx, co)
	}
	if err != nil {
		return time.Time{}, err
	}
	obs, err := o.observe(ctx)
	if err != nil {
		return time.Time{}, err
	}
	applied := false
	obs.refused = nil
	for _, w := range obs.workloads {
		if w.asks == version {
			continue
		}
		switch err := o.apply(ctx, w.Operand, version); {
		case apierrors.IsConflict(err):
			return time.Time{}, err // a race: looked at again at once
		case err != nil:
			// Refused: said in the status, tried again at the next look
			// (001 honored by components 2: "the API servers are down so
			// I failed to update").
			obs.refused = append(obs.refused, fmt.Sprintf("%s %s (%v)", w.Kind, w.Name, err))
		default:
			w.asks, applied = version, true
		}
	}
	o.mem.note(obs, version, applied, now, o.v.stalledSince(co.Status, version))
	status, wake := o.v.status(o.setup, co.Status, obs, &o.mem, version, now)
	if status != nil {
		co.Status = *status
		if err := o.c.Status().Update(ctx, co); err != nil {
			return time.Time{}, err
		}
	}
	if len(obs.refused) > 0 {
		if retry := o.v.look(now.Add(time.Second)); wake.IsZero() || retry.Before(wake) {
			wake = retry
		}
	}
	return wake, nil
}

// observe reads the operands, their pods and the blocker.
func (o *Operator) observe(ctx context.Context) (observed, error) {
	var obs observed
	pods := &corev1.PodList{}
	if err := o.c.List(ctx, pods, client.InNamespace(o.setup.Namespace)); err != nil {
		return obs, err
	}
	for _, op := range o.setup.Operands {
		w := &seen{Operand: op}
		obj := object(op.Kind)
		err := o.c.Get(ctx, client.ObjectKey{Namespace: o.setup.Namespace, Name: op.Name}, obj)
		switch {
		case err == nil:
			w.asks = templateOf(obj).Labels[labelVersion]
		case !apierrors.IsNotFound(err):
			return obs, err
		}
		for _, p := range pods.Items {
			if p.DeletionTimestamp != nil || p.Labels[workload.LabelWorkload] != op.Name {
				continue
			}
			w.pods = append(w.pods, podSeen{name: p.Name, node: p.Spec.NodeName, version: p.Labels[labelVersion], ready: ready(p)})
		}
		obs.workloads = append(obs.workloads, w)
	}
	cm := &corev1.ConfigMap{}
	err := o.c.Get(ctx, client.ObjectKey{Namespace: o.setup.Namespace, Name: o.setup.AdminConfigMap}, cm)
	switch {
	case err == nil:
		obs.blocker = cm.Data[blockerKey]
	case !apierrors.IsNotFound(err):
		return obs, err
	}
	obs.nodes = o.setup.Nodes
	return obs, nil
}

func ready(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// apply writes an operand's spec to run version v.
func (o *Operator) apply(ctx context.Context, op Operand, v string) error {
	obj := object(op.Kind)
	key := client.ObjectKey{Namespace: o.setup.Namespace, Name: op.Name}
	err := o.c.Get(ctx, key, obj)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	exists := err == nil
	obj.SetNamespace(key.Namespace)
	obj.SetName(key.Name)
	if o.setup.ReadyAfter > 0 {
		a := obj.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a[workload.AnnotationReadyAfter] = o.setup.ReadyAfter.String()
		obj.SetAnnotations(a)
	}
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{labelApp: op.Name}}
	tmpl := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{labelApp: op.Name, labelVersion: v}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "registry.example/" + op.Name + "@" + v}}},
	}
	switch x := obj.(type) {
	case *appsv1.Deployment:
		n := int32(op.Replicas)
		x.Spec.Replicas, x.Spec.Selector, x.Spec.Template = &n, sel, tmpl
	case *appsv1.DaemonSet:
		x.Spec.Selector, x.Spec.Template = sel, tmpl
	}
	if exists {
		return o.c.Update(ctx, obj)
	}
	return o.c.Create(ctx, obj)
}

func object(kind string) client.Object {
	if kind == "DaemonSet" {
		return &appsv1.DaemonSet{}
	}
	return &appsv1.Deployment{}
}

func templateOf(obj client.Object) metav1.ObjectMeta {
	if d, ok := obj.(*appsv1.DaemonSet); ok {
		return d.Spec.Template.ObjectMeta
	}
	return obj.(*appsv1.Deployment).Spec.Template.ObjectMeta
}
