package player

import (
	"context"
	"strings"
	"testing"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// simulated is a Player of a role opcert plays in virtual time, and the
// timeline it plays on.
func simulated(t *testing.T) (*Player, *timeline.Timeline) {
	t.Helper()
	tl := &timeline.Timeline{}
	st := &conformance.Stage{Sched: sim.NewScheduler(sim.NewClock(), tl), Origin: timeline.Epoch}
	nop := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil })
	spec := Spec{Role: "operator", Actor: func(o string) string { return "operator/" + o }}
	spec.Simulate = func(ctx context.Context, o string) error {
		return st.Sched.Start(ctx, sim.Actor{Name: spec.Actor(o), Role: spec.Role, Reconciler: nop})
	}
	p, err := New(context.Background(), st, "opcert's own", spec)
	if err != nil {
		t.Fatal(err)
	}
	return p, tl
}

// verbs are the process events of the timeline, in order.
func verbs(tl *timeline.Timeline) string {
	var out []string
	for _, e := range tl.Events() {
		if e.Object.Kind == timeline.KindProcess {
			out = append(out, e.Verb+" "+e.Actor)
		}
	}
	return strings.Join(out, ", ")
}

// A step's kill keeps an instance down until a restart step: a start by
// the world (an operator's Deployment applied again) leaves it down, a
// start of one that runs does nothing, and a stop is no step's.
func TestKillKeepsItDownUntilRestart(t *testing.T) {
	ctx := context.Background()
	p, tl := simulated(t)
	steps := []struct {
		do            func() error
		running, down bool
	}{
		{func() error { return p.Start(ctx, "etcd") }, true, false},
		{func() error { return p.Start(ctx, "etcd") }, true, false},
		{func() error { return p.Kill(ctx, "etcd") }, false, true},
		{func() error { return p.Start(ctx, "etcd") }, false, true},
		{func() error { return p.Kill(ctx, "etcd") }, false, true},
		{func() error { return p.Restart(ctx, "etcd") }, true, false},
		{func() error { return p.Restart(ctx, "etcd") }, true, false},
		{func() error { return p.Stop(ctx, "etcd") }, false, false},
		{func() error { return p.Start(ctx, "etcd") }, true, false},
	}
	for i, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if p.Running("etcd") != s.running || p.Down("etcd") != s.down {
			t.Errorf("step %d: running %t, down %t; want %t, %t", i, p.Running("etcd"), p.Down("etcd"), s.running, s.down)
		}
	}
	want := "start operator/etcd, kill operator/etcd, start operator/etcd, kill operator/etcd, start operator/etcd, kill operator/etcd, start operator/etcd"
	if got := verbs(tl); got != want {
		t.Errorf("process events:\n%s\nwant\n%s", got, want)
	}
	if p.Outside() || p.Executable() || p.Deployed() {
		t.Error("opcert's own subject is said to be outside opcert")
	}
}

// A role played by a subject outside opcert needs the run that runs it;
// a subject of no form the Player plays needs the mechanism's Simulate.
func TestNewRefuses(t *testing.T) {
	st := &conformance.Stage{Sched: sim.NewScheduler(sim.NewClock(), &timeline.Timeline{})}
	spec := Spec{Role: "operator"}
	for _, tc := range []struct {
		impl any
		want string
	}{
		{conformance.Process{Command: []string{"op"}}, "the operator role: an executable needs a real-time run on opcert's own API server"},
		{conformance.Deployment{Namespace: "ops", Name: "op"}, "the operator role: a Deployment needs a run on a cluster"},
		{42, "the operator role cannot be played by int"},
	} {
		if _, err := New(context.Background(), st, tc.impl, spec); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%T: %v, want %q", tc.impl, err, tc.want)
		}
		if Takes(tc.impl) != (tc.want != "the operator role cannot be played by int") {
			t.Errorf("Takes(%T) = %t", tc.impl, Takes(tc.impl))
		}
	}
}

// In process mode a deletion is named by the mode's Who, not asked of the
// audit, which cannot name it; on a cluster every write is Who's.
func TestWhoNamesWhatTheAuditCannot(t *testing.T) {
	operator := func(_ context.Context, _ client.Object, e *timeline.Event) { e.Actor = "operator" }
	proc := &Player{cmd: &conformance.Process{}}
	e := timeline.Event{Actor: "unknown", Verb: timeline.VerbDelete}
	proc.who(operator)(context.Background(), nil, &e) // no Processes: asking would panic
	if e.Actor != "operator" {
		t.Errorf("a deletion in process mode is %s's", e.Actor)
	}
	dep := &Player{dep: &conformance.Deployment{}}
	e = timeline.Event{Actor: "unknown", Verb: timeline.VerbUpdate}
	dep.who(operator)(context.Background(), nil, &e)
	if e.Actor != "operator" {
		t.Errorf("a write on a cluster is %s's", e.Actor)
	}
}
