package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/sim/timeline"
)

// A crash after the role's 2nd write kills its writer right after it: the
// third write of that reconcile fails (the process died between two
// writes), and the restart, a new instance, starts from its Initial.
func TestCrashAfterTheNthWriteKillsBetweenWritesAndRestarts(t *testing.T) {
	s, _, tl := newScheduler()
	api := newAPI(t, clusterOperator("x"))
	op := s.Client(api, "op", "operator")
	instances := 0
	var failed []error
	start := func(ctx context.Context) error {
		instances++
		n := instances
		r := newRecorder(s, func(ctx context.Context, _ reconcile.Request, _ int) (reconcile.Result, error) {
			for i := range 3 {
				if err := writeStatus(ctx, s, op, "x", fmt.Sprintf("C%d", i), configv1.ConditionTrue, fmt.Sprintf("instance %d", n)); err != nil {
					failed = append(failed, err)
					return reconcile.Result{}, err
				}
			}
			return reconcile.Result{}, nil
		})
		return s.Start(ctx, Actor{Name: "op", Role: "operator", Reconciler: r, Initial: []reconcile.Request{req("x")}})
	}
	if err := s.CrashAfter(&Crash{Role: "operator", After: 2, RestartAfter: 10 * time.Second,
		Then: func(ctx context.Context, actor string) error { return start(ctx) }}); err != nil {
		t.Fatal(err)
	}
	if err := start(context.Background()); err != nil {
		t.Fatal(err)
	}
	mustRun(t, s, at(time.Minute))
	checkEvents(t, tl,
		"+0s op start Process/op",
		"+0s op update-status ClusterOperator/x",
		"+0s op update-status ClusterOperator/x",
		"+0s op kill Process/op",
		"+10s op start Process/op",
		"+10s op update-status ClusterOperator/x",
		"+10s op update-status ClusterOperator/x",
		"+10s op update-status ClusterOperator/x",
	)
	if len(failed) != 1 || !errors.Is(failed[0], ErrCrashed) {
		t.Errorf("the dead instance's third write: %v, want one ErrCrashed", failed)
	}
	if kill := tl.Events()[3]; kill.Detail != timeline.PerturbationDetail+"crash after write 2" {
		t.Errorf("the kill says %q", kill.Detail)
	}
}

// Lost notifications are never delivered one by one: at the window's end
// the watcher is woken once for each object that changed, and sees only
// the last state. Late ones come that much later.
func TestLostAndLateNotifications(t *testing.T) {
	for _, tc := range []struct {
		view View
		want string
	}{
		{View{Role: "operator", Lose: true}, "x@+0s,x@+2m0s"},
		{View{Role: "operator", Delay: 30 * time.Second}, "x@+0s,x@+1m30s,x@+1m40s"},
		{View{Role: "operator", Lag: 30 * time.Second}, "x@+0s,x@+1m30s,x@+1m40s"},
	} {
		t.Run(tc.view.String(), func(t *testing.T) {
			s, _, tl := newScheduler()
			api := newAPI(t, clusterOperator("x"))
			det := s.Client(api, "det", "detector")
			r := newRecorder(s, nil)
			mustStart(t, s, Actor{Name: "op", Role: "operator", Reconciler: r, Initial: []reconcile.Request{req("x")},
				Watches: []Watch{{GVK: coGVK}}})
			var p *Perturbed
			s.At(at(time.Minute), func(ctx context.Context) (err error) { p, err = s.Perturb(ctx, tc.view); return err })
			for _, d := range []time.Duration{60, 70} {
				s.At(at(d*time.Second), func(ctx context.Context) error {
					return writeStatus(ctx, s, det, "x", "Available", configv1.ConditionTrue, fmt.Sprint(d))
				})
			}
			s.At(at(2*time.Minute), func(ctx context.Context) error { return s.Unperturb(ctx, p) })
			mustRun(t, s, at(3*time.Minute))
			if got := fmt.Sprint(r.calls); strings.Trim(got, "[]") != strings.ReplaceAll(tc.want, ",", " ") {
				t.Errorf("reconciles %s, want %s", got, tc.want)
			}
			var faults []string
			for _, e := range tl.Events() {
				if e.Verb == timeline.VerbFault || e.Verb == timeline.VerbClear {
					faults = append(faults, fmt.Sprintf("+%v %s %s", e.Time.Sub(timeline.Epoch), e.Verb, e.Detail))
				}
			}
			if want := []string{"+1m0s fault " + tc.view.String(), "+2m0s clear " + tc.view.String()}; !slices.Equal(faults, want) {
				t.Errorf("window events %q, want %q", faults, want)
			}
		})
	}
}

