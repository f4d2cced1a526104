package componentoperator

import (
	"context"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/reference/component"
)

// The labels and annotations of the world opcert plays the operator in: a
// pod runs the version its template's label says, which is what the rules
// read of the operands.
const (
	versionLabel         = "opcert.io/version"
	workloadLabel        = "opcert.io/workload" // on each pod: its workload
	operandLabel         = "opcert.io/operand"
	readyAfterAnnotation = "opcert.io/ready-after"
	blockerKey           = "upgradeBlocker" // of the admin's ConfigMap
	// updatedAnnotation is the operator's own note of when it last wrote
	// an operand's spec, so that a restarted process knows how long a
	// rollout has been moving (component.Operand.Updated).
	updatedAnnotation = "componentoperator.example.com/updated"
)

// Reconciler is the operator: at each look it reads its ClusterOperator
// (its memory: the versions reached, whether it was rolling out), its
// operands and their pods, and the admin's blocker; it writes the operand
// specs and the one status the core decides.
type Reconciler struct {
	client client.Client
	clock  clock.PassiveClock
	opts   Options
	params component.Params
	looked bool // set after the process's first look
}

// NewReconciler returns the operator described by opts, talking through c,
// taking every time it writes from clk.
func NewReconciler(c client.Client, clk clock.PassiveClock, opts Options) *Reconciler {
	if opts.AdminConfigMap == "" {
		opts.AdminConfigMap = opts.Name + "-admin"
	}
	params := component.DefaultParams(opts.Name, opts.Version)
	if opts.StuckAfter > 0 {
		params.StuckAfter = opts.StuckAfter
	}
	return &Reconciler{client: c, clock: clk, opts: opts, params: params}
}

// Reconcile looks once, whatever the request: the operator has one
// ClusterOperator and one namespace, and any change in them may change
// what it reports.
func (r *Reconciler) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	co := &configv1.ClusterOperator{}
	err := r.client.Get(ctx, client.ObjectKey{Name: r.opts.Name}, co)
	if apierrors.IsNotFound(err) {
		// Creating it is the operator's job: the version operator only
		// waits for it (001 §How ClusterVersionOperator handles
		// ClusterOperator in release image).
		co = &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: r.opts.Name}}
		err = r.client.Create(ctx, co)
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	in, err := r.look(ctx, co.Status)
	if err != nil {
		return reconcile.Result{}, err
	}
	in.FirstLook = !r.looked
	now := r.clock.Now()
	out := r.params.Step(in, now)
	for _, s := range out.Specs {
		if err := r.writeSpec(ctx, s, now); err != nil {
			return reconcile.Result{}, err
		}
	}
	// The core makes at most one write: the status is atomic (001 §Status).
	for _, st := range out.Writes {
		co.Status = st
		if err := r.client.Status().Update(ctx, co); err != nil {
			return reconcile.Result{}, err
		}
	}
	r.looked = true
	if out.Next.IsZero() {
		return reconcile.Result{}, nil
	}
	return reconcile.Result{RequeueAfter: max(out.Next.Sub(now), time.Millisecond)}, nil
}

// look reads what the core decides from.
func (r *Reconciler) look(ctx context.Context, status configv1.ClusterOperatorStatus) (component.Input, error) {
	in := component.Input{Status: status}
	pods := &corev1.PodList{}
	if err := r.client.List(ctx, pods, client.InNamespace(r.opts.Namespace)); err != nil {
		return in, err
	}
	byWorkload := map[string][]component.Pod{}
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			byWorkload[p.Labels[workloadLabel]] = append(byWorkload[p.Labels[workloadLabel]], podOf(p))
		}
	}
	for _, od := range r.opts.Operands {
		op := component.Operand{Kind: od.Kind, Name: od.Name, Replicas: od.Replicas, Pods: byWorkload[od.Name]}
		if od.Kind == component.DaemonSet {
			op.Nodes = r.opts.Nodes
		}
		obj := workloadObject(od.Kind)
		err := r.client.Get(ctx, client.ObjectKey{Namespace: r.opts.Namespace, Name: od.Name}, obj)
		switch {
		case err == nil:
			op.Spec = component.Level{Version: template(obj).Labels[versionLabel]}
			op.Updated, _ = time.Parse(time.RFC3339, obj.GetAnnotations()[updatedAnnotation])
		case !apierrors.IsNotFound(err):
			return in, err
		}
		in.Operands = append(in.Operands, op)
	}
	admin := &corev1.ConfigMap{}
	err := r.client.Get(ctx, client.ObjectKey{Namespace: r.opts.Namespace, Name: r.opts.AdminConfigMap}, admin)
	switch {
	case err == nil && admin.Data[blockerKey] != "":
		in.Blockers = []component.Blocker{{Reason: "AdminActionRequired", Message: admin.Data[blockerKey]}}
	case err != nil && !apierrors.IsNotFound(err):
		return in, err
	}
	return in, nil
}

// podOf is a pod as the core sees it: its version from its label, ready
// from its Ready condition, changed last when that condition moved.
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

// writeSpec creates or updates an operand to run the level the core asks
// for, noting when.
func (r *Reconciler) writeSpec(ctx context.Context, s component.Spec, now time.Time) error {
	var od Operand
	for _, o := range r.opts.Operands {
		if o.Name == s.Name {
			od = o
		}
	}
	obj := workloadObject(od.Kind)
	key := client.ObjectKey{Namespace: r.opts.Namespace, Name: od.Name}
	err := r.client.Get(ctx, key, obj)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	exists := err == nil
	obj.SetNamespace(key.Namespace)
	obj.SetName(key.Name)
	r.fill(obj, od, s.Level.Version, now)
	if exists {
		return r.client.Update(ctx, obj)
	}
	return r.client.Create(ctx, obj)
}

// fill sets what the operator owns of a workload: its replicas, selector
// and pod template at version v.
func (r *Reconciler) fill(obj client.Object, od Operand, v string, now time.Time) {
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"app": od.Name}}
	tmpl := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": od.Name, versionLabel: v}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: od.Name, Image: "example.com/" + od.Name + ":" + v}}},
	}
	switch w := obj.(type) {
	case *appsv1.Deployment:
		replicas := int32(od.Replicas)
		w.Spec.Replicas, w.Spec.Selector, w.Spec.Template = &replicas, selector, tmpl
	case *appsv1.DaemonSet:
		w.Spec.Selector, w.Spec.Template = selector, tmpl
	}
	obj.SetLabels(with(obj.GetLabels(), operandLabel, "true"))
	annotations := with(obj.GetAnnotations(), updatedAnnotation, now.UTC().Format(time.RFC3339))
	if r.opts.ReadyAfter > 0 {
		annotations[readyAfterAnnotation] = r.opts.ReadyAfter.String()
	}
	obj.SetAnnotations(annotations)
}

// with is m (made if nil) with k set to v.
func with(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

// workloadObject is an empty workload of kind k.
func workloadObject(k component.Kind) client.Object {
	if k == component.DaemonSet {
		return &appsv1.DaemonSet{}
	}
	return &appsv1.Deployment{}
}

// template is a workload's pod template's metadata.
func template(obj client.Object) metav1.ObjectMeta {
	if d, ok := obj.(*appsv1.DaemonSet); ok {
		return d.Spec.Template.ObjectMeta
	}
	return obj.(*appsv1.Deployment).Spec.Template.ObjectMeta
}
