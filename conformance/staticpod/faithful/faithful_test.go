package faithful

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opcert/opcert/conformance/staticpod/contract"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// up is an operand of revision 3 that passes every check.
func up() contract.Observation {
	return contract.Observation{StartAttempts: 1, Healthz: contract.OK, Etcd: contract.OK, Readyz: contract.OK,
		Mirror: &contract.Mirror{UID: "u3", Revision: 3, Ready: true}}
}

func view(o contract.Observation) contract.MonitorView {
	return contract.MonitorView{Revision: 3, Timeout: 5 * time.Minute, Manifest: 3, Operand: o, LastKnownGood: 2, Revisions: []int{1, 2, 3}}
}

// 003 §Readiness, in the seed's order, with either reading of etcd.
func TestReadiness(t *testing.T) {
	hooks := func(h []string) string { return strings.Join(h, ",") }
	etcdDown := up()
	etcdDown.Healthz, etcdDown.Etcd, etcdDown.Readyz, etcdDown.Unfinished = contract.Failed, contract.Failed, contract.Failed, []string{"etcd"}
	stuck := up()
	stuck.Readyz, stuck.Unfinished = contract.Failed, []string{"poststarthook/start-apiextensions-controllers"}
	crash := stuck
	crash.StartAttempts = 3
	restarted := up()
	restarted.StartAttempts = 2
	for _, c := range []struct {
		name      string
		o         contract.Observation
		etcdFirst bool
		want      string
	}{
		{"never started", contract.Observation{}, false, neverStartedUp},
		{"crash looping", crash, false, crashLooping},
		{"restarted, then up: ready", restarted, false, ""},
		{"etcd down, the steps' order", etcdDown, false, unhealthy},
		{"etcd down, the Test Plan's reading", etcdDown, true, etcdUnhealthy},
		{"a hook stuck", stuck, true, notReady},
		{"no mirror pod", contract.Observation{StartAttempts: 1, Healthz: contract.OK, Readyz: contract.OK}, false, notReady},
		{"ready", up(), true, ""},
	} {
		if got, why := readiness(3, c.o, c.etcdFirst, hooks); got != c.want {
			t.Errorf("%s: %q (%s), want %q", c.name, got, why, c.want)
		}
	}
	if _, why := readiness(3, stuck, false, hooks); !strings.Contains(why, "start-apiextensions-controllers") {
		t.Errorf("a stuck hook's message %q does not name it", why)
	}
}

// Watchful falls back at the timeout to last-known-good, keeps its
// manifest, and links then removes it once ready.
func TestWatchful(t *testing.T) {
	stuck := up()
	stuck.Readyz = contract.Failed
	d := Watchful().Look(view(stuck), t0)
	if d.Action != contract.Wait || !d.Next.Equal(t0.Add(5*time.Minute)) {
		t.Fatalf("first look: %v next %v", d.Action, d.Next)
	}
	v := view(stuck)
	v.Since = d.Since
	d = Watchful().Look(v, t0.Add(5*time.Minute))
	if d.Action != contract.FallBack || len(d.Ops) != 3 || d.Ops[1].Revision != 2 || d.Ops[1].Annotations[keyFor] != "3" {
		t.Fatalf("at the timeout: %v %+v", d.Action, d.Ops)
	}
	v.LockHeld = true
	if d = Watchful().Look(v, t0.Add(6*time.Minute)); d.Action != contract.Wait {
		t.Errorf("under another's lock: %v", d.Action)
	}
	d = Watchful().Look(view(up()), t0)
	if d.Action != contract.Ready || d.Ops[1].Kind != contract.LinkLastKnownGood || d.Ops[2].Kind != contract.RemoveManifest {
		t.Errorf("ready: %v %+v", d.Action, d.Ops)
	}
}

// Resyncing reacts 30s after the timeout and 20s after it sees readiness.
func TestResyncing(t *testing.T) {
	r := Resyncing()
	stuck := up()
	stuck.Readyz = contract.Failed
	v := view(stuck)
	v.Since = t0
	if d := r.Look(v, t0.Add(5*time.Minute)); d.Action != contract.Wait || !d.Next.Equal(t0.Add(5*time.Minute+resync)) {
		t.Errorf("at the timeout: %v next %v", d.Action, d.Next)
	}
	if d := r.Look(v, t0.Add(5*time.Minute+resync)); d.Action != contract.FallBack {
		t.Errorf("30s later: %v", d.Action)
	}
	w := view(up())
	if d := r.Look(w, t0); d.Action != contract.Wait || !d.Next.Equal(t0.Add(readySettle)) {
		t.Errorf("first sight of readiness: %v next %v", d.Action, d.Next)
	}
	if d := r.Look(w, t0.Add(readySettle)); d.Action != contract.Ready {
		t.Errorf("20s later: %v", d.Action)
	}
}

func fellBack(uid, reason string) *contract.Mirror {
	return &contract.Mirror{Name: "kas", UID: uid, Revision: 2, Ready: true, Annotations: map[string]string{
		keyFor: "3", keyReason: reason, keyMessage: "revision 3 failed"}}
}

// The operators' ladders: the waits before retries 1 to 5.
func TestLadders(t *testing.T) {
	m := time.Minute
	for name, c := range map[string]struct {
		op   contract.Operator
		want []time.Duration
	}{
		"doubling": {Doubling(), []time.Duration{20 * m, 40 * m, 80 * m, 120 * m, 120 * m}},
		"tripling": {Tripling(), []time.Duration{15*m + resync, 45*m + resync, 135*m + resync, 360*m + resync, 360*m + resync}},
	} {
		uid, now := "a", t0
		d := c.op.Look(nil, contract.Node{Target: 3, Mirror: fellBack(uid, notReady), Termination: "boom"}, now)
		if d.Condition.Type != degraded || d.Condition.Status != metav1.ConditionTrue ||
			!strings.Contains(d.Condition.Message, "revision 3 failed") || !strings.Contains(d.Condition.Message, "boom") {
			t.Fatalf("%s: condition %+v", name, d.Condition)
		}
		for k, want := range c.want {
			if got := d.Next.Sub(now); got != want {
				t.Fatalf("%s retry %d: after %s, want %s", name, k+1, got, want)
			}
			if d = c.op.Look(d.Memory, contract.Node{Target: 3, Mirror: fellBack(uid, notReady)}, d.Next); !d.Retry {
				t.Fatalf("%s retry %d not asked", name, k+1)
			}
			uid, now = uid+"x", t0.Add(time.Duration(k+1)*24*time.Hour) // the retry failed again

			d = c.op.Look(d.Memory, contract.Node{Target: 3, Mirror: fellBack(uid, notReady)}, now)
		}
		if d := c.op.Look(nil, contract.Node{Target: 3, Mirror: fellBack("c", crashLooping)}, t0); !d.Next.IsZero() || d.Condition.Status != metav1.ConditionTrue {
			t.Errorf("%s after CrashLooping: next %v, %s; want no retry, Degraded", name, d.Next, d.Condition.Status)
		}
		ready := &contract.Mirror{UID: "r", Revision: 3, Ready: true}
		if d := c.op.Look(d.Memory, contract.Node{Target: 3, Mirror: ready}, now); d.Condition.Status != metav1.ConditionFalse || d.Memory != nil {
			t.Errorf("%s once the failed revision is ready: %s, memory %v", name, d.Condition.Status, d.Memory)
		}
	}
}
