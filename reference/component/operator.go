package component

import (
	"context"
	"fmt"
	"strings"
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
)

// The adapter: the core as a controller-runtime Reconciler in seed 001's
// world as opcert lays it out (a component's operands are the Deployments
// and DaemonSets of its namespace; a pod runs the version its template's
// label says; the admin's blocker is a ConfigMap's key). The simulator
// runs it as the reference operator; time comes only from the clock it is
// given.

// The labels, annotations and keys of the world.
const (
	VersionLabel  = "opcert.io/version"  // on a pod template and its pods: the version it runs
	WorkloadLabel = "opcert.io/workload" // on a pod template and its pods: its workload (the rules match pods to operands by it)
	OperandLabel  = "opcert.io/operand"  // on each operand workload
	// ReadyAfterAnnotation on an operand tells opcert's simulated pods how
	// long they take to get ready.
	ReadyAfterAnnotation = "opcert.io/ready-after"
	// UpdatedAnnotation is the operator's own note of when it last wrote
	// an operand's spec, so that a restarted process knows how long a
	// rollout has been moving (Operand.Updated).
	UpdatedAnnotation = "opcert.io/updated"
	BlockerKey        = "upgradeBlocker" // of the admin's ConfigMap
)

// Options are an operator's identity and its world.
type Options struct {
	// Name is its ClusterOperator's.
	Name string
	// Namespace is where its operands run.
	Namespace string
	// Version is what it runs, and so what its operands must run. When
	// Deployment is set, the version is read from that Deployment (the
	// operator's own) at each look, and the operator does nothing while it
	// is absent: it is not deployed yet.
	Version string
	// Deployment, when set, is the operator's own Deployment, its Version read from it.
	Deployment *types.NamespacedName
	// Operands are the workloads it rolls out.
	Operands []Workload
	// Nodes are where a DaemonSet operand must run.
	Nodes []string
	// AdminConfigMap names the ConfigMap, in Namespace, whose BlockerKey
	// says what the admin must fix before an upgrade (default Name-admin).
	AdminConfigMap string
	// ReadyAfter, when set, is passed on to each operand as
	// ReadyAfterAnnotation.
	ReadyAfter time.Duration
	// StuckAfter, Degraded and Flaws are the core's (Params); zero values
	// take its defaults.
	StuckAfter time.Duration
	// Degraded is the condition type failures are reported on (Params).
	Degraded configv1.ClusterStatusConditionType
	// Flaws are the deliberate departures of a broken subject (Params); none for the reference.
	Flaws []Flaw
}

// Workload is an operand as the operator declares it.
type Workload struct {
	// Kind is the workload's kind.
	Kind Kind
	// Name is the workload's name, unique among the operands.
	Name     string
	Replicas int // a Deployment's
}

// Operator is the core's adapter: at each look it reads its ClusterOperator
// (its memory: the versions reached, whether it was rolling out), its
// operands and their pods, and the admin's blocker; it writes the operand
// specs and the status the core decides.
type Operator struct {
	client client.Client
	clock  clock.PassiveClock
	opts   Options
	looked bool // set after the process's first look (Input.FirstLook)
}

// NewOperator returns the operator described by opts, talking through c,
// taking every time it writes from clk.
func NewOperator(c client.Client, clk clock.PassiveClock, opts Options) *Operator {
	if opts.AdminConfigMap == "" {
		opts.AdminConfigMap = opts.Name + "-admin"
	}
	return &Operator{client: c, clock: clk, opts: opts}
}

// Reconcile looks once, whatever the request: the operator has one
// ClusterOperator and one namespace, and any change in them may change
// what it reports.
func (o *Operator) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	version, deployed, err := o.version(ctx)
	if err != nil || !deployed {
		return reconcile.Result{}, err
	}
	params := Params{Name: o.opts.Name, Version: version, StuckAfter: o.opts.StuckAfter, Degraded: o.opts.Degraded,
		Flaws: o.opts.Flaws}
	co := &configv1.ClusterOperator{}
	err = o.client.Get(ctx, client.ObjectKey{Name: o.opts.Name}, co)
	if apierrors.IsNotFound(err) {
		// Creating it is the operator's job: the version operator only
		// waits for it (001 §How ClusterVersionOperator handles
		// ClusterOperator in release image).
		co = &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: o.opts.Name}}
		err = o.client.Create(ctx, co)
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	in, err := o.look(ctx, co.Status)
	if err != nil {
		return reconcile.Result{}, err
	}
	in.FirstLook = !o.looked
	now := o.clock.Now()
	out := params.Step(in, now)
	for _, s := range out.Specs {
		err := o.writeSpec(ctx, s, now)
		if err == nil {
			continue
		}
		if apierrors.IsConflict(err) {
			// Another writer raced it: the next look, at once, applies
			// over the new state; nothing failed.
			return reconcile.Result{}, err
		}
		// The API server refused the operand: the operator reports it and
		// tries again after Params.RetryAfter (001 §What should an
		// operator report, honored by components 2: "the API servers are
		// down so I failed to update").
		what := fmt.Sprintf("could not update %s %s", strings.ToLower(string(s.Kind)), s.Name)
		in.ApplyError = &ApplyError{Summary: what, Detail: what + ": " + err.Error()}
		out = params.Step(in, now)
		break
	}
	// The reference makes at most one write: the status is atomic (001 §Status).
	for _, st := range out.Writes {
		co.Status = st
		if err := o.client.Status().Update(ctx, co); err != nil {
			return reconcile.Result{}, err
		}
	}
	o.looked = true
	if out.Next.IsZero() {
		return reconcile.Result{}, nil
	}
	return reconcile.Result{RequeueAfter: max(out.Next.Sub(now), time.Nanosecond)}, nil
}

