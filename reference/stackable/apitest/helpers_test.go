package apitest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/reference/stackable"
	"github.com/opcert/opcert/sim/timeline"
)

// harness is one test's namespace on the shared API server, in virtual
// time from timeline.Epoch.
type harness struct {
	t   *testing.T
	ctx context.Context
	ns  string
	clk *clocktesting.FakeClock
}

func start(t *testing.T, ns string) *harness {
	t.Helper()
	if api == nil {
		t.Skip("needs the API server")
	}
	h := &harness{t: t, ctx: context.Background(), ns: ns, clk: clocktesting.NewFakeClock(timeline.Epoch)}
	err := api.Client.Create(h.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	return h
}

// after moves the virtual clock to d after the start.
func (h *harness) after(d time.Duration) { h.clk.SetTime(timeline.Epoch.Add(d)) }

func (h *harness) operator(o stackable.Options) *stackable.Operator {
	h.t.Helper()
	o.Namespaces = []string{h.ns}
	op, err := stackable.New(api.Client, h.clk, o)
	if err != nil {
		h.t.Fatal(err)
	}
	return op
}

// The roles of an example SampleCluster (the world of
// conformance/stackable/README.md, "As implemented").
var (
	server = map[string]any{"name": "server", "kind": "StatefulSet", "replicas": int64(3)}
	web    = map[string]any{"name": "web", "kind": "Deployment", "replicas": int64(2)}
	agent  = map[string]any{"name": "agent", "kind": "DaemonSet"}
)

// cluster creates the SampleCluster name with spec; annotations may be nil.
func (h *harness) cluster(name string, spec map[string]any, annotations map[string]string) {
	h.t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(stackable.SampleClusterGVK)
	u.SetNamespace(h.ns)
	u.SetName(name)
	u.SetAnnotations(annotations)
	if err := api.Client.Create(h.ctx, u); err != nil {
		h.t.Fatal(err)
	}
}

// get reads the SampleCluster name.
func (h *harness) get(name string) *unstructured.Unstructured {
	h.t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(stackable.SampleClusterGVK)
	if err := api.Client.Get(h.ctx, client.ObjectKey{Namespace: h.ns, Name: name}, u); err != nil {
		h.t.Fatal(err)
	}
	return u
}

// edit changes the SampleCluster name with f and writes it.
func (h *harness) edit(name string, f func(u *unstructured.Unstructured)) {
	h.t.Helper()
	u := h.get(name)
	f(u)
	if err := api.Client.Update(h.ctx, u); err != nil {
		h.t.Fatal(err)
	}
}

// command sets the operator-command annotation ("" removes it).
func (h *harness) command(name, value string) {
	h.edit(name, func(u *unstructured.Unstructured) {
		a := u.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a[stackable.AnnotationCommand] = value
		if value == "" {
			delete(a, stackable.AnnotationCommand)
		}
		u.SetAnnotations(a)
	})
}

// conditions reads the SampleCluster's status conditions and its
// resourceVersion.
func (h *harness) conditions(name string) (map[string]stackable.Condition, string) {
	h.t.Helper()
	u := h.get(name)
	raw, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	data, err := json.Marshal(raw)
	if err != nil {
		h.t.Fatal(err)
	}
	var conds []stackable.Condition
	if err := json.Unmarshal(data, &conds); err != nil {
		h.t.Fatal(err)
	}
	out := map[string]stackable.Condition{}
	for _, c := range conds {
		out[c.Type] = c
	}
	return out, u.GetResourceVersion()
}

// reconcile calls op once for the cluster at the current virtual time.
func (h *harness) reconcile(op *stackable.Operator, name string) error {
	_, err := op.Reconcile(h.ctx, reconcile.Request{NamespacedName: client.ObjectKey{Namespace: h.ns, Name: name}})
	return err
}

func (h *harness) mustReconcile(op *stackable.Operator, name string) {
	h.t.Helper()
	if err := h.reconcile(op, name); err != nil {
		h.t.Fatal(err)
	}
}

// statefulSet reads a StatefulSet; nil when absent.
func (h *harness) statefulSet(name string) *appsv1.StatefulSet {
	h.t.Helper()
	s := &appsv1.StatefulSet{}
	return getOrNil(h, name, s)
}

func (h *harness) deployment(name string) *appsv1.Deployment {
	h.t.Helper()
	return getOrNil(h, name, &appsv1.Deployment{})
}

func (h *harness) daemonSet(name string) *appsv1.DaemonSet {
	h.t.Helper()
	return getOrNil(h, name, &appsv1.DaemonSet{})
}

func getOrNil[T client.Object](h *harness, name string, obj T) T {
	h.t.Helper()
	err := api.Client.Get(h.ctx, client.ObjectKey{Namespace: h.ns, Name: name}, obj)
	if apierrors.IsNotFound(err) {
		var zero T
		return zero
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return obj
}

// available publishes a StatefulSet's status as its controller would,
// with avail replicas ready and available.
func (h *harness) available(name string, avail int32) {
	h.t.Helper()
	s := h.statefulSet(name)
	s.Status = appsv1.StatefulSetStatus{Replicas: max(avail, *s.Spec.Replicas), ReadyReplicas: avail, AvailableReplicas: avail}
	if err := api.Client.Status().Update(h.ctx, s); err != nil {
		h.t.Fatal(err)
	}
}

// pod writes the pod name of the cluster's role with phase, as the
// kubelet would, creating it if needed.
func (h *harness) pod(cluster, role, name string, phase corev1.PodPhase) {
	h.t.Helper()
	p := &corev1.Pod{}
	err := api.Client.Get(h.ctx, client.ObjectKey{Namespace: h.ns, Name: name}, p)
	if apierrors.IsNotFound(err) {
		p = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: name,
			Labels: map[string]string{stackable.LabelInstance: cluster, stackable.LabelComponent: role}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "product", Image: "product"}}}}
		err = api.Client.Create(h.ctx, p)
	}
	if err != nil {
		h.t.Fatal(err)
	}
	p.Status.Phase = phase
	if err := api.Client.Status().Update(h.ctx, p); err != nil {
		h.t.Fatal(err)
	}
}
