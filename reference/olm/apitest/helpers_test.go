package apitest

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/probe"
	"github.com/opcert/opcert/reference/olm"
	"github.com/opcert/opcert/sim/timeline"
)

const (
	keyUpgradeable = "olm.operatorframework.io/condition.Upgradeable"
	keyImportant   = "olm.operatorframework.io/condition.Important"
	foos           = "foos.example.com"
	bars           = "bars.example.com"
	csv            = "foo-operator.v1.0.0"
)

var (
	fooGVK = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Foo"}
	crdGVK = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}
)

// harness is one test's namespace on the shared API server, in virtual
// time from timeline.Epoch.
type harness struct {
	t   *testing.T
	ctx context.Context
	ns  string
	clk *clocktesting.FakeClock
}

// start makes the test's namespace ns (the operator's, where its Probe,
// CRs and Upgrades are).
func start(t *testing.T, ns string) *harness {
	t.Helper()
	if api == nil {
		t.Skip("needs the API server")
	}
	h := &harness{t: t, ctx: context.Background(), ns: ns, clk: clocktesting.NewFakeClock(timeline.Epoch)}
	h.namespace(ns)
	return h
}

func (h *harness) namespace(name string) {
	h.t.Helper()
	if err := api.Client.Create(h.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil && !apierrors.IsAlreadyExists(err) {
		h.t.Fatal(err)
	}
}

// after moves the virtual clock to d after the start.
func (h *harness) after(d time.Duration) { h.clk.SetTime(timeline.Epoch.Add(d)) }

// annotate sets the condition annotations of an owned CRD (the fixtures'
// CRDs are shared: each test sets what it needs and clears it after).
func (h *harness) annotate(crd string, annotations map[string]string) {
	h.t.Helper()
	u := h.get(crdGVK, client.ObjectKey{Name: crd})
	kept := map[string]string{}
	for k, v := range u.GetAnnotations() {
		if !strings.HasPrefix(k, "olm.operatorframework.io/") {
			kept[k] = v
		}
	}
	for k, v := range annotations {
		kept[k] = v
	}
	u.SetAnnotations(kept)
	if err := api.Client.Update(h.ctx, u); err != nil {
		h.t.Fatal(err)
	}
	if annotations != nil {
		h.t.Cleanup(func() { h.annotate(crd, nil) })
	}
}

// get reads an object that must exist.
func (h *harness) get(gvk schema.GroupVersionKind, key client.ObjectKey) *unstructured.Unstructured {
	h.t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := api.Client.Get(h.ctx, key, u); err != nil {
		h.t.Fatal(err)
	}
	return u
}

// probe reads the test's Probe; nil when absent.
func (h *harness) probe() (*probe.Probe, string) {
	h.t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(olm.ProbeGVK)
	err := api.Client.Get(h.ctx, client.ObjectKey{Namespace: h.ns, Name: csv}, u)
	if apierrors.IsNotFound(err) {
		return nil, ""
	}
	if err != nil {
		h.t.Fatal(err)
	}
	p := &probe.Probe{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, p); err != nil {
		h.t.Fatal(err)
	}
	return p, u.GetResourceVersion()
}

// writeProbe creates the test's Probe as an operator would, with spec and
// status as given.
func (h *harness) writeProbe(spec *probe.Spec, status probe.Status) {
	h.t.Helper()
	p := &probe.Probe{ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: csv}, Spec: spec}
	u := h.unstructured(olm.ProbeGVK, p)
	if err := api.Client.Create(h.ctx, u); err != nil {
		h.t.Fatal(err)
	}
	p.Status = status
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&p.Status)
	if err != nil {
		h.t.Fatal(err)
	}
	u.Object["status"] = m
	if err := api.Client.Status().Update(h.ctx, u); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) unstructured(gvk schema.GroupVersionKind, obj any) *unstructured.Unstructured {
	h.t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		h.t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvk)
	return u
}

// foo writes the Foo ns/name with conditions "Type=Status" in order,
// creating it if needed, as its operator would; it returns the object for
// the aggregator's Map.
func (h *harness) foo(ns, name string, conditions ...string) *unstructured.Unstructured {
	h.t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(fooGVK)
	err := api.Client.Get(h.ctx, client.ObjectKey{Namespace: ns, Name: name}, u)
	if apierrors.IsNotFound(err) {
		u.SetNamespace(ns)
		u.SetName(name)
		err = api.Client.Create(h.ctx, u)
	}
	if err != nil {
		h.t.Fatal(err)
	}
	var conds []any
	for _, c := range conditions {
		typ, status, _ := strings.Cut(c, "=")
		conds = append(conds, map[string]any{"type": typ, "status": status, "reason": "Test", "message": typ + " is " + status})
	}
	u.Object["status"] = map[string]any{"conditions": conds}
	if err := api.Client.Status().Update(h.ctx, u); err != nil {
		h.t.Fatal(err)
	}
	return u
}

// reconcile calls r once at the current virtual time.
func (h *harness) reconcile(r reconcile.Reconciler, key client.ObjectKey) {
	h.t.Helper()
	if _, err := r.Reconcile(h.ctx, reconcile.Request{NamespacedName: key}); err != nil {
		h.t.Fatal(err)
	}
}

// seedCR is 002 §Example Workflow's Foo: every condition True.
var seedCR = []string{"Migrating=True", "UnhealthyDatabase=True", "BadConnectivity=True", "SomethingUnrelated=True"}

// seedAnnotations are 002 §Example Workflow's.
var seedAnnotations = map[string]string{keyUpgradeable: "!Migrating", keyImportant: "BadConnectivity || UnhealthyDatabase"}
