package componentoperator

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The keys of the world it runs in. The version a pod runs is its
// template's label opcert.io/version (how opcert's world, and the rules
// judging the operator, tell the pods of one version from another's); the
// administrator's ConfigMap says under upgradeBlocker what must be fixed
// before an upgrade; the pods of an operand carry its name under app,
// its selector.
const (
	versionLabel   = "opcert.io/version"
	paceAnnotation = "opcert.io/ready-after"
	selectorLabel  = "app"
	managedByLabel = "app.kubernetes.io/managed-by"
	managedBy      = "componentoperator"
	blockerKey     = "upgradeBlocker"
	containerName  = "main"
)

// Reconciler is the operator's one control loop: every event of its
// objects is one request, "look again".
type Reconciler struct {
	c        client.Client
	cfg      Config
	progress progress
	now      func() time.Time
}

// NewReconciler returns the loop of cfg talking through c, on the wall
// clock.
func NewReconciler(c client.Client, cfg Config) *Reconciler {
	return &Reconciler{c: c, cfg: cfg, now: time.Now}
}

// Reconcile makes the operands run the operator's version and reports
// where they stand.
func (r *Reconciler) Reconcile(ctx context.Context, _ ctrl.Request) (ctrl.Result, error) {
	co := &configv1.ClusterOperator{}
	err := r.c.Get(ctx, client.ObjectKey{Name: r.cfg.Name}, co)
	if apierrors.IsNotFound(err) {
		// No one else creates it (seed 001: "creating and updating it is
		// the responsibility of the respective operator").
		co = &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: r.cfg.Name}}
		err = r.c.Create(ctx, co)
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	snap, err := r.observe(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	wrote, refused, err := r.rollOut(ctx, snap)
	if err != nil {
		return ctrl.Result{}, err
	}
	now := r.now()
	d := decide(look{cfg: r.cfg, reached: operatorVersion(co.Status), snap: snap, refused: refused,
		moved: r.progress.see(snap, r.cfg.Version, wrote, now), now: now})
	if next := d.apply(co.Status, now); changed(co.Status, next) {
		co.Status = next
		if err := r.c.Status().Update(ctx, co); err != nil {
			return ctrl.Result{}, err
		}
	}
	if d.wake.IsZero() {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{RequeueAfter: max(d.wake.Sub(now), time.Millisecond)}, nil
}

// observe reads the operands, their pods and the administrator's blocker
// from the cache.
func (r *Reconciler) observe(ctx context.Context) (snapshot, error) {
	var snap snapshot
	pods := &corev1.PodList{}
	if err := r.c.List(ctx, pods, client.InNamespace(r.cfg.Namespace)); err != nil {
		return snap, err
	}
	// The cache lists in no order: sorted, a message naming pods is the
	// same at each look.
	slices.SortFunc(pods.Items, func(a, b corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	for _, op := range r.cfg.Operands {
		o := &operandState{Operand: op, scheduled: -1}
		if op.Kind == KindDaemonSet {
			o.nodes = r.cfg.Nodes
		}
		obj := newWorkload(op.Kind)
		switch err := r.c.Get(ctx, client.ObjectKey{Namespace: r.cfg.Namespace, Name: op.Name}, obj); {
		case err == nil:
			o.exists, o.asks = true, podTemplate(obj).Labels[versionLabel]
			if ds, ok := obj.(*appsv1.DaemonSet); ok && ds.Status.ObservedGeneration >= ds.Generation {
				o.scheduled = int(ds.Status.DesiredNumberScheduled)
			}
		case !apierrors.IsNotFound(err):
			return snap, err
		}
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil && p.Labels[selectorLabel] == op.Name {
				o.pods = append(o.pods, podState{name: p.Name, node: p.Spec.NodeName, version: p.Labels[versionLabel], ready: isReady(p)})
			}
		}
		snap.operands = append(snap.operands, o)
	}
	cm := &corev1.ConfigMap{}
	switch err := r.c.Get(ctx, client.ObjectKey{Namespace: r.cfg.Namespace, Name: r.cfg.adminConfigMap()}, cm); {
	case err == nil:
		snap.blocker = cm.Data[blockerKey]
	case !apierrors.IsNotFound(err):
		return snap, err
	}
	return snap, nil
}

func isReady(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// rollOut writes the spec of every operand that does not ask for the
// operator's version yet. It returns whether it wrote one, and the writes
// the API server refused; a conflict or a create that raced the cache is
// an error, so that the request comes back at once.
func (r *Reconciler) rollOut(ctx context.Context, snap snapshot) (wrote bool, refused []string, err error) {
	for _, o := range snap.operands {
		if o.exists && o.asks == r.cfg.Version {
			continue
		}
		err := r.write(ctx, o.Operand)
		switch {
		case err == nil:
			o.exists, o.asks, wrote = true, r.cfg.Version, true
		case apierrors.IsConflict(err), apierrors.IsAlreadyExists(err):
			return wrote, nil, err
		default:
			refused = append(refused, fmt.Sprintf("%s %s (%v)", o.Kind, o.Name, err))
		}
	}
	return wrote, refused, nil
}

// write creates or updates an operand to run the operator's version.
func (r *Reconciler) write(ctx context.Context, op Operand) error {
	obj := newWorkload(op.Kind)
	key := client.ObjectKey{Namespace: r.cfg.Namespace, Name: op.Name}
	err := r.c.Get(ctx, key, obj)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	create := err != nil
	obj.SetNamespace(key.Namespace)
	obj.SetName(key.Name)
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[managedByLabel] = managedBy
	obj.SetLabels(labels)
	if r.cfg.PodPace > 0 {
		annotations := obj.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[paceAnnotation] = r.cfg.PodPace.String()
		obj.SetAnnotations(annotations)
	}
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{selectorLabel: op.Name}}
	container := corev1.Container{Name: containerName, Image: fmt.Sprintf("quay.example/%s/%s:%s", r.cfg.Name, op.Name, r.cfg.Version)}
	if r.cfg.OperandImage != "" {
		container.Image, container.ImagePullPolicy = r.cfg.OperandImage, corev1.PullNever
	}
	template := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{selectorLabel: op.Name, versionLabel: r.cfg.Version}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{container}},
	}
	switch w := obj.(type) {
	case *appsv1.Deployment:
		replicas := int32(op.Replicas)
		w.Spec.Replicas, w.Spec.Selector, w.Spec.Template = &replicas, selector, template
	case *appsv1.DaemonSet:
		w.Spec.Selector, w.Spec.Template = selector, template
	}
	if create {
		return r.c.Create(ctx, obj)
	}
	return r.c.Update(ctx, obj)
}

func newWorkload(kind string) client.Object {
	if kind == KindDaemonSet {
		return &appsv1.DaemonSet{}
	}
	return &appsv1.Deployment{}
}

func podTemplate(obj client.Object) metav1.ObjectMeta {
	if ds, ok := obj.(*appsv1.DaemonSet); ok {
		return ds.Spec.Template.ObjectMeta
	}
	return obj.(*appsv1.Deployment).Spec.Template.ObjectMeta
}