// A lagging view reads objects as they were: the status written at 1m10s
// is not seen until 30s later; a fresh view sees it at once. Lists too.
func TestStaleReadsAnswerAsOfTheLag(t *testing.T) {
	s, _, _ := newScheduler()
	api := newAPI(t, clusterOperator("x"))
	det := s.Client(api, "det", "detector")
	op := s.Client(api, "op", "operator")
	var p *Perturbed
	var seen []string
	look := func(ctx context.Context) error {
		var co configv1.ClusterOperator
		var list configv1.ClusterOperatorList
		if err := op.Get(ctx, types.NamespacedName{Name: "x"}, &co); err != nil {
			return err
		}
		if err := op.List(ctx, &list); err != nil {
			return err
		}
		msg := func(co *configv1.ClusterOperator) string {
			if c := findCondition(co, "Available"); c != nil {
				return c.Message
			}
			return "none"
		}
		seen = append(seen, fmt.Sprintf("+%v get=%s list=%s/%d", s.Now().Sub(timeline.Epoch), msg(&co), msg(&list.Items[0]), len(list.Items)))
		return nil
	}
	s.At(at(0), func(ctx context.Context) error {
		return writeStatus(ctx, s, det, "x", "Available", configv1.ConditionTrue, "old")
	})
	s.At(at(time.Minute), func(ctx context.Context) (err error) {
		p, err = s.Perturb(ctx, View{Role: "operator", Lag: 30 * time.Second})
		return err
	})
	s.At(at(70*time.Second), func(ctx context.Context) error {
		return writeStatus(ctx, s, det, "x", "Available", configv1.ConditionTrue, "new")
	})
	for _, d := range []time.Duration{75, 95, 110} {
		s.At(at(d*time.Second), look)
	}
	s.At(at(2*time.Minute), func(ctx context.Context) error { return s.Unperturb(ctx, p) })
	s.At(at(121*time.Second), look)
	mustRun(t, s, at(3*time.Minute))
	want := []string{"+1m15s get=old list=old/1", "+1m35s get=old list=old/1", "+1m50s get=new list=new/1", "+2m1s get=new list=new/1"}
	if !slices.Equal(seen, want) {
		t.Errorf("the operator saw\n  %s\nwant\n  %s", strings.Join(seen, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestPerturbationsRefuseWhatIsNone(t *testing.T) {
	s, _, _ := newScheduler()
	for _, v := range []View{{Lose: true}, {Role: "operator"}, {Role: "operator", Lose: true, Delay: time.Second}, {Role: "operator", Lag: -time.Second}, {Role: "operator", Actor: "nobody", Lose: true}} {
		if _, err := s.Perturb(context.Background(), v); err == nil {
			t.Errorf("Perturb(%+v) = nil error", v)
		}
	}
	then := func(context.Context, string) error { return nil }
	for _, c := range []Crash{{After: 1, Then: then}, {Role: "operator", Then: then}, {Role: "operator", After: 1}, {Role: "operator", After: 1, RestartAfter: -1, Then: then}} {
		if err := s.CrashAfter(&c); err == nil {
			t.Errorf("CrashAfter(%+v) = nil error", c)
		}
	}
}
