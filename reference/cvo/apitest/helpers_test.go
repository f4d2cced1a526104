package apitest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/payload"
	"github.com/opcert/opcert/reference/cvo"
	"github.com/opcert/opcert/sim/timeline"
)

// release reads one of fixtures/payloads for the test id as the payload
// build makes it, "0.0.1-snapshot" replaced by version, with every
// "example" made id+"-example" so that the objects are the test's own;
// extra adds files (name: content, renamed alike).
func release(t *testing.T, dir, id, version string, extra map[string]string) *payload.Payload {
	t.Helper()
	src := filepath.Join("..", "..", "..", "fixtures", "payloads", dir)
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(data)
	}
	for name, content := range extra {
		files[name] = content
	}
	out := t.TempDir()
	for name, content := range files {
		content = strings.ReplaceAll(content, "0.0.1-snapshot", version)
		content = strings.ReplaceAll(content, "example", id+"-example")
		if err := os.WriteFile(filepath.Join(out, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := payload.Read(t.Context(), out)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// harness is one version operator on the shared API server, in virtual
// time from timeline.Epoch, and the test standing in for the component's
// operator: it writes the ClusterOperator "<id>-example".
type harness struct {
	t   *testing.T
	ctx context.Context
	id  string
	clk *clocktesting.FakeClock
	op  *cvo.Operator
}

// install starts a version operator installing version from the payload
// dir, writing the ClusterVersion "<id>-version".
func install(t *testing.T, dir, id, version string, extra map[string]string) *harness {
	t.Helper()
	if api == nil {
		t.Skip("needs the API server")
	}
	h := &harness{t: t, ctx: context.Background(), id: id, clk: clocktesting.NewFakeClock(timeline.Epoch)}
	op, err := cvo.New(api.Client, h.clk, cvo.DefaultParams(), version, release(t, dir, id, version, extra))
	if err != nil {
		t.Fatal(err)
	}
	op.Name = id + "-version"
	h.op = op
	return h
}

// sweep calls Reconcile once, at the clock's time.
func (h *harness) sweep() reconcile.Result {
	h.t.Helper()
	res, err := h.op.Reconcile(h.ctx, reconcile.Request{NamespacedName: client.ObjectKey{Name: h.op.Name}})
	if err != nil {
		h.t.Fatalf("Reconcile at +%s: %v", h.since(), err)
	}
	return res
}

func (h *harness) since() time.Duration { return h.clk.Now().Sub(timeline.Epoch) }

// clusterVersion is the ClusterVersion as the API server holds it.
func (h *harness) clusterVersion() *configv1.ClusterVersion {
	h.t.Helper()
	cv := &configv1.ClusterVersion{}
	if err := api.Client.Get(h.ctx, client.ObjectKey{Name: h.op.Name}, cv); err != nil {
		h.t.Fatal(err)
	}
	return cv
}

// cond is a ClusterVersion condition as a test expects it; a message
// ending in "..." is a prefix, one starting with "..." a suffix.
type cond struct {
	Type    configv1.ClusterStatusConditionType
	Status  configv1.ConditionStatus
	Message string
}

// expect checks the ClusterVersion's conditions of the types in want.
func (h *harness) expect(want ...cond) *configv1.ClusterVersion {
	h.t.Helper()
	cv := h.clusterVersion()
	for _, w := range want {
		got := find(cv.Status.Conditions, w.Type)
		if got == nil {
			h.t.Errorf("+%s: ClusterVersion has no %s condition", h.since(), w.Type)
			continue
		}
		if got.Status != w.Status || !matches(got.Message, w.Message) {
			h.t.Errorf("+%s: %s is %s %q, want %s %q", h.since(), w.Type, got.Status, got.Message, w.Status, w.Message)
		}
	}
	return cv
}

func matches(got, want string) bool {
	switch {
	case strings.HasSuffix(want, "..."):
		return strings.HasPrefix(got, strings.TrimSuffix(want, "..."))
	case strings.HasPrefix(want, "..."):
		return strings.HasSuffix(got, strings.TrimPrefix(want, "..."))
	}
	return got == want
}

func find(conds []configv1.ClusterOperatorStatusCondition, t configv1.ClusterStatusConditionType) *configv1.ClusterOperatorStatusCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// report writes the ClusterOperator "<id>-example" as its operator would:
// the given versions ("operator" first) and conditions, stamped now.
func (h *harness) report(versions []configv1.OperandVersion, conds ...configv1.ClusterOperatorStatusCondition) {
	h.t.Helper()
	co := &configv1.ClusterOperator{}
	err := api.Client.Get(h.ctx, client.ObjectKey{Name: h.id + "-example"}, co)
	if apierrors.IsNotFound(err) {
		co = &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: h.id + "-example"}}
		if err = api.Client.Create(h.ctx, co); err == nil {
			// Every version operator lists every ClusterOperator: one left
			// behind would speak in the next test's ClusterVersion.
			h.t.Cleanup(func() { _ = api.Client.Delete(h.ctx, co.DeepCopy()) })
		}
	}
	if err != nil {
		h.t.Fatal(err)
	}
	for i := range conds {
		conds[i].LastTransitionTime = metav1.NewTime(h.clk.Now())
	}
	co.Status = configv1.ClusterOperatorStatus{Versions: versions, Conditions: conds}
	if err := api.Client.Status().Update(h.ctx, co); err != nil {
		h.t.Fatal(err)
	}
}

func operatorAt(v string) []configv1.OperandVersion {
	return []configv1.OperandVersion{{Name: "operator", Version: v}}
}

func co(t configv1.ClusterStatusConditionType, s configv1.ConditionStatus, reason, msg string) configv1.ClusterOperatorStatusCondition {
	return configv1.ClusterOperatorStatusCondition{Type: t, Status: s, Reason: reason, Message: msg}
}

// healthy are the conditions of a component that has rolled out.
func healthy() []configv1.ClusterOperatorStatusCondition {
	return []configv1.ClusterOperatorStatusCondition{
		co(configv1.OperatorAvailable, configv1.ConditionTrue, "AsExpected", "All is well"),
		co(configv1.OperatorDegraded, configv1.ConditionFalse, "AsExpected", ""),
		co(configv1.OperatorProgressing, configv1.ConditionFalse, "AsExpected", ""),
	}
}

// object reads a payload object of the test from the API server, nil when
// it does not exist.
func (h *harness) object(apiVersion, kind, namespace, name string) *unstructured.Unstructured {
	h.t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.FromAPIVersionAndKind(apiVersion, kind))
	err := api.Client.Get(h.ctx, client.ObjectKey{Namespace: namespace, Name: name}, u)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return u
}

// look is one Reconcile at a virtual time, after the component's operator
// did what report does, with the ClusterVersion's conditions it must leave
// and when it asks to look again (0: only on a change).
type look struct {
	at      time.Duration
	report  func(h *harness)
	want    []cond
	requeue time.Duration
}

// play makes each look in turn.
func (h *harness) play(looks ...look) {
	h.t.Helper()
	for _, l := range looks {
		h.clk.SetTime(timeline.Epoch.Add(l.at))
		if l.report != nil {
			l.report(h)
		}
		if res := h.sweep(); res.RequeueAfter != l.requeue {
			h.t.Errorf("+%s: requeue after %s, want %s", l.at, res.RequeueAfter, l.requeue)
		}
		h.expect(l.want...)
	}
}

// installed plays an installation of version to its end at +10m.
func (h *harness) installed(version string) {
	h.t.Helper()
	h.play(look{at: 0, requeue: 40 * time.Minute},
		look{at: 10 * time.Minute, report: func(h *harness) { h.report(operatorAt(version), healthy()...) },
			want: []cond{{progressing, isFalse, "Cluster version is " + version}}})
}
