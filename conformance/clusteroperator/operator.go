package clusteroperator

import (
	"context"
	"fmt"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/reference/component"
	"github.com/opcert/opcert/sim/workload"
)

// operator is a component's operator process: the adapter of
// reference/component's core (or a broken subject's flaws of it). Each
// look reads its own Deployment (the version it runs: what the version
// operator applied, nothing before that), its ClusterOperator (its memory),
// its operands and their pods, and the admin's blocker; it writes the
// operand specs and the status the core decides.
type operator struct {
	c     client.Client
	clk   clock.PassiveClock
	comp  Component
	nodes []string
	flaws []component.Flaw
	// looked is set once this process has looked at its world (the core's
	// Input.FirstLook: a new process, a restart, knows nothing yet).
	looked bool
}

func (o *operator) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	name := o.comp.Name
	self := &appsv1.Deployment{}
	if err := o.c.Get(ctx, client.ObjectKey{Namespace: operatorNamespace(name), Name: operatorDeployment(name)}, self); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err) // not deployed: nothing runs yet
	}
	params := component.DefaultParams(name, self.Spec.Template.Labels[versionLabel])
	params.Flaws = o.flaws
	if o.comp.Failing {
		params.Degraded = component.Failing
	}
	co := &configv1.ClusterOperator{}
	if err := o.c.Get(ctx, client.ObjectKey{Name: name}, co); apierrors.IsNotFound(err) {
		co = &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if err := o.c.Create(ctx, co); err != nil {
			return reconcile.Result{}, err
		}
	} else if err != nil {
		return reconcile.Result{}, err
	}
	in, err := o.look(ctx, co)
	if err != nil {
		return reconcile.Result{}, err
	}
	in.FirstLook = !o.looked
	now := o.clk.Now()
	out := params.Step(in, now)
	for _, s := range out.Specs {
		if err := o.writeSpec(ctx, s, now); err != nil {
			return reconcile.Result{}, err
		}
	}
	for _, st := range out.Writes {
		co.Status = st
		if err := o.c.Status().Update(ctx, co); err != nil {
			return reconcile.Result{}, err
		}
	}
	o.looked = true
	if out.Next.IsZero() {
		return reconcile.Result{}, nil
	}
	return reconcile.Result{RequeueAfter: max(out.Next.Sub(now), time.Nanosecond)}, nil
}

// look reads what the core decides from.
func (o *operator) look(ctx context.Context, co *configv1.ClusterOperator) (component.Input, error) {
	ns := o.comp.Name
	in := component.Input{Status: co.Status}
	pods := &corev1.PodList{}
	if err := o.c.List(ctx, pods, client.InNamespace(ns)); err != nil {
		return in, err
	}
	byWorkload := map[string][]component.Pod{}
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil {
			continue
		}
		byWorkload[p.Labels[workload.LabelWorkload]] = append(byWorkload[p.Labels[workload.LabelWorkload]], podOf(p))
	}
	for _, od := range o.comp.Operands {
		op := component.Operand{Kind: component.Kind(od.Kind), Name: od.Name, Replicas: od.Replicas, Pods: byWorkload[od.Name]}
		if op.Kind == component.DaemonSet {
			op.Nodes = o.nodes
		}
		obj := workloadObject(od)
		if err := o.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: od.Name}, obj); err == nil {
			meta := templateOf(obj)
			op.Spec = component.Level{Version: meta.Labels[versionLabel]}
			op.Updated, _ = time.Parse(time.RFC3339, obj.GetAnnotations()[updatedAnnotation])
		} else if !apierrors.IsNotFound(err) {
			return in, err
		}
		in.Operands = append(in.Operands, op)
	}
	admin := &corev1.ConfigMap{}
	if err := o.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: adminConfigMap(ns)}, admin); err == nil {
		if msg := admin.Data[blockerKey]; msg != "" {
			in.Blockers = []component.Blocker{{Reason: "AdminActionRequired", Message: msg}}
		}
	} else if !apierrors.IsNotFound(err) {
		return in, err
	}
	return in, nil
}

// checkOperatorSubject refuses a subject the operator role cannot be
// played by here.
func (w *world) checkOperatorSubject() error {
	switch w.subject.(type) {
	case operatorImpl, conformance.Reconciler:
		return nil
	}
	return fmt.Errorf("%s: the %s role cannot be played by %T", Name, RoleOperator, w.subject)
}

