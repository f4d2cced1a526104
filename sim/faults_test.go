package sim

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/sim/timeline"
)

func mustFail(t *testing.T, s *Scheduler, f APIFault) *Fault {
	t.Helper()
	h, err := s.FailCalls(context.Background(), f)
	if err != nil {
		t.Fatalf("FailCalls(%+v): %v", f, err)
	}
	return h
}

// The operator writes every 30s; its writes fail from 1m to 2m, and only
// its: the window is [1m, 2m) exactly, since a step runs before the
// reconciles due at its instant.
func TestAPIFaultFailsTheRolesWritesForItsWindow(t *testing.T) {
	s, _, tl := newScheduler()
	api := newAPI(t, clusterOperator("x"))
	op := s.Client(api, "op", "operator")
	det := s.Client(api, "det", "detector")
	var got []string
	r := newRecorder(s, func(ctx context.Context, _ reconcile.Request, n int) (reconcile.Result, error) {
		err := writeStatus(ctx, s, op, "x", "Available", configv1.ConditionTrue, fmt.Sprint(n))
		switch {
		case err == nil:
			got = append(got, fmt.Sprintf("+%v ok", s.Now().Sub(timeline.Epoch)))
		case apierrors.IsInternalError(err):
			got = append(got, fmt.Sprintf("+%v 500", s.Now().Sub(timeline.Epoch)))
		default:
			t.Errorf("write at +%v: %v, want a 500 InternalError", s.Now().Sub(timeline.Epoch), err)
		}
		return reconcile.Result{RequeueAfter: 30 * time.Second}, nil
	})
	mustStart(t, s, Actor{Name: "op", Role: "operator", Reconciler: r, Initial: []reconcile.Request{req("x")}})
	var h *Fault
	s.At(at(time.Minute), func(ctx context.Context) (err error) {
		h, err = s.FailCalls(ctx, APIFault{Role: "operator", Calls: Writes, Code: 500})
		return err
	})
	s.At(at(75*time.Second), func(ctx context.Context) error {
		return writeStatus(ctx, s, det, "x", "Degraded", configv1.ConditionFalse, "another role writes")
	})
	s.At(at(2*time.Minute), func(ctx context.Context) error { return s.ClearFault(ctx, h) })
	mustRun(t, s, at(150*time.Second))

	if want := "+0s ok,+30s ok,+1m0s 500,+1m30s 500,+2m0s ok,+2m30s ok"; strings.Join(got, ",") != want {
		t.Errorf("the operator's writes: %s, want %s", strings.Join(got, ","), want)
	}
	checkEvents(t, tl,
		"+0s op start Process/op",
		"+0s op update-status ClusterOperator/x",
		"+30s op update-status ClusterOperator/x",
		"+1m0s op fault Process/op",
		"+1m0s op update-status ClusterOperator/x FAILED",
		"+1m15s det update-status ClusterOperator/x",
		"+1m30s op update-status ClusterOperator/x FAILED",
		"+2m0s op clear Process/op",
		"+2m0s op update-status ClusterOperator/x",
		"+2m30s op update-status ClusterOperator/x",
	)
	for _, e := range tl.Events() {
		switch {
		case e.Verb == timeline.VerbFault || e.Verb == timeline.VerbClear:
			if e.Role != "operator" || e.Detail != "writes fail with 500 InternalError" {
				t.Errorf("%s: role %q detail %q, want operator and the fault", brief(e), e.Role, e.Detail)
			}
		case e.Failed:
			if !strings.HasPrefix(e.Detail, "Internal error occurred: ") || e.Conditions != nil {
				t.Errorf("%s: detail %q, conditions %v: want the error and no change", brief(e), e.Detail, e.Conditions)
			}
		}
	}
	if err := s.ClearFault(context.Background(), h); err == nil {
		t.Error("clearing a fault twice is not refused")
	}
}

