package faithful

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// The variants are written from the seed: this package, tests included, builds
// on nothing of opcert's (that the judge does not borrow from the judged
// applies to the other proof too).
func TestImportsNothingOfOpcert(t *testing.T) {
	const module = "github.com/opcert/opcert/"
	out, err := exec.Command("go", "list", "-deps", "-test", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, module) && !strings.HasPrefix(p, module+"conformance/stale/faithful") {
			t.Errorf("imports %s", p)
		}
	}
}

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func world(t *testing.T, conds ...configv1.ClusterOperatorStatusCondition) (client.Client, *clocktesting.FakeClock) {
	t.Helper()
	s := runtime.NewScheme()
	if err := configv1.Install(s); err != nil {
		t.Fatal(err)
	}
	co := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: "etcd"}, Status: configv1.ClusterOperatorStatus{Conditions: conds}}
	c := fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(co).WithObjects(co).Build()
	return c, clocktesting.NewFakeClock(epoch)
}

func healthy() []configv1.ClusterOperatorStatusCondition {
	ltt := metav1.NewTime(epoch)
	return []configv1.ClusterOperatorStatusCondition{
		{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: "AsExpected", Message: "All is well", LastTransitionTime: ltt},
		{Type: configv1.OperatorDegraded, Status: configv1.ConditionFalse, Reason: "AsExpected", Message: "No problems", LastTransitionTime: ltt},
		{Type: "EvaluationConditionsDetected", Status: configv1.ConditionUnknown, Reason: "NoData", LastTransitionTime: ltt},
	}
}

var req = reconcile.Request{NamespacedName: types.NamespacedName{Name: "etcd"}}

func conditions(t *testing.T, c client.Client) map[configv1.ClusterStatusConditionType]configv1.ClusterOperatorStatusCondition {
	t.Helper()
	co := &configv1.ClusterOperator{}
	if err := c.Get(context.Background(), req.NamespacedName, co); err != nil {
		t.Fatal(err)
	}
	out := map[configv1.ClusterStatusConditionType]configv1.ClusterOperatorStatusCondition{}
	for _, cond := range co.Status.Conditions {
		out[cond.Type] = cond
	}
	return out
}