// operatorReconciler is a component's operator process in virtual time:
// opcert's (the reference's adapter, with a broken subject's flaws) or a
// team's Go reconciler (library mode), built for the component it owns
// with the run's client and clock. A team's reconciler finds the version
// it runs, its operands and its admin's blocker by the conventions of
// payload.go, as the reference does.
func (w *world) operatorReconciler(c client.Client, comp Component) (reconcile.Reconciler, error) {
	clk := w.st.Sched.Clock()
	if r, ok := w.subject.(conformance.Reconciler); ok {
		return r.New(conformance.Instance{Client: c, Clock: clk, Name: comp.Name})
	}
	return &operator{c: c, clk: clk, comp: comp, nodes: w.spec.nodes(), flaws: w.subject.(operatorImpl)()}, nil
}

// podOf is a pod as the core sees it: its level from its labels, ready
// from its Ready condition, changed last when that condition last moved
// (the kubelet writes it, in the run's time, from the pod's first report;
// the creation timestamp is the API server's wall clock, not the run's).
func podOf(p corev1.Pod) component.Pod {
	out := component.Pod{Name: p.Name, Node: p.Spec.NodeName, Level: component.Level{Version: p.Labels[versionLabel]}}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			out.Ready = c.Status == corev1.ConditionTrue
			out.Since = c.LastTransitionTime.Time
		}
	}
	return out
}

// writeSpec creates or updates an operand's workload to run the level the
// core asks for, noting when.
func (o *operator) writeSpec(ctx context.Context, s component.Spec, now time.Time) error {
	od, ok := operandNamed(o.comp, s.Name)
	if !ok {
		return fmt.Errorf("the core asked for operand %q, which component %s does not have", s.Name, o.comp.Name)
	}
	obj := workloadObject(od)
	key := client.ObjectKey{Namespace: o.comp.Name, Name: od.Name}
	err := o.c.Get(ctx, key, obj)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	exists := err == nil
	fill(obj, od, o.comp, s.Level.Version)
	annotations := obj.GetAnnotations()
	annotations[updatedAnnotation] = now.UTC().Format(time.RFC3339)
	obj.SetAnnotations(annotations)
	if exists {
		return o.c.Update(ctx, obj)
	}
	obj.SetNamespace(key.Namespace)
	obj.SetName(key.Name)
	return o.c.Create(ctx, obj)
}

func operandNamed(c Component, name string) (Operand, bool) {
	for _, o := range c.Operands {
		if o.Name == name {
			return o, true
		}
	}
	return Operand{}, false
}

// workloadObject is an empty workload of the operand's kind.
func workloadObject(od Operand) client.Object {
	if od.Kind == "DaemonSet" {
		return &appsv1.DaemonSet{}
	}
	return &appsv1.Deployment{}
}

// templateOf is a workload's pod template's metadata.
func templateOf(obj client.Object) *metav1.ObjectMeta {
	switch w := obj.(type) {
	case *appsv1.Deployment:
		return &w.Spec.Template.ObjectMeta
	case *appsv1.DaemonSet:
		return &w.Spec.Template.ObjectMeta
	}
	panic(fmt.Sprintf("not a workload: %T", obj))
}

// fill sets what the operator owns of a workload: replicas, selector, the
// pod template at version v, and the pace the world gives its pods.
func fill(obj client.Object, od Operand, comp Component, v string) {
	labels := map[string]string{"app": od.Name}
	template := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": od.Name, versionLabel: v}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: od.Name, Image: "example.com/" + od.Name + ":" + v}}},
	}
	switch w := obj.(type) {
	case *appsv1.Deployment:
		replicas := int32(od.Replicas)
		w.Spec.Replicas, w.Spec.Selector, w.Spec.Template = &replicas, &metav1.LabelSelector{MatchLabels: labels}, template
	case *appsv1.DaemonSet:
		w.Spec.Selector, w.Spec.Template = &metav1.LabelSelector{MatchLabels: labels}, template
	}
	meta := obj.GetLabels()
	if meta == nil {
		meta = map[string]string{}
	}
	meta[operandLabel] = "true"
	obj.SetLabels(meta)
	annotations := obj.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[readyAfterAnnotation] = comp.readyAfter().String()
	obj.SetAnnotations(annotations)
}