// Each code is the apimachinery error client-go would return, Retry-After
// included, for the calls it is set for and no others.
func TestAPIFaultErrorsAreWhatClientGoReturns(t *testing.T) {
	for _, tc := range []struct {
		f     APIFault
		is    func(error) bool
		delay int // the Retry-After the error suggests, 0 for none
	}{
		{APIFault{Calls: Writes, Code: 409}, apierrors.IsConflict, 0},
		{APIFault{Calls: Reads | Writes, Code: 429, RetryAfter: 7 * time.Second}, apierrors.IsTooManyRequests, 7},
		{APIFault{Calls: Reads | Writes, Code: 500}, apierrors.IsInternalError, 0},
		{APIFault{Calls: Reads | Writes, Code: 503}, apierrors.IsServiceUnavailable, 0},
		{APIFault{Calls: Reads | Writes, Code: 504, RetryAfter: 2 * time.Second}, apierrors.IsTimeout, 2},
	} {
		t.Run(fmt.Sprint(tc.f.Code), func(t *testing.T) {
			s, _, _ := newScheduler()
			api := newAPI(t, clusterOperator("x"))
			c := s.Client(api, "op", "operator")
			ctx := context.Background()
			tc.f.Role = "operator"
			mustFail(t, s, tc.f)
			var co configv1.ClusterOperator
			err := c.Get(ctx, types.NamespacedName{Name: "x"}, &co)
			if tc.f.Calls&Reads == 0 {
				if err != nil {
					t.Fatalf("a read during a writes fault: %v", err)
				}
				err = c.Status().Update(ctx, &co)
			}
			if !tc.is(err) {
				t.Fatalf("got %v (%T), want the %d error", err, err, tc.f.Code)
			}
			if code := apierrors.ReasonForError(err); string(code) != reasons[tc.f.Code] {
				t.Errorf("reason %s, want %s", code, reasons[tc.f.Code])
			}
			if secs, ok := apierrors.SuggestsClientDelay(err); secs != tc.delay || ok != (tc.delay > 0) {
				t.Errorf("suggests a delay of %ds (%v), want %ds", secs, ok, tc.delay)
			}
			if tc.f.Code == 409 && !strings.Contains(err.Error(), `clusteroperators.config.openshift.io "x"`) {
				t.Errorf("a conflict names the object as the server would: %v", err)
			}
		})
	}
}

// A reads fault fails Get (even one the store could answer) and List, and
// lets writes through.
func TestAPIFaultOnReadsFailsGetAndList(t *testing.T) {
	s, _, tl := newScheduler()
	api := newAPI(t, clusterOperator("x"))
	c := s.Client(api, "op", "operator")
	ctx := context.Background()
	var co configv1.ClusterOperator
	if err := c.Get(ctx, types.NamespacedName{Name: "x"}, &co); err != nil {
		t.Fatal(err)
	}
	mustFail(t, s, APIFault{Role: "operator", Calls: Reads, Code: 503})
	if err := c.Get(ctx, types.NamespacedName{Name: "x"}, &configv1.ClusterOperator{}); !apierrors.IsServiceUnavailable(err) {
		t.Errorf("Get: %v, want 503", err)
	}
	if err := c.List(ctx, &configv1.ClusterOperatorList{}); !apierrors.IsServiceUnavailable(err) {
		t.Errorf("List: %v, want 503", err)
	}
	if err := c.Status().Update(ctx, &co); err != nil {
		t.Errorf("a write during a reads fault: %v", err)
	}
	checkEvents(t, tl, "+0s op update-status ClusterOperator/x")
}

