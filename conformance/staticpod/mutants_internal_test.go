package staticpod

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/staticpod/contract"
)

var mt0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func subjectNamed(t *testing.T, subjects []conformance.Subject, name string) conformance.Subject {
	t.Helper()
	for _, s := range subjects {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no subject %q", name)
	return conformance.Subject{}
}

func monitorNamed(t *testing.T, name string) monitorCore {
	t.Helper()
	return subjectNamed(t, monitors, name).Impl.(monitorImpl)(DefaultConfig())
}

func operatorNamed(t *testing.T, name string) operatorCore {
	t.Helper()
	return subjectNamed(t, operators, name).Impl.(operatorImpl)(DefaultConfig())
}

// Operands of revision 5 as the monitor observes them.
var (
	upObs = contract.Observation{StartAttempts: 1, Healthz: contract.OK, Etcd: contract.OK, Readyz: contract.OK,
		Mirror: &contract.Mirror{Name: "kas", UID: "u", Revision: 5, Ready: true}}
	hookObs = contract.Observation{StartAttempts: 1, Healthz: contract.OK, Etcd: contract.OK, Readyz: contract.Failed, Unfinished: []string{"poststarthook/rbac/bootstrap-roles"},
		Mirror: &contract.Mirror{Name: "kas", UID: "u", Revision: 5}}
)

// watch is the monitor of revision 5 watching o since mt0 with the seed's
// 5m timeout, last-known-good 3 and revisions 3 to 5 on the node, with change applied.
func watch(o contract.Observation, change ...func(*contract.MonitorView)) contract.MonitorView {
	v := contract.MonitorView{Revision: 5, Timeout: 5 * time.Minute, Manifest: 5, Operand: o, Since: mt0, LastKnownGood: 3, Revisions: []int{3, 4, 5}}
	for _, c := range change {
		c(&v)
	}
	return v
}

func decide(m monitorCore, v contract.MonitorView, at time.Duration) contract.MonitorDecision {
	return m.decide(m.params, v, mt0.Add(at))
}

func kinds(ops []contract.Op) []contract.OpKind {
	var out []contract.OpKind
	for _, op := range ops {
		out = append(out, op.Kind)
	}
	return out
}

func fallbackAnnotations(t *testing.T, d contract.MonitorDecision) (int, map[string]string) {
	t.Helper()
	op := fallbackOp(&d)
	if op == nil {
		t.Fatalf("no fallback: %+v", d)
	}
	return op.Revision, op.Annotations
}

// Each monitor mutant departs from the reference where its description
// says, by the second or the step it says.
func TestMonitorMutants(t *testing.T) {
	ref := monitorNamed(t, "reference")
	m, s := time.Minute, time.Second

	t.Run("early-by-1s and late-past-bound fall back one second before the 5m timeout and after it and the 1m bound", func(t *testing.T) {
		v := watch(hookObs)
		for _, c := range []struct {
			subject string
			at      time.Duration
			want    contract.Action
		}{
			{"reference", 5*m - s, contract.Wait}, {"reference", 5 * m, contract.FallBack},
			{"early-by-1s", 5*m - 2*s, contract.Wait}, {"early-by-1s", 5*m - s, contract.FallBack},
			{"late-past-bound", 6 * m, contract.Wait}, {"late-past-bound", 6*m + s, contract.FallBack},
		} {
			if d := decide(monitorNamed(t, c.subject), v, c.at); d.Action != c.want {
				t.Errorf("%s at %v: action %v, want %v", c.subject, c.at, d.Action, c.want)
			}
		}
	})
	t.Run("timer-before-readiness falls back from an operand ready at the deadline, not from one ready before", func(t *testing.T) {
		mu := monitorNamed(t, "timer-before-readiness")
		if d := decide(mu, watch(upObs), 5*m); d.Action != contract.FallBack {
			t.Errorf("ready at 5m: %v, want a fallback", d.Action)
		}
		if d := decide(mu, watch(upObs), 5*m-s); d.Action != contract.Ready {
			t.Errorf("ready at 4m59s: %v, want ready", d.Action)
		}
		if d := decide(ref, watch(upObs), 5*m); d.Action != contract.Ready {
			t.Errorf("reference, ready at 5m: %v, want ready", d.Action)
		}
	})
	t.Run("timer-from-start counts the time it waited for its revision", func(t *testing.T) {
		mu := monitorNamed(t, "timer-from-start")
		other := watch(hookObs, func(v *contract.MonitorView) { v.Manifest, v.Since = 4, time.Time{} })
		d := decide(mu, other, 0)
		if !d.Since.Equal(mt0) || d.Action != contract.Wait {
			t.Fatalf("first look at another revision: %v since %v, want to wait since the start", d.Action, d.Since)
		}
		mine := watch(hookObs, func(v *contract.MonitorView) { v.Since = d.Since })
		if d := decide(mu, mine, 10*m); d.Action != contract.FallBack {
			t.Errorf("its revision rolled out at 10m: %v, want a fallback at once", d.Action)
		}
		if d := decide(ref, watch(hookObs, func(v *contract.MonitorView) { v.Since = time.Time{} }), 10*m); d.Action != contract.Wait || !d.Next.Equal(mt0.Add(15*m)) {
			t.Errorf("reference: %v next %v, want to wait until 15m", d.Action, d.Next)
		}
	})
	t.Run("crashloop-at-one calls one start-up attempt CrashLooping", func(t *testing.T) {
		_, ann := fallbackAnnotations(t, decide(monitorNamed(t, "crashloop-at-one"), watch(hookObs), 5*m))
		_, want := fallbackAnnotations(t, decide(ref, watch(hookObs), 5*m))
		if ann[contract.AnnotationFallbackReason] != string(contract.CrashLooping) || want[contract.AnnotationFallbackReason] != string(contract.NotReady) {
			t.Errorf("reason %s, reference %s", ann[contract.AnnotationFallbackReason], want[contract.AnnotationFallbackReason])
		}
		if d := decide(monitorNamed(t, "crashloop-at-one"), watch(upObs), m); d.Action != contract.Ready {
			t.Errorf("a ready operand: %v, want ready", d.Action)
		}
	})
	t.Run("no-hooks-in-message, no-fallback-message and for-target-revision change one annotation", func(t *testing.T) {
		_, ann := fallbackAnnotations(t, decide(monitorNamed(t, "no-hooks-in-message"), watch(hookObs), 5*m))
		if msg := ann[contract.AnnotationFallbackMessage]; msg == "" || strings.Contains(msg, "rbac/bootstrap-roles") {
			t.Errorf("no-hooks-in-message: %q", msg)
		}
		_, ann = fallbackAnnotations(t, decide(monitorNamed(t, "no-fallback-message"), watch(hookObs), 5*m))
		if _, ok := ann[contract.AnnotationFallbackMessage]; ok || ann[contract.AnnotationFallbackReason] != string(contract.NotReady) {
			t.Errorf("no-fallback-message: %v", ann)
		}
		to, ann := fallbackAnnotations(t, decide(monitorNamed(t, "for-target-revision"), watch(hookObs), 5*m))
		if to != 3 || ann[contract.AnnotationFallbackForRevision] != "3" {
			t.Errorf("for-target-revision: to %d, for %s", to, ann[contract.AnnotationFallbackForRevision])
		}
		_, ann = fallbackAnnotations(t, decide(ref, watch(hookObs), 5*m))
		if ann[contract.AnnotationFallbackForRevision] != "5" || !strings.Contains(ann[contract.AnnotationFallbackMessage], "rbac/bootstrap-roles") {
			t.Errorf("reference: %v", ann)
		}
	})
	t.Run("healthz-is-ready links a healthy operand one step before /readyz is green", func(t *testing.T) {
		d := decide(monitorNamed(t, "healthz-is-ready"), watch(hookObs), m)
		if d.Action != contract.Ready || !slices.Contains(kinds(d.Ops), contract.LinkLastKnownGood) {
			t.Errorf("%v %v, want ready and linked", d.Action, kinds(d.Ops))
		}
		if d := decide(ref, watch(hookObs), m); d.Action != contract.Wait {
			t.Errorf("reference: %v, want to wait", d.Action)
		}
	})
	t.Run("links-failed-revision links its revision under the lock as it falls back", func(t *testing.T) {
		d := decide(monitorNamed(t, "links-failed-revision"), watch(hookObs), 5*m)
		want := []contract.OpKind{contract.TakeLock, contract.WriteManifest, contract.LinkLastKnownGood, contract.RemoveManifest, contract.ReleaseLock}
		if !slices.Equal(kinds(d.Ops), want) || d.Ops[2].Revision != 5 {
			t.Errorf("ops %v, want %v linking 5", d.Ops, want)
		}
	})
	t.Run("ignores-last-known-good and falls-back-in-bootstrap pick the wrong target", func(t *testing.T) {
		if to, _ := fallbackAnnotations(t, decide(monitorNamed(t, "ignores-last-known-good"), watch(hookObs), 5*m)); to != 4 {
			t.Errorf("ignores-last-known-good: to %d, want the previous revision 4", to)
		}
		boot := watch(hookObs, func(v *contract.MonitorView) { v.LastKnownGood, v.Revisions = 0, []int{5} })
		if to, ann := fallbackAnnotations(t, decide(monitorNamed(t, "falls-back-in-bootstrap"), boot, 5*m)); to != 5 || ann[contract.AnnotationFallbackForRevision] != "5" {
			t.Errorf("falls-back-in-bootstrap: to %d, %v", to, ann)
		}
		if d := decide(monitorNamed(t, "falls-back-in-bootstrap"), boot, 5*m-s); d.Action != contract.Wait {
			t.Errorf("falls-back-in-bootstrap before the timeout: %v", d.Action)
		}
		if d := decide(ref, boot, 5*m); d.Action != contract.Wait || len(d.Ops) > 0 {
			t.Errorf("reference in bootstrap: %v %v, want nothing", d.Action, d.Ops)
		}
	})
	t.Run("ignores-lock and lock-check-then-write write without holding the lock", func(t *testing.T) {
		held := watch(upObs, func(v *contract.MonitorView) { v.LockHeld = true })
		if d := decide(monitorNamed(t, "ignores-lock"), held, m); d.Action != contract.Ready || slices.Contains(kinds(d.Ops), contract.TakeLock) {
			t.Errorf("ignores-lock under the installer's lock: %v %v", d.Action, kinds(d.Ops))
		}
		if d := decide(ref, held, m); len(d.Ops) > 0 {
			t.Errorf("reference under the installer's lock: %v", kinds(d.Ops))
		}
		d := decide(monitorNamed(t, "lock-check-then-write"), watch(hookObs), 5*m)
		if want := []contract.OpKind{contract.TakeLock, contract.ReleaseLock, contract.WriteManifest, contract.RemoveManifest}; !slices.Equal(kinds(d.Ops), want) {
			t.Errorf("lock-check-then-write: %v, want %v", kinds(d.Ops), want)
		}
	})
	t.Run("never-links, keeps-manifest and removes-before-linking change the ready decision's operations", func(t *testing.T) {
		for _, c := range []struct {
			subject string
			want    []contract.OpKind
		}{
			{"reference", []contract.OpKind{contract.TakeLock, contract.LinkLastKnownGood, contract.RemoveManifest, contract.ReleaseLock}},
			{"never-links", []contract.OpKind{contract.TakeLock, contract.RemoveManifest, contract.ReleaseLock}},
			{"keeps-manifest", []contract.OpKind{contract.TakeLock, contract.LinkLastKnownGood, contract.ReleaseLock}},
			{"removes-before-linking", []contract.OpKind{contract.TakeLock, contract.RemoveManifest, contract.LinkLastKnownGood, contract.ReleaseLock}},
		} {
			d := decide(monitorNamed(t, c.subject), watch(upObs), m)
			if d.Action != contract.Ready || !slices.Equal(kinds(d.Ops), c.want) {
				t.Errorf("%s: %v %v, want ready with %v", c.subject, d.Action, kinds(d.Ops), c.want)
			}
			// Their fallbacks are the reference's.
			if got, want := decide(monitorNamed(t, c.subject), watch(hookObs), 5*m), decide(ref, watch(hookObs), 5*m); !slices.Equal(kinds(got.Ops), kinds(want.Ops)) {
				t.Errorf("%s falling back: %v, want %v", c.subject, kinds(got.Ops), kinds(want.Ops))
			}
		}
		// The reference does not mutate its ops: a second decision is whole.
		if d := decide(ref, watch(upObs), m); len(d.Ops) != 4 {
			t.Errorf("reference after the mutants: %v", kinds(d.Ops))
		}
	})
	t.Run("links-late-past-bound acts 1m1s after its first look finds the operand ready", func(t *testing.T) {
		mu := monitorNamed(t, "links-late-past-bound")
		d := decide(mu, watch(upObs), m)
		if d.Action != contract.Wait || len(d.Ops) > 0 || !d.Next.Equal(mt0.Add(2*m+s)) {
			t.Fatalf("first look: %v %v next %v, want to wait until 2m1s", d.Action, kinds(d.Ops), d.Next)
		}
		if d := decide(mu, watch(upObs), m+s/2); d.Action != contract.Wait || !d.Next.Equal(mt0.Add(2*m+s)) {
			t.Errorf("half a second later: %v next %v, want to wait until 2m1s", d.Action, d.Next)
		}
		if d := decide(mu, watch(upObs), 2*m+s); d.Action != contract.Ready || !slices.Contains(kinds(d.Ops), contract.LinkLastKnownGood) {
			t.Errorf("1m1s later: %v %v, want ready and linked", d.Action, kinds(d.Ops))
		}
		if d := decide(mu, watch(hookObs), 5*m/2); d.Action != contract.Wait {
			t.Errorf("not ready: %v", d.Action)
		}
		if d := decide(mu, watch(upObs), 3*m); d.Action != contract.Wait || !d.Next.Equal(mt0.Add(4*m+s)) {
			t.Errorf("ready again: %v next %v, want to wait 1m1s again", d.Action, d.Next)
		}
		if d := decide(monitorNamed(t, "links-late-past-bound"), watch(upObs), 3*m); d.Action != contract.Wait {
			t.Errorf("a new run's monitor remembered the last one's look: %v", d.Action)
		}
	})
}

// fellBackTo is the mirror pod of revision 4 after a fallback from 5.
func fellBackTo(uid string, reason contract.Reason) *contract.Mirror {
	return &contract.Mirror{Name: "kas", UID: uid, Revision: 4, Ready: true, Annotations: map[string]string{
		contract.AnnotationFallbackForRevision: "5", contract.AnnotationFallbackReason: string(reason), contract.AnnotationFallbackMessage: "Revision 5 did not become ready within 5m0s",
	}}
}

func operate(o operatorCore, mem *contract.Fallback, n contract.Node, at time.Duration) contract.OperatorDecision {
	return o.decide(o.params, mem, n, mt0.Add(at))
}

// Each operator mutant departs from the reference where its description
// says.
func TestOperatorMutants(t *testing.T) {
	ref := operatorNamed(t, "reference")
	m, s := time.Minute, time.Second
	term := strings.Repeat("x", 100)
	at := func(mirror *contract.Mirror) contract.Node {
		return contract.Node{Target: 5, Mirror: mirror, Termination: term}
	}

	t.Run("retries-never-started-up and retries-crash-looping retry after one no-retry reason", func(t *testing.T) {
		for _, c := range []struct {
			subject string
			reason  contract.Reason
		}{{"retries-never-started-up", contract.NeverStartedUp}, {"retries-crash-looping", contract.CrashLooping}} {
			if d := operate(operatorNamed(t, c.subject), nil, at(fellBackTo("a", c.reason)), 0); !d.Next.Equal(mt0.Add(10 * m)) {
				t.Errorf("%s after %s: next %v, want a retry at 10m", c.subject, c.reason, d.Next)
			}
			if d := operate(ref, nil, at(fellBackTo("a", c.reason)), 0); !d.Next.IsZero() {
				t.Errorf("reference after %s: next %v, want no retry", c.reason, d.Next)
			}
		}
	})
	t.Run("the back-off mutants retry one second early or past the 6h cap and the bound", func(t *testing.T) {
		for _, c := range []struct {
			subject string
			first   time.Duration
			seventh time.Duration // the delay before retry 7, the first at the cap
		}{
			{"reference", 10 * m, 6 * time.Hour},
			{"retry-early-by-1s", 10*m - s, 6 * time.Hour},
			{"backoff-cap-past-6h", 10 * m, 6*time.Hour + m + s},
		} {
			b := operatorNamed(t, c.subject).params.Backoff
			if b.Delay(0) != c.first || b.Delay(6) != c.seventh {
				t.Errorf("%s: first %v, seventh %v; want %v, %v", c.subject, b.Delay(0), b.Delay(6), c.first, c.seventh)
			}
		}
	})
	t.Run("clears-degraded-on-retry clears once the retry's mirror pod replaces the fallback, before it is ready", func(t *testing.T) {
		retry := &contract.Mirror{Name: "kas", UID: "r", Revision: 5}
		for subject, want := range map[string]metav1.ConditionStatus{"reference": metav1.ConditionTrue, "clears-degraded-on-retry": metav1.ConditionFalse} {
			o := operatorNamed(t, subject)
			d := operate(o, nil, at(fellBackTo("a", contract.NotReady)), 0)
			if d = operate(o, d.Memory, at(retry), 10*m+s); d.Condition.Status != want {
				t.Errorf("%s during the retry: %s, want %s", subject, d.Condition.Status, want)
			}
		}
	})
	t.Run("backoff-shrinks waits 40m, 20m, then 10m", func(t *testing.T) {
		o := operatorNamed(t, "backoff-shrinks")
		uid := "a"
		d := operate(o, nil, at(fellBackTo(uid, contract.NotReady)), 0)
		for k, want := range []time.Duration{40 * m, 20 * m, 10 * m, 10 * m} {
			if !d.Next.Equal(d.Memory.At.Add(want)) {
				t.Fatalf("retry %d: next %v, want %v after %v", k+1, d.Next, want, d.Memory.At)
			}
			due := d.Next.Sub(mt0)
			if d = operate(o, d.Memory, at(fellBackTo(uid, contract.NotReady)), due); !d.Retry {
				t.Fatalf("retry %d not asked at %v", k+1, due)
			}
			uid = fmt.Sprint("b", k)
			d = operate(o, d.Memory, at(fellBackTo(uid, contract.NotReady)), due+5*m)
		}
	})
	t.Run("gives-up retries twice, then never", func(t *testing.T) {
		o := operatorNamed(t, "gives-up")
		uid := "a"
		d := operate(o, nil, at(fellBackTo(uid, contract.NotReady)), 0)
		for k := range 3 {
			due := d.Next.Sub(mt0)
			if k == givenUpAfter {
				if !d.Next.IsZero() {
					t.Errorf("retry %d: next %v, want none", k+1, d.Next)
				}
				break
			}
			if d = operate(o, d.Memory, at(fellBackTo(uid, contract.NotReady)), due); !d.Retry {
				t.Fatalf("retry %d not asked at %v", k+1, due)
			}
			uid = fmt.Sprint("b", k)
			d = operate(o, d.Memory, at(fellBackTo(uid, contract.NotReady)), due+5*m)
		}
	})
	t.Run("degraded-late-past-bound reports a fallback 1m1s late, whatever wakes it", func(t *testing.T) {
		o := operatorNamed(t, "degraded-late-past-bound")
		d := operate(o, nil, at(fellBackTo("a", contract.NotReady)), 0)
		if d.Condition.Status != metav1.ConditionFalse || !d.Next.Equal(mt0.Add(m+s)) {
			t.Fatalf("first look: %s next %v, want False and a look at 1m1s", d.Condition.Status, d.Next)
		}
		if d = operate(o, d.Memory, at(fellBackTo("a", contract.NotReady)), 30*s); d.Condition.Status != metav1.ConditionFalse {
			t.Fatalf("woken at 30s: %s, want False still", d.Condition.Status)
		}
		if d = operate(o, d.Memory, at(fellBackTo("a", contract.NotReady)), m+s); d.Condition.Status != metav1.ConditionTrue || !d.Next.Equal(mt0.Add(10*m)) {
			t.Errorf("at 1m1s: %s next %v, want True and the retry at 10m", d.Condition.Status, d.Next)
		}
	})
	t.Run("degraded-forever keeps Degraded once the failed revision is ready", func(t *testing.T) {
		ready := &contract.Mirror{Name: "kas", UID: "r", Revision: 5, Ready: true}
		for subject, want := range map[string]metav1.ConditionStatus{"reference": metav1.ConditionFalse, "degraded-forever": metav1.ConditionTrue} {
			o := operatorNamed(t, subject)
			d := operate(o, nil, at(fellBackTo("a", contract.NotReady)), 0)
			if d = operate(o, d.Memory, at(ready), 11*m); d.Condition.Status != want {
				t.Errorf("%s once ready: %s, want %s", subject, d.Condition.Status, want)
			}
		}
	})
	t.Run("clears-late-past-bound clears Degraded 1m1s after the failed revision is ready", func(t *testing.T) {
		ready := &contract.Mirror{Name: "kas", UID: "r", Revision: 5, Ready: true}
		o := operatorNamed(t, "clears-late-past-bound")
		d := operate(o, nil, at(fellBackTo("a", contract.NotReady)), 0)
		mem := d.Memory
		for _, c := range []struct {
			at   time.Duration
			want metav1.ConditionStatus
		}{{11 * m, metav1.ConditionTrue}, {12 * m, metav1.ConditionTrue}, {12*m + s, metav1.ConditionFalse}} {
			if d = operate(o, mem, at(ready), c.at); d.Condition.Status != c.want {
				t.Errorf("at %v once ready at 11m: %s, want %s", c.at, d.Condition.Status, c.want)
			}
		}
	})
	t.Run("truncates-termination-message does not show the whole termination message", func(t *testing.T) {
		d := operate(operatorNamed(t, "truncates-termination-message"), nil, at(fellBackTo("a", contract.CrashLooping)), 0)
		if strings.Contains(d.Condition.Message, term) || !strings.Contains(d.Condition.Message, term[:truncatedTermination]) {
			t.Errorf("truncates-termination-message: %q", d.Condition.Message)
		}
		if d = operate(ref, nil, at(fellBackTo("a", contract.CrashLooping)), 0); !strings.Contains(d.Condition.Message, term) {
			t.Errorf("reference: %q", d.Condition.Message)
		}
	})
}

// The installer and pruner mutants depart from the reference where their
// descriptions say.
func TestInstallerAndPrunerMutants(t *testing.T) {
	t.Run("locks-late writes the resources and the monitor manifest before it takes the lock", func(t *testing.T) {
		c := subjectNamed(t, installers, "locks-late").Impl.(installerImpl)(DefaultConfig())
		want := []contract.OpKind{contract.WriteResources, contract.WriteManifest, contract.TakeLock, contract.WriteManifest, contract.ReleaseLock}
		for _, held := range []bool{false, true} {
			ops := c.install(c.params, 7, held)
			if !slices.Equal(kinds(ops), want) || ops[1].Pod != contract.StartupMonitor || ops[3].Pod != contract.Operand {
				t.Errorf("lock held %v: %v, want %v, the monitor's manifest first", held, ops, want)
			}
		}
		ref := subjectNamed(t, installers, "reference").Impl.(installerImpl)(DefaultConfig())
		if ops := ref.install(ref.params, 7, true); ops != nil {
			t.Errorf("reference with the lock held: %v, want to wait", ops)
		}
	})
	t.Run("skips-reinstall installs a revision only the first time it is asked", func(t *testing.T) {
		c := subjectNamed(t, installers, "skips-reinstall").Impl.(installerImpl)(DefaultConfig())
		if ops := c.install(c.params, 7, true); ops != nil {
			t.Errorf("lock held: %v, want to wait", ops)
		}
		if ops := c.install(c.params, 7, false); len(ops) == 0 {
			t.Error("first ask: nothing installed")
		}
		if ops := c.install(c.params, 7, false); ops != nil {
			t.Errorf("second ask of 7: %v, want nothing", kinds(ops))
		}
		if ops := c.install(c.params, 8, false); len(ops) == 0 {
			t.Error("first ask of 8: nothing installed")
		}
	})
	t.Run("retry-without-operand leaves the operand's manifest out of a revision asked again", func(t *testing.T) {
		c := subjectNamed(t, installers, "retry-without-operand").Impl.(installerImpl)(DefaultConfig())
		first, again := c.install(c.params, 7, false), c.install(c.params, 7, false)
		if len(first) != 5 || len(again) != 4 || slices.ContainsFunc(again, func(op contract.Op) bool { return op.Pod == contract.Operand }) {
			t.Errorf("first %v, again %v: want the operand's manifest only the first time", first, again)
		}
	})
	prune := func(name string) prunerCore {
		return subjectNamed(t, pruners, name).Impl.(prunerImpl)(DefaultConfig())
	}
	revs := []int{1, 2, 3, 4, 5, 6}
	t.Run("keeps-one-more keeps the previous revision, not last-known-good", func(t *testing.T) {
		c, ref := prune("keeps-one-more"), prune("reference")
		if got := c.prune(c.params, revs, 3, 1); !slices.Equal(got, []int{1, 2}) {
			t.Errorf("keep 3, last-known-good 1: deletes %v, want [1 2]", got)
		}
		if got := ref.prune(ref.params, revs, 3, 1); !slices.Equal(got, []int{2, 3}) {
			t.Errorf("reference: deletes %v, want [2 3]", got)
		}
	})
	t.Run("stale-link keeps to the first link it found", func(t *testing.T) {
		c := prune("stale-link")
		for _, step := range []struct {
			lkg  int
			want []int
		}{{0, []int{1, 2, 3, 4, 5}}, {2, []int{1, 3, 4, 5}}, {3, []int{1, 3, 4, 5}}} {
			if got := c.prune(c.params, revs, 1, step.lkg); !slices.Equal(got, step.want) {
				t.Errorf("link at %d: deletes %v, want %v", step.lkg, got, step.want)
			}
		}
		if fresh := prune("stale-link"); !slices.Equal(fresh.prune(fresh.params, revs, 1, 3), []int{1, 2, 4, 5}) {
			t.Errorf("a new run's pruner did not resolve the link afresh")
		}
	})
}