// version is the version the operator runs, and whether it is deployed.
func (o *Operator) version(ctx context.Context) (string, bool, error) {
	if o.opts.Deployment == nil {
		return o.opts.Version, true, nil
	}
	return DeployedVersion(ctx, o.client, *o.opts.Deployment)
}

// DeployedVersion is the version an operator's Deployment asks for (its pod
// template's VersionLabel), and whether the Deployment exists.
func DeployedVersion(ctx context.Context, c client.Reader, key types.NamespacedName) (string, bool, error) {
	d := &appsv1.Deployment{}
	if err := c.Get(ctx, key, d); err != nil {
		return "", false, client.IgnoreNotFound(err)
	}
	return d.Spec.Template.Labels[VersionLabel], true, nil
}

// look reads what the core decides from.
func (o *Operator) look(ctx context.Context, status configv1.ClusterOperatorStatus) (Input, error) {
	in := Input{Status: status}
	pods := &corev1.PodList{}
	if err := o.client.List(ctx, pods, client.InNamespace(o.opts.Namespace)); err != nil {
		return in, err
	}
	byWorkload := map[string][]Pod{}
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			byWorkload[p.Labels[WorkloadLabel]] = append(byWorkload[p.Labels[WorkloadLabel]], podOf(p))
		}
	}
	for _, w := range o.opts.Operands {
		op := Operand{Kind: w.Kind, Name: w.Name, Replicas: w.Replicas, Pods: byWorkload[w.Name]}
		if w.Kind == DaemonSet {
			op.Nodes = o.opts.Nodes
		}
		obj := workloadObject(w.Kind)
		err := o.client.Get(ctx, client.ObjectKey{Namespace: o.opts.Namespace, Name: w.Name}, obj)
		switch {
		case err == nil:
			op.Spec = Level{Version: template(obj).Labels[VersionLabel]}
			op.Updated, _ = time.Parse(time.RFC3339, obj.GetAnnotations()[UpdatedAnnotation])
		case !apierrors.IsNotFound(err):
			return in, err
		}
		in.Operands = append(in.Operands, op)
	}
	admin := &corev1.ConfigMap{}
	err := o.client.Get(ctx, client.ObjectKey{Namespace: o.opts.Namespace, Name: o.opts.AdminConfigMap}, admin)
	switch {
	case err == nil && admin.Data[BlockerKey] != "":
		in.Blockers = []Blocker{{Reason: ReasonAdminActionRequired, Message: admin.Data[BlockerKey]}}
	case err != nil && !apierrors.IsNotFound(err):
		return in, err
	}
	return in, nil
}

// podOf is a pod as the core sees it: its version from its label, ready
// from its Ready condition, changed last when that condition moved (the
// kubelet writes it from the pod's first report; the creation timestamp is
// the API server's clock, not necessarily the operator's).
func podOf(p corev1.Pod) Pod {
	out := Pod{Name: p.Name, Node: p.Spec.NodeName, Level: Level{Version: p.Labels[VersionLabel]}}
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
func (o *Operator) writeSpec(ctx context.Context, s Spec, now time.Time) error {
	var w Workload
	for _, x := range o.opts.Operands {
		if x.Name == s.Name {
			w = x
		}
	}
	obj := workloadObject(w.Kind)
	key := client.ObjectKey{Namespace: o.opts.Namespace, Name: w.Name}
	err := o.client.Get(ctx, key, obj)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	exists := err == nil
	obj.SetNamespace(key.Namespace)
	obj.SetName(key.Name)
	o.fill(obj, w, s.Level.Version, now)
	if exists {
		return o.client.Update(ctx, obj)
	}
	return o.client.Create(ctx, obj)
}

// fill sets what the operator owns of a workload: its replicas, selector
// and pod template at version v.
func (o *Operator) fill(obj client.Object, w Workload, v string, now time.Time) {
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"app": w.Name}}
	tmpl := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": w.Name, VersionLabel: v, WorkloadLabel: w.Name}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: w.Name, Image: "example.com/" + w.Name + ":" + v}}},
	}
	switch x := obj.(type) {
	case *appsv1.Deployment:
		replicas := int32(w.Replicas)
		x.Spec.Replicas, x.Spec.Selector, x.Spec.Template = &replicas, selector, tmpl
	case *appsv1.DaemonSet:
		x.Spec.Selector, x.Spec.Template = selector, tmpl
	}
	obj.SetLabels(with(obj.GetLabels(), OperandLabel, "true"))
	annotations := with(obj.GetAnnotations(), UpdatedAnnotation, now.UTC().Format(time.RFC3339))
	if o.opts.ReadyAfter > 0 {
		annotations[ReadyAfterAnnotation] = o.opts.ReadyAfter.String()
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
func workloadObject(k Kind) client.Object {
	if k == DaemonSet {
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