// look runs the reconciler at offset at and returns when it asks to look again.
func look(t *testing.T, r reconcile.Reconciler, clk *clocktesting.FakeClock, at time.Duration) time.Duration {
	t.Helper()
	clk.SetTime(epoch.Add(at))
	res, err := r.Reconcile(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res.RequeueAfter
}

// A detector on a 20s grid challenges at its first look past 10 minutes of
// stillness and marks at its first look past 10 more, with the seed's texts
// and, here, a reason of its own.
func TestDetectorOnAResync(t *testing.T) {
	c, clk := world(t, healthy()...)
	d := NewDetector(c, clk, DetectorOptions{ChallengeAfter: 10 * time.Minute, UnknownAfter: 10 * time.Minute, Resync: 20 * time.Second, MarkReason: "StatusNotUpdated"})
	if next := look(t, d, clk, 7*time.Second); next != 13*time.Second {
		t.Fatalf("next look in %s, want 13s (the 20s grid)", next)
	}
	look(t, d, clk, 9*time.Minute+59*time.Second)
	if got := conditions(t, c)[configv1.OperatorAvailable].Message; got != "All is well" {
		t.Fatalf("challenged before 10 minutes: %q", got)
	}
	look(t, d, clk, 10*time.Minute+20*time.Second)
	got := conditions(t, c)
	if want := checking + "All is well"; got[configv1.OperatorAvailable].Message != want {
		t.Fatalf("Available %q, want %q", got[configv1.OperatorAvailable].Message, want)
	}
	if m := got["EvaluationConditionsDetected"].Message; m != "" {
		t.Fatalf("an unwatched condition was challenged: %q", m)
	}
	look(t, d, clk, 20*time.Minute+20*time.Second)
	got = conditions(t, c)
	a := got[configv1.OperatorAvailable]
	want := `Operator has not updated this condition for more than 20 minutes, last known condition state was "True", original message: All is well`
	if a.Status != configv1.ConditionUnknown || a.Message != want || a.Reason != "StatusNotUpdated" || !a.LastTransitionTime.Time.Equal(epoch.Add(20*time.Minute+20*time.Second)) {
		t.Fatalf("Available after the mark: %+v", a)
	}
	if d := got[configv1.OperatorDegraded]; d.Status != configv1.ConditionUnknown || !strings.Contains(d.Message, `state was "False", original message: No problems`) {
		t.Fatalf("Degraded after the mark: %+v", d)
	}
}

// An operator's reset is movement: the detector waits 10 minutes again.
func TestDetectorSeesTheAnswer(t *testing.T) {
	c, clk := world(t, healthy()...)
	d := NewDetector(c, clk, DetectorOptions{ChallengeAfter: 10 * time.Minute, UnknownAfter: 10 * time.Minute, Grace: 5 * time.Second})
	if next := look(t, d, clk, 0); next != 10*time.Minute+5*time.Second {
		t.Fatalf("next look in %s, want 10m5s (the deadline and the grace)", next)
	}
	look(t, d, clk, 10*time.Minute+5*time.Second)
	co := &configv1.ClusterOperator{}
	if err := c.Get(context.Background(), req.NamespacedName, co); err != nil {
		t.Fatal(err)
	}
	co.Status.Conditions = healthy()
	if err := c.Status().Update(context.Background(), co); err != nil {
		t.Fatal(err)
	}
	if next := look(t, d, clk, 10*time.Minute+7*time.Second); next != 10*time.Minute+5*time.Second {
		t.Fatalf("after the answer, next look in %s, want 10m5s", next)
	}
	if got := conditions(t, c)[configv1.OperatorAvailable]; got.Status != configv1.ConditionTrue || got.Message != "All is well" {
		t.Fatalf("answered, yet %+v", got)
	}
}

// type-prefixed's options: it words its messages itself, adds a condition,
// and resets a challenge at its next resync, whatever its answer delay.
func TestOperatorAnswersOnItsResync(t *testing.T) {
	c, clk := world(t)
	o := NewOperator(c, clk, "etcd", time.Second, []configv1.ClusterOperatorStatusCondition{
		{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: "AsExpected", Message: "All is well"},
	}, OperatorOptions{TypePrefix: true, Resync: 23 * time.Second,
		Extra: []configv1.ClusterOperatorStatusCondition{{Type: "EvaluationConditionsDetected", Status: configv1.ConditionUnknown, Reason: "NoData"}}})
	look(t, o, clk, 0)
	got := conditions(t, c)
	if m := got[configv1.OperatorAvailable].Message; m != "OperatorAvailable: All is well" {
		t.Fatalf("first write: %q", m)
	}
	if e, ok := got["EvaluationConditionsDetected"]; !ok || e.Status != configv1.ConditionUnknown || e.Message != "" {
		t.Fatalf("EvaluationConditionsDetected: %+v (there: %v)", e, ok)
	}
	co := &configv1.ClusterOperator{}
	if err := c.Get(context.Background(), req.NamespacedName, co); err != nil {
		t.Fatal(err)
	}
	for i := range co.Status.Conditions {
		co.Status.Conditions[i].Message = checking + co.Status.Conditions[i].Message
	}
	if err := c.Status().Update(context.Background(), co); err != nil {
		t.Fatal(err)
	}
	if next := look(t, o, clk, 10*time.Minute); next != 21*time.Second {
		t.Fatalf("challenged at 10m, answers in %s, want 21s (its resync at 10m21s)", next)
	}
	look(t, o, clk, 10*time.Minute+21*time.Second)
	if m := conditions(t, c)[configv1.OperatorAvailable].Message; m != "OperatorAvailable: All is well" {
		t.Fatalf("after the answer: %q", m)
	}
}

// own-reasons' options: its reasons, and its answer delay rounded up to a
// whole step.
func TestOperatorOwnReasonsAndStep(t *testing.T) {
	c, clk := world(t)
	o := NewOperator(c, clk, "etcd", 2*time.Second, []configv1.ClusterOperatorStatusCondition{
		{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: "AsExpected", Message: "All is well"},
	}, OperatorOptions{OwnReasons: true, Step: 5 * time.Second})
	look(t, o, clk, 0)
	if r := conditions(t, c)[configv1.OperatorAvailable].Reason; r != "AvailableTrue" {
		t.Fatalf("reason %q, want its own, AvailableTrue", r)
	}
	if at := o.answerAt(epoch); !at.Equal(epoch.Add(5 * time.Second)) {
		t.Fatalf("answers at %s, want 5s (2s rounded up to a step)", at.Sub(epoch))
	}
}