// A fault on a role reaches the actors that start during it, once each
// across restarts; a fault on one actor reaches it alone.
func TestAPIFaultReachesActorsStartedDuringIt(t *testing.T) {
	s, _, tl := newScheduler()
	ctx := context.Background()
	idle := newRecorder(s, nil)
	mustStart(t, s, Actor{Name: "a", Role: "operator", Reconciler: idle})
	mustStart(t, s, Actor{Name: "b", Role: "operator", Reconciler: idle})
	mustStart(t, s, Actor{Name: "d", Role: "detector", Reconciler: idle})
	one := mustFail(t, s, APIFault{Role: "operator", Actor: "b", Calls: Writes, Code: 409})
	all := mustFail(t, s, APIFault{Role: "operator", Calls: Reads, Code: 500})
	mustStart(t, s, Actor{Name: "c", Role: "operator", Reconciler: idle})
	for _, step := range []func() error{
		func() error { return s.Kill(ctx, "c") },
		func() error { return s.Start(ctx, Actor{Name: "c", Role: "operator", Reconciler: idle}) },
		func() error { return s.ClearFault(ctx, all) },
		func() error { return s.ClearFault(ctx, one) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	checkEvents(t, tl,
		"+0s a start Process/a",
		"+0s b start Process/b",
		"+0s d start Process/d",
		"+0s b fault Process/b",
		"+0s a fault Process/a",
		"+0s b fault Process/b",
		"+0s c start Process/c",
		"+0s c fault Process/c",
		"+0s c kill Process/c",
		"+0s c start Process/c",
		"+0s a clear Process/a",
		"+0s b clear Process/b",
		"+0s c clear Process/c",
		"+0s b clear Process/b",
	)
}

func TestFailCallsRefusesWhatIsNoFault(t *testing.T) {
	s, _, _ := newScheduler()
	mustStart(t, s, Actor{Name: "a", Role: "operator", Reconciler: newRecorder(s, nil)})
	for _, tc := range []struct {
		f    APIFault
		want string
	}{
		{APIFault{Calls: Writes, Code: 500}, "needs the role"},
		{APIFault{Role: "operator", Code: 500}, "reads, writes or both"},
		{APIFault{Role: "operator", Calls: 4, Code: 500}, "reads, writes or both"},
		{APIFault{Role: "operator", Calls: Reads, Code: 409}, "409 Conflict answers writes only"},
		{APIFault{Role: "operator", Calls: Writes, Code: 404}, "404 is not an API error a fault injects"},
		{APIFault{Role: "operator", Calls: Writes, Code: 500, RetryAfter: time.Second}, "500 carries no Retry-After"},
		{APIFault{Role: "operator", Calls: Writes, Code: 429, RetryAfter: 1500 * time.Millisecond}, "not a whole number of seconds"},
		{APIFault{Role: "operator", Actor: "ghost", Calls: Writes, Code: 500}, `no actor "ghost" of role operator has started; actors of the role so far: a`},
		{APIFault{Role: "detector", Actor: "a", Calls: Writes, Code: 500}, "actors of the role so far: none"},
		{APIFault{Role: "operator", Calls: Writes, Code: 500, Kinds: []schema.GroupKind{{Group: "apps"}}}, `kind ".apps" of an API fault has no Kind`},
	} {
		if _, err := s.FailCalls(context.Background(), tc.f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("FailCalls(%+v): %v, want an error saying %q", tc.f, err, tc.want)
		}
	}
}

// A fault with kinds fails the role's calls on those kinds alone: the
// operator cannot write its ConfigMap, nor list ConfigMaps, but reads and
// writes its ClusterOperator; the Detail names the kinds.
func TestAPIFaultWithKindsFailsThoseKindsAlone(t *testing.T) {
	s, _, tl := newScheduler()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns"}}
	api := newAPI(t, clusterOperator("x"), cm)
	c := s.Client(api, "op", "operator")
	mustStart(t, s, Actor{Name: "op", Role: "operator", Reconciler: newRecorder(s, nil)})
	ctx := context.Background()
	mustFail(t, s, APIFault{Role: "operator", Calls: Reads | Writes, Code: 500,
		Kinds: []schema.GroupKind{{Kind: "ConfigMap"}, {Group: "apps", Kind: "Deployment"}}})
	if err := writeStatus(ctx, s, c, "x", "Degraded", configv1.ConditionTrue, "cannot write cm"); err != nil {
		t.Errorf("the ClusterOperator's status, a kind the fault does not name: %v", err)
	}
	var got corev1.ConfigMap
	if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "cm"}, &got); !apierrors.IsInternalError(err) {
		t.Errorf("get of a ConfigMap: %v, want a 500", err)
	}
	if err := c.List(ctx, &corev1.ConfigMapList{}); !apierrors.IsInternalError(err) {
		t.Errorf("list of ConfigMaps: %v, want a 500", err)
	}
	if err := c.Update(ctx, cm.DeepCopy()); !apierrors.IsInternalError(err) {
		t.Errorf("update of a ConfigMap: %v, want a 500", err)
	}
	var details []string
	for _, e := range tl.Events() {
		if e.Verb == timeline.VerbFault {
			details = append(details, e.Detail)
		}
	}
	if want := "reads and writes on ConfigMap, Deployment.apps fail with 500 InternalError"; strings.Join(details, "|") != want {
		t.Errorf("fault events: %q, want one saying %q", details, want)
	}
}
