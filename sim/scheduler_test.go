package sim

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/sim/timeline"
)

// ---- helpers shared by the sim tests ----

var coGVK = configv1.GroupVersion.WithKind("ClusterOperator")

// newAPI is the stand-in for the run's API server: controller-runtime's fake
// client, with ClusterOperator's status as a subresource as on a cluster.
func newAPI(t testing.TB, objs ...client.Object) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := configv1.Install(scheme); err != nil {
		t.Fatal(err)
	}
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().
		WithScheme(scheme).
		// A plain tracker: the default one's managed-fields bookkeeping
		// costs milliseconds a write under -race, and no test reads it.
		WithObjectTracker(clienttesting.NewObjectTracker(scheme, serializer.NewCodecFactory(scheme).UniversalDecoder())).
		WithStatusSubresource(&configv1.ClusterOperator{}).
		WithObjects(objs...).
		Build()
}

func newScheduler() (*Scheduler, *testingclock.FakeClock, *timeline.Timeline) {
	clk := NewClock()
	tl := &timeline.Timeline{}
	return NewScheduler(clk, tl), clk, tl
}

// at is the virtual instant d after Epoch.
func at(d time.Duration) time.Time { return timeline.Epoch.Add(d) }

func req(name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Name: name}}
}

func clusterOperator(name string, conds ...configv1.ClusterOperatorStatusCondition) *configv1.ClusterOperator {
	return &configv1.ClusterOperator{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Status:     configv1.ClusterOperatorStatus{Conditions: conds},
	}
}

func coCondition(typ string, status configv1.ConditionStatus, reason, msg string, ltt time.Time) configv1.ClusterOperatorStatusCondition {
	return configv1.ClusterOperatorStatusCondition{
		Type: configv1.ClusterStatusConditionType(typ), Status: status,
		Reason: reason, Message: msg, LastTransitionTime: metav1.NewTime(ltt),
	}
}

// setCondition replaces (or adds) one condition of co in memory.
func setCondition(co *configv1.ClusterOperator, c configv1.ClusterOperatorStatusCondition) {
	for i := range co.Status.Conditions {
		if co.Status.Conditions[i].Type == c.Type {
			co.Status.Conditions[i] = c
			return
		}
	}
	co.Status.Conditions = append(co.Status.Conditions, c)
}

func findCondition(co *configv1.ClusterOperator, typ string) *configv1.ClusterOperatorStatusCondition {
	for i := range co.Status.Conditions {
		if string(co.Status.Conditions[i].Type) == typ {
			return &co.Status.Conditions[i]
		}
	}
	return nil
}

// writeStatus reads name through c, sets a condition and writes the status.
func writeStatus(ctx context.Context, s *Scheduler, c *Client, name, typ string, status configv1.ConditionStatus, msg string) error {
	var co configv1.ClusterOperator
	if err := c.Get(ctx, types.NamespacedName{Name: name}, &co); err != nil {
		return err
	}
	setCondition(&co, coCondition(typ, status, "Test", msg, s.Now()))
	return c.Status().Update(ctx, &co)
}

// call is one Reconcile as a recorder saw it: the request's name and the
// virtual time, as an offset from Epoch so that failures read well.
type call struct {
	At  time.Duration
	Req string
}

func (c call) String() string { return fmt.Sprintf("%s@+%v", c.Req, c.At) }

// recorder is a reconciler that records each call with Scheduler.Now() and
// then does what then says. n counts the calls for the request, from 1.
type recorder struct {
	s    *Scheduler
	then func(ctx context.Context, r reconcile.Request, n int) (reconcile.Result, error)

	mu    sync.Mutex
	calls []call
	count map[string]int
}

func newRecorder(s *Scheduler, then func(context.Context, reconcile.Request, int) (reconcile.Result, error)) *recorder {
	return &recorder{s: s, then: then, count: map[string]int{}}
}

func (r *recorder) Reconcile(ctx context.Context, rq reconcile.Request) (reconcile.Result, error) {
	r.mu.Lock()
	r.calls = append(r.calls, call{r.s.Now().Sub(timeline.Epoch), rq.Name})
	r.count[rq.Name]++
	n := r.count[rq.Name]
	r.mu.Unlock()
	if r.then == nil {
		return reconcile.Result{}, nil
	}
	return r.then(ctx, rq, n)
}

func (r *recorder) Calls() []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

func checkCalls(t *testing.T, who string, got []call, want ...call) {
	t.Helper()
	if len(want) == 0 {
		want = nil
	}
	if len(got) == 0 {
		got = nil
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s was called %v, want %v", who, got, want)
	}
}

// brief renders an event as one line: "+1m0s actor verb Kind/name".
func brief(e timeline.Event) string {
	s := fmt.Sprintf("+%v %s %s %s", e.Time.Sub(timeline.Epoch), e.Actor, e.Verb, e.Object)
	if e.Failed {
		s += " FAILED"
	}
	return s
}

func briefs(events []timeline.Event) []string {
	out := make([]string, 0, len(events))
	for _, e := range events {
		out = append(out, brief(e))
	}
	return out
}

func checkEvents(t *testing.T, tl *timeline.Timeline, want ...string) {
	t.Helper()
	got := briefs(tl.Events())
	if !slices.Equal(got, want) {
		t.Errorf("timeline:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func mustRun(t *testing.T, s *Scheduler, until time.Time) {
	t.Helper()
	if err := s.Run(context.Background(), until); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

func mustStart(t *testing.T, s *Scheduler, a Actor) {
	t.Helper()
	if err := s.Start(context.Background(), a); err != nil {
		t.Fatalf("Start %s: %v", a.Name, err)
	}
}

// ---- clock ----

func TestClockStartsAtEpochAndRunStopsAtUntil(t *testing.T) {
	s, _, _ := newScheduler()
	if !s.Now().Equal(timeline.Epoch) || !s.Clock().Now().Equal(timeline.Epoch) {
		t.Fatalf("a new scheduler stands at %v, want timeline.Epoch %v", s.Now(), timeline.Epoch)
	}
	if want := time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC); !timeline.Epoch.Equal(want) {
		t.Fatalf("timeline.Epoch = %v, want %v", timeline.Epoch, want)
	}

	// Nothing queued: the clock still ends at until.
	mustRun(t, s, at(time.Hour))
	if got := s.Now().Sub(timeline.Epoch); got != time.Hour {
		t.Fatalf("after Run(+1h) with nothing queued the clock is at +%v, want +1h", got)
	}

	// Work due after until waits for the next Run; the clock stops at until.
	r := newRecorder(s, nil)
	mustStart(t, s, Actor{Name: "a", Reconciler: r})
	s.Enqueue("a", req("later"), at(3*time.Hour))
	mustRun(t, s, at(2*time.Hour))
	if got := s.Now().Sub(timeline.Epoch); got != 2*time.Hour {
		t.Fatalf("clock at +%v after Run(+2h), want +2h", got)
	}
	checkCalls(t, "a", r.Calls())
	mustRun(t, s, at(4*time.Hour))
	checkCalls(t, "a", r.Calls(), call{3 * time.Hour, "later"})
	if got := s.Now().Sub(timeline.Epoch); got != 4*time.Hour {
		t.Fatalf("clock at +%v after Run(+4h), want +4h", got)
	}

	// Work due exactly at until runs in that Run.
	s.Enqueue("a", req("edge"), at(5*time.Hour))
	mustRun(t, s, at(5*time.Hour))
	checkCalls(t, "a", r.Calls(), call{3 * time.Hour, "later"}, call{5 * time.Hour, "edge"})
}

// ---- requeue and dedupe ----

func TestRequeueAfterFiresAtExactVirtualTime(t *testing.T) {
	s, _, _ := newScheduler()
	odd := 1234567891 * time.Nanosecond
	var seen []time.Time // what the reconciler's own clock said, under Run
	r := newRecorder(s, func(_ context.Context, rq reconcile.Request, n int) (reconcile.Result, error) {
		seen = append(seen, s.Clock().Now())
		switch {
		case rq.Name == "slow" && n <= 3:
			return reconcile.Result{RequeueAfter: 90 * time.Second}, nil
		case rq.Name == "odd" && n == 1:
			return reconcile.Result{RequeueAfter: odd}, nil
		}
		return reconcile.Result{}, nil
	})
	s.Workers = 1 // seen is not locked
	mustStart(t, s, Actor{Name: "a", Reconciler: r, Initial: []reconcile.Request{req("slow"), req("odd")}})
	mustRun(t, s, at(10*time.Minute))

	checkCalls(t, "a", r.Calls(),
		call{0, "odd"}, call{0, "slow"}, // one batch, in object order
		call{odd, "odd"},
		call{90 * time.Second, "slow"},
		call{180 * time.Second, "slow"},
		call{270 * time.Second, "slow"},
	)
	want := []time.Time{timeline.Epoch, timeline.Epoch, at(odd), at(90 * time.Second), at(180 * time.Second), at(270 * time.Second)}
	if !slices.EqualFunc(seen, want, time.Time.Equal) {
		t.Errorf("Scheduler.Clock() inside Reconcile said %v, want %v", seen, want)
	}
}

func TestPendingRequestsDedupeToEarliestTime(t *testing.T) {
	s, _, _ := newScheduler()
	r := newRecorder(s, nil)
	mustStart(t, s, Actor{Name: "a", Reconciler: r})
	s.Enqueue("a", req("x"), at(10*time.Second))
	s.Enqueue("a", req("x"), at(5*time.Second))
	s.Enqueue("a", req("x"), at(20*time.Second))
	s.Enqueue("a", req("y"), at(7*time.Second))
	s.Enqueue("a", req("y"), at(7*time.Second))
	// The same request for another actor is its own work.
	r2 := newRecorder(s, nil)
	mustStart(t, s, Actor{Name: "b", Reconciler: r2})
	s.Enqueue("b", req("x"), at(15*time.Second))
	// A time already past means now.
	s.Enqueue("b", req("past"), timeline.Epoch.Add(-time.Hour))

	mustRun(t, s, at(time.Minute))
	checkCalls(t, "a", r.Calls(), call{5 * time.Second, "x"}, call{7 * time.Second, "y"})
	checkCalls(t, "b", r2.Calls(), call{0, "past"}, call{15 * time.Second, "x"})
}

// ---- watches ----

func TestWriteWakesMatchingWatchersAtTheSameInstant(t *testing.T) {
	s, _, tl := newScheduler()
	s.Prefix = "p-"
	api := newAPI(t, clusterOperator("p-alpha"), clusterOperator("p-beta"))
	scenario := s.Client(api, timeline.RoleScenario, timeline.RoleScenario)

	watchers := map[string]*recorder{}
	for _, a := range []struct {
		name  string
		watch Watch
	}{
		{"kind-wide", Watch{GVK: coGVK}},
		{"alpha-only", Watch{GVK: coGVK, Name: "alpha"}},
		{"beta-only", Watch{GVK: coGVK, Name: "beta"}},
		{"other-kind", Watch{GVK: configv1.GroupVersion.WithKind("ClusterVersion")}},
		{"server-name", Watch{GVK: coGVK, Name: "p-alpha"}}, // watches name the scenario's objects, never the server's
	} {
		watchers[a.name] = newRecorder(s, nil)
		mustStart(t, s, Actor{Name: a.name, Role: "watcher", Reconciler: watchers[a.name], Watches: []Watch{a.watch}})
	}

	s.At(at(30*time.Second), func(ctx context.Context) error {
		return writeStatus(ctx, s, scenario, "alpha", "Available", configv1.ConditionTrue, "up")
	})
	s.At(at(time.Minute), func(ctx context.Context) error {
		return writeStatus(ctx, s, scenario, "beta", "Available", configv1.ConditionFalse, "down")
	})
	mustRun(t, s, at(2*time.Minute))

	checkCalls(t, "kind-wide", watchers["kind-wide"].Calls(), call{30 * time.Second, "alpha"}, call{time.Minute, "beta"})
	checkCalls(t, "alpha-only", watchers["alpha-only"].Calls(), call{30 * time.Second, "alpha"})
	checkCalls(t, "beta-only", watchers["beta-only"].Calls(), call{time.Minute, "beta"})
	checkCalls(t, "other-kind", watchers["other-kind"].Calls())
	checkCalls(t, "server-name", watchers["server-name"].Calls())

	evs := tl.Events()
	checkEvents(t, tl,
		"+0s kind-wide start Process/kind-wide",
		"+0s alpha-only start Process/alpha-only",
		"+0s beta-only start Process/beta-only",
		"+0s other-kind start Process/other-kind",
		"+0s server-name start Process/server-name",
		"+30s scenario update-status ClusterOperator/alpha",
		"+1m0s scenario update-status ClusterOperator/beta",
	)
	if len(evs) < 6 {
		t.Fatalf("%d events, want 7", len(evs))
	}
	if e := evs[5]; e.Role != timeline.RoleScenario || e.Seq != 6 {
		t.Errorf("write event has role %q seq %d, want %q 6", e.Role, e.Seq, timeline.RoleScenario)
	}
}

func TestWriteByAReconcilerWakesWatchersInTheSameInstant(t *testing.T) {
	s, _, _ := newScheduler()
	api := newAPI(t, clusterOperator("shared"))
	c := s.Client(api, "writer", "operator")
	writer := newRecorder(s, func(ctx context.Context, _ reconcile.Request, n int) (reconcile.Result, error) {
		return reconcile.Result{RequeueAfter: time.Minute}, writeStatus(ctx, s, c, "shared", "Progressing", configv1.ConditionTrue, fmt.Sprint("tick ", n))
	})
	watcher := newRecorder(s, nil)
	mustStart(t, s, Actor{Name: "watcher", Reconciler: watcher, Watches: []Watch{{GVK: coGVK, Name: "shared"}}})
	mustStart(t, s, Actor{Name: "writer", Reconciler: writer, Initial: []reconcile.Request{req("tick")}})
	mustRun(t, s, at(150*time.Second))

	checkCalls(t, "writer", writer.Calls(), call{0, "tick"}, call{time.Minute, "tick"}, call{2 * time.Minute, "tick"})
	checkCalls(t, "watcher", watcher.Calls(), call{0, "shared"}, call{time.Minute, "shared"}, call{2 * time.Minute, "shared"})
}

// ---- scenario steps ----

func TestAtStepRunsBeforeReconcilesQueuedLaterAtTheSameInstant(t *testing.T) {
	s, _, _ := newScheduler()
	var mu sync.Mutex
	var order []string
	log := func(what string) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, fmt.Sprintf("+%v %s", s.Now().Sub(timeline.Epoch), what))
	}
	r := newRecorder(s, func(_ context.Context, rq reconcile.Request, _ int) (reconcile.Result, error) {
		log("reconcile " + rq.Name)
		return reconcile.Result{}, nil
	})
	mustStart(t, s, Actor{Name: "a", Reconciler: r})

	t1 := at(time.Minute)
	s.Enqueue("a", req("queued-before"), t1)
	s.At(t1, func(context.Context) error {
		log("step")
		// Queued from the step itself, at the step's instant.
		s.Enqueue("a", req("queued-by-step"), s.Now())
		return nil
	})
	s.Enqueue("a", req("queued-after"), t1)
	s.At(t1, func(context.Context) error { log("second step"); return nil })
	mustRun(t, s, at(2*time.Minute))

	want := []string{
		"+1m0s reconcile queued-before",
		"+1m0s step",
		"+1m0s reconcile queued-after",
		"+1m0s second step",
		"+1m0s reconcile queued-by-step",
	}
	if !slices.Equal(order, want) {
		t.Errorf("order:\n  %s\nwant:\n  %s", strings.Join(order, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestAtStepErrorEndsTheRun(t *testing.T) {
	s, _, _ := newScheduler()
	r := newRecorder(s, nil)
	mustStart(t, s, Actor{Name: "a", Reconciler: r})
	s.At(at(time.Minute), func(context.Context) error { return errors.New("scenario step exploded") })
	s.Enqueue("a", req("after"), at(2*time.Minute))
	err := s.Run(context.Background(), at(time.Hour))
	if err == nil || err.Error() != "scenario step exploded" {
		t.Fatalf("Run returned %v, want the step's error", err)
	}
	if got := s.Now().Sub(timeline.Epoch); got != time.Minute {
		t.Errorf("clock at +%v after the failed step, want +1m", got)
	}
	checkCalls(t, "a", r.Calls())
}

func TestRunStopsWhenTheContextIsDone(t *testing.T) {
	s, _, _ := newScheduler()
	r := newRecorder(s, nil)
	mustStart(t, s, Actor{Name: "a", Reconciler: r, Initial: []reconcile.Request{req("x")}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Run(ctx, at(time.Hour)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run with a cancelled context returned %v", err)
	}
	if !s.Now().Equal(timeline.Epoch) {
		t.Errorf("clock moved to %v", s.Now())
	}
	checkCalls(t, "a", r.Calls())
}

// ---- processes ----

func TestKillDropsQueuedWorkAndRecordsKill(t *testing.T) {
	s, _, tl := newScheduler()
	r := newRecorder(s, func(context.Context, reconcile.Request, int) (reconcile.Result, error) {
		return reconcile.Result{RequeueAfter: time.Minute}, nil
	})
	ctx := context.Background()
	mustStart(t, s, Actor{Name: "op", Role: "operator", Reconciler: r, Initial: []reconcile.Request{req("w")}})
	s.Enqueue("op", req("timer"), at(5*time.Minute))
	s.At(at(150*time.Second), func(ctx context.Context) error { return s.Kill(ctx, "op") })
	s.At(at(4*time.Minute), func(context.Context) error {
		if s.Running("op") {
			return errors.New("op still running at +4m")
		}
		return nil
	})
	mustRun(t, s, at(10*time.Minute))

	checkCalls(t, "op", r.Calls(), call{0, "w"}, call{time.Minute, "w"}, call{2 * time.Minute, "w"})
	if s.Running("op") {
		t.Error("Running(op) after Kill = true")
	}
	checkEvents(t, tl,
		"+0s op start Process/op",
		"+2m30s op kill Process/op",
	)
	if k := tl.Events()[1]; k.Role != "operator" || k.Object.Kind != timeline.KindProcess || k.Failed {
		t.Errorf("kill event = %+v, want role operator on a Process", k)
	}

	// Killing again, or killing a stranger, is an error; so is starting twice.
	if err := s.Kill(ctx, "op"); err == nil || err.Error() != `actor "op" is not running` {
		t.Errorf("second Kill: %v", err)
	}
	// A restart is a fresh process: its initial requests are queued again.
	before := len(r.Calls())
	mustStart(t, s, Actor{Name: "op", Role: "operator", Reconciler: r, Initial: []reconcile.Request{req("w")}})
	if err := s.Start(ctx, Actor{Name: "op"}); err == nil || err.Error() != `actor "op" is already running` {
		t.Errorf("second Start: %v", err)
	}
	mustRun(t, s, at(12*time.Minute))
	checkCalls(t, "op", r.Calls()[before:], call{10 * time.Minute, "w"}, call{11 * time.Minute, "w"}, call{12 * time.Minute, "w"})
}

func TestKilledActorGetsNoNotifications(t *testing.T) {
	s, _, tl := newScheduler()
	api := newAPI(t, clusterOperator("x"))
	scenario := s.Client(api, timeline.RoleScenario, timeline.RoleScenario)
	victim, survivor := newRecorder(s, nil), newRecorder(s, nil)
	mustStart(t, s, Actor{Name: "victim", Reconciler: victim, Watches: []Watch{{GVK: coGVK}}})
	mustStart(t, s, Actor{Name: "survivor", Reconciler: survivor, Watches: []Watch{{GVK: coGVK, Name: "x"}}})

	write := func(ctx context.Context) error {
		return writeStatus(ctx, s, scenario, "x", "Available", configv1.ConditionTrue, s.Now().Sub(timeline.Epoch).String())
	}
	s.At(at(time.Minute), write)
	s.At(at(2*time.Minute), func(ctx context.Context) error { return s.Kill(ctx, "victim") })
	s.At(at(3*time.Minute), write)
	mustRun(t, s, at(5*time.Minute))

	checkCalls(t, "victim", victim.Calls(), call{time.Minute, "x"})
	checkCalls(t, "survivor", survivor.Calls(), call{time.Minute, "x"}, call{3 * time.Minute, "x"})
	checkEvents(t, tl,
		"+0s victim start Process/victim",
		"+0s survivor start Process/survivor",
		"+1m0s scenario update-status ClusterOperator/x",
		"+2m0s victim kill Process/victim",
		"+3m0s scenario update-status ClusterOperator/x",
	)
}

func TestPartitionCutsTheActorOffAndReconnectRelists(t *testing.T) {
	s, _, tl := newScheduler()
	api := newAPI(t, clusterOperator("x", coCondition("Available", configv1.ConditionTrue, "Init", "start", timeline.Epoch)))
	scenario := s.Client(api, timeline.RoleScenario, timeline.RoleScenario)
	opClient := s.Client(api, "op", "operator")

	type seen struct {
		at  time.Duration
		msg string // the Available message it read, or the error
	}
	var got []seen
	var writeErr error
	r := newRecorder(s, func(ctx context.Context, rq reconcile.Request, n int) (reconcile.Result, error) {
		var co configv1.ClusterOperator
		if err := opClient.Get(ctx, rq.NamespacedName, &co); err != nil {
			got = append(got, seen{s.Now().Sub(timeline.Epoch), "error: " + err.Error()})
			if !errors.Is(err, ErrCutOff) {
				t.Errorf("Get while cut off returned %v, not ErrCutOff", err)
			}
			// Writes and lists fail alike and are not recorded.
			writeErr = opClient.Status().Update(ctx, clusterOperator("x"))
			var list configv1.ClusterOperatorList
			if lerr := opClient.List(ctx, &list); !errors.Is(lerr, ErrCutOff) {
				t.Errorf("List while cut off returned %v, not ErrCutOff", lerr)
			}
			return reconcile.Result{}, nil
		}
		got = append(got, seen{s.Now().Sub(timeline.Epoch), findCondition(&co, "Available").Message})
		if n == 1 {
			return reconcile.Result{RequeueAfter: 3 * time.Minute}, nil // its timer survives the cut
		}
		return reconcile.Result{}, nil
	})
	s.Workers = 1
	mustStart(t, s, Actor{Name: "op", Role: "operator", Reconciler: r,
		Watches: []Watch{{GVK: coGVK, Name: "x"}}, Initial: []reconcile.Request{req("x")}})

	s.At(at(time.Minute), func(ctx context.Context) error { return s.Partition(ctx, "op", true) })
	s.At(at(2*time.Minute), func(ctx context.Context) error {
		return writeStatus(ctx, s, scenario, "x", "Available", configv1.ConditionFalse, "written while op was cut off")
	})
	s.At(at(4*time.Minute), func(ctx context.Context) error { return s.Partition(ctx, "op", false) })
	mustRun(t, s, at(10*time.Minute))

	want := []seen{
		{0, "start"},
		{3 * time.Minute, "error: op: connection refused: cut off from the API server"},
		{4 * time.Minute, "written while op was cut off"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("op saw %v, want %v", got, want)
	}
	if !errors.Is(writeErr, ErrCutOff) {
		t.Errorf("status update while cut off returned %v, want ErrCutOff", writeErr)
	}
	if !s.Running("op") {
		t.Error("a cut-off actor is still running")
	}
	checkEvents(t, tl,
		"+0s op start Process/op",
		"+1m0s op hang Process/op",
		"+2m0s scenario update-status ClusterOperator/x",
		"+4m0s op reconnect Process/op",
	)
	if err := s.Partition(context.Background(), "ghost", true); err == nil || err.Error() != `actor "ghost" is not running` {
		t.Errorf("Partition of an unknown actor: %v", err)
	}
}

// ---- errors ----

func TestReconcileErrorsRetryWithExponentialBackoff(t *testing.T) {
	s, _, _ := newScheduler()
	r := newRecorder(s, func(_ context.Context, rq reconcile.Request, n int) (reconcile.Result, error) {
		switch rq.Name {
		case "flaky":
			switch {
			case n <= 5:
				return reconcile.Result{}, fmt.Errorf("failure %d", n)
			case n == 6:
				return reconcile.Result{RequeueAfter: time.Second}, nil
			case n == 7:
				return reconcile.Result{}, errors.New("failure after a success")
			}
		case "terminal":
			return reconcile.Result{}, reconcile.TerminalError(errors.New("give up"))
		}
		return reconcile.Result{}, nil
	})
	s.Workers = 1 // calls in one batch in object order
	mustStart(t, s, Actor{Name: "a", Reconciler: r, Initial: []reconcile.Request{req("flaky"), req("terminal")}})
	mustRun(t, s, at(time.Hour))

	ms := time.Millisecond
	checkCalls(t, "a", r.Calls(),
		call{0, "flaky"}, call{0, "terminal"}, // a terminal error is not retried
		call{5 * ms, "flaky"},  // +5ms
		call{15 * ms, "flaky"}, // +10ms
		call{35 * ms, "flaky"}, // +20ms
		call{75 * ms, "flaky"}, // +40ms
		call{155 * ms, "flaky"},
		call{1155 * ms, "flaky"}, // RequeueAfter 1s after the success
		call{1160 * ms, "flaky"}, // the success reset the backoff to 5ms
	)
}

// controller-runtime still honours the deprecated Result.Requeue with a
// rate-limited requeue; the scheduler drops it, so such a reconciler is
// never called again.
func TestResultRequeueIsARateLimitedRequeue(t *testing.T) {
	s, _, _ := newScheduler()
	r := newRecorder(s, func(_ context.Context, _ reconcile.Request, n int) (reconcile.Result, error) {
		//lint:ignore SA1019 the deprecated field is the point: controller-runtime still honours it
		return reconcile.Result{Requeue: n <= 2}, nil
	})
	mustStart(t, s, Actor{Name: "a", Reconciler: r, Initial: []reconcile.Request{req("x")}})
	mustRun(t, s, at(time.Second))
	if got := r.Calls(); len(got) == 1 {
		t.Fatalf("regression (sim/scheduler.go runItem): Result{Requeue: true} is ignored; calls %v, want x@+0s x@+5ms x@+15ms", got)
	}
	checkCalls(t, "a", r.Calls(), call{0, "x"}, call{5 * time.Millisecond, "x"}, call{15 * time.Millisecond, "x"})
}

// controller-runtime neither requeues nor forgets a request whose
// reconcile returned a TerminalError, so the backoff keeps counting; the
// scheduler resets it.
func TestTerminalErrorKeepsTheBackoffCount(t *testing.T) {
	s, _, _ := newScheduler()
	r := newRecorder(s, func(_ context.Context, _ reconcile.Request, n int) (reconcile.Result, error) {
		switch n {
		case 1, 2, 4:
			return reconcile.Result{}, errors.New("transient")
		case 3:
			return reconcile.Result{}, reconcile.TerminalError(errors.New("give up"))
		}
		return reconcile.Result{}, nil
	})
	mustStart(t, s, Actor{Name: "a", Reconciler: r, Initial: []reconcile.Request{req("x")}})
	s.At(at(time.Second), func(context.Context) error { // a watch event after the terminal error
		s.Enqueue("a", req("x"), s.Now())
		return nil
	})
	mustRun(t, s, at(time.Minute))
	got := r.Calls()
	if len(got) == 5 && got[4].At == time.Second+5*time.Millisecond {
		t.Fatalf("regression (sim/scheduler.go runItem): a TerminalError resets the backoff; calls %v, want the 5th at +1.02s", got)
	}
	ms := time.Millisecond
	checkCalls(t, "a", got, call{0, "x"}, call{5 * ms, "x"}, call{15 * ms, "x"}, call{time.Second, "x"}, call{time.Second + 20*ms, "x"})
}

func TestBackoffDoublesFrom5msAndCapsAt1000s(t *testing.T) {
	for failures, want := range map[int]time.Duration{
		1: 5 * time.Millisecond, 2: 10 * time.Millisecond, 3: 20 * time.Millisecond,
		4: 40 * time.Millisecond, 10: 2560 * time.Millisecond,
		18: 655360 * time.Millisecond, 19: 1000 * time.Second, 100: 1000 * time.Second,
	} {
		if got := backoff(failures); got != want {
			t.Errorf("backoff(%d) = %v, want %v", failures, got, want)
		}
	}
}

// ---- livelock ----

func TestActorsWakingEachOtherForeverDoNotQuiesce(t *testing.T) {
	s, _, _ := newScheduler()
	api := newAPI(t, clusterOperator("ping"), clusterOperator("pong"))
	// Each writes the object the other watches, so they never let time pass.
	pinger := func(self, other string) *recorder {
		c := s.Client(api, self, "player")
		return newRecorder(s, func(ctx context.Context, _ reconcile.Request, n int) (reconcile.Result, error) {
			return reconcile.Result{}, writeStatus(ctx, s, c, other, "Progressing", configv1.ConditionTrue, fmt.Sprint("hit ", n))
		})
	}
	a, b := pinger("a", "pong"), pinger("b", "ping")
	mustStart(t, s, Actor{Name: "a", Reconciler: a, Watches: []Watch{{GVK: coGVK, Name: "ping"}}})
	mustStart(t, s, Actor{Name: "b", Reconciler: b, Watches: []Watch{{GVK: coGVK, Name: "pong"}}})
	s.Enqueue("a", req("ping"), at(10*time.Second))

	err := s.Run(context.Background(), at(time.Minute))
	want := "no quiescence at 2026-01-01T00:00:10Z: actors keep waking each other"
	if err == nil || err.Error() != want {
		t.Fatalf("Run returned %v, want %q", err, want)
	}
	if got := s.Now().Sub(timeline.Epoch); got != 10*time.Second {
		t.Errorf("clock at +%v after the livelock, want it left at the instant, +10s", got)
	}
	na, nb := len(a.Calls()), len(b.Calls())
	if na+nb != maxBatchesPerInstant+1 || na != nb+1 {
		t.Errorf("a ran %d times and b %d, want %d batches in all, a one ahead", na, nb, maxBatchesPerInstant+1)
	}
}

// ---- Record ----

func TestRecordStampsVirtualTime(t *testing.T) {
	s, clk, tl := newScheduler()
	ctx := context.Background()
	s.Record(ctx, timeline.Event{Time: time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC), Actor: "scenario", Role: "scenario", Verb: timeline.VerbExpect, Detail: "outside Run"})
	clk.Step(42 * time.Second)
	s.Record(ctx, timeline.Event{Actor: "scenario", Verb: timeline.VerbExpect, Detail: "after a step of the clock"})
	r := newRecorder(s, func(ctx context.Context, rq reconcile.Request, _ int) (reconcile.Result, error) {
		s.Record(ctx, timeline.Event{Actor: "checker", Role: "checker", Verb: timeline.VerbExpect,
			Object: timeline.ObjectRef{Kind: "ClusterOperator", Name: rq.Name}, Detail: "inside Reconcile"})
		return reconcile.Result{}, nil
	})
	mustStart(t, s, Actor{Name: "checker", Role: "checker", Reconciler: r})
	s.Enqueue("checker", req("x"), at(90*time.Second))
	mustRun(t, s, at(2*time.Minute))

	evs := tl.Events()
	type stamp struct {
		Seq    int
		At     time.Duration
		Verb   string
		Detail string
	}
	var got []stamp
	for _, e := range evs {
		got = append(got, stamp{e.Seq, e.Time.Sub(timeline.Epoch), e.Verb, e.Detail})
	}
	want := []stamp{
		{1, 0, "expect", "outside Run"},
		{2, 42 * time.Second, "expect", "after a step of the clock"},
		{3, 42 * time.Second, "start", ""},
		{4, 90 * time.Second, "expect", "inside Reconcile"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events %+v, want %+v", got, want)
	}
	if evs[3].Object.String() != "ClusterOperator/x" || evs[3].Actor != "checker" {
		t.Errorf("recorded event lost its actor or object: %+v", evs[3])
	}
}

// ---- determinism ----

// ticker is a simulated operator: it reports on its object which tick of
// its period the clock is in, and requeues itself for the next tick.
type ticker struct {
	s      *Scheduler
	c      *Client
	period time.Duration
}

func (o *ticker) Reconcile(ctx context.Context, rq reconcile.Request) (reconcile.Result, error) {
	var co configv1.ClusterOperator
	if err := o.c.Get(ctx, rq.NamespacedName, &co); err != nil {
		return reconcile.Result{}, err
	}
	n := int(o.s.Now().Sub(timeline.Epoch) / o.period)
	msg := fmt.Sprintf("tick %d", n)
	if c := findCondition(&co, "Progressing"); c == nil || c.Message != msg {
		status := configv1.ConditionFalse
		if n%2 == 1 {
			status = configv1.ConditionTrue
		}
		setCondition(&co, coCondition("Progressing", status, "Tick", msg, o.s.Now()))
		if err := o.c.Status().Update(ctx, &co); err != nil {
			return reconcile.Result{}, err
		}
	}
	return reconcile.Result{RequeueAfter: at(time.Duration(n+1) * o.period).Sub(o.s.Now())}, nil
}

// mirror watches every object and keeps a Degraded condition that echoes
// Progressing, writing only when it differs, so each instant quiesces.
type mirror struct {
	s *Scheduler
	c *Client
}

func (m *mirror) Reconcile(ctx context.Context, rq reconcile.Request) (reconcile.Result, error) {
	var co configv1.ClusterOperator
	if err := m.c.Get(ctx, rq.NamespacedName, &co); err != nil {
		return reconcile.Result{}, err
	}
	p := findCondition(&co, "Progressing")
	if p == nil {
		return reconcile.Result{}, nil
	}
	msg := "saw " + p.Message
	if d := findCondition(&co, "Degraded"); d != nil && d.Message == msg && d.Status == p.Status {
		return reconcile.Result{}, nil
	}
	setCondition(&co, coCondition("Degraded", p.Status, "Mirror", msg, m.s.Now()))
	m.s.Record(ctx, timeline.Event{Actor: "mirror", Role: "mirror", Verb: timeline.VerbExpect,
		Object: timeline.ObjectRef{Kind: "ClusterOperator", Name: rq.Name}, Detail: msg})
	return reconcile.Result{}, m.c.Status().Update(ctx, &co)
}

// aggregator reads every operator whenever one is written (a Map watch to
// one request) and records every message it read.
type aggregator struct {
	s *Scheduler
	c *Client
	n int
}

func (a *aggregator) Reconcile(ctx context.Context, rq reconcile.Request) (reconcile.Result, error) {
	var seen []string
	for i := range a.n {
		var co configv1.ClusterOperator
		if err := a.c.Get(ctx, types.NamespacedName{Name: fmt.Sprintf("op-%02d", i)}, &co); err != nil {
			return reconcile.Result{}, err
		}
		for _, c := range co.Status.Conditions {
			seen = append(seen, c.Message)
		}
	}
	a.s.Record(ctx, timeline.Event{Actor: "aggregator", Role: "aggregator", Verb: timeline.VerbExpect,
		Object: timeline.ObjectRef{Kind: "Fleet", Name: rq.Name}, Detail: strings.Join(seen, ",")})
	return reconcile.Result{}, nil
}

// busyScenario runs 30 operators and a mirror for a minute, with kills,
// restarts and a partition, and returns the timeline; with aggregate, an
// aggregator reads them all whenever one moves.
func busyScenario(t *testing.T, workers int, aggregate bool) []timeline.Event {
	t.Helper()
	const n = 30
	var objs []client.Object
	for i := range n {
		objs = append(objs, clusterOperator(fmt.Sprintf("run-op-%02d", i)))
	}
	api := newAPI(t, objs...)
	s, _, tl := newScheduler()
	s.Prefix = "run-"
	s.Workers = workers
	ctx := context.Background()
	startOp := func(ctx context.Context, i int) error {
		name := fmt.Sprintf("operator-%02d", i)
		obj := fmt.Sprintf("op-%02d", i)
		return s.Start(ctx, Actor{Name: name, Role: "operator",
			Reconciler: &ticker{s: s, c: s.Client(api, name, "operator"), period: time.Duration(i%5+1) * 700 * time.Millisecond},
			Watches:    []Watch{{GVK: coGVK, Name: obj}},
			Initial:    []reconcile.Request{req(obj)}})
	}
	startMirror := func(ctx context.Context) error {
		var initial []reconcile.Request
		for i := range n {
			initial = append(initial, req(fmt.Sprintf("op-%02d", i)))
		}
		return s.Start(ctx, Actor{Name: "mirror", Role: "mirror", Reconciler: &mirror{s: s, c: s.Client(api, "mirror", "mirror")},
			Watches: []Watch{{GVK: coGVK}}, Initial: initial})
	}
	for i := range n {
		if err := startOp(ctx, i); err != nil {
			t.Fatal(err)
		}
	}
	if err := startMirror(ctx); err != nil {
		t.Fatal(err)
	}
	if aggregate {
		// The summary's request sorts among the operators' own, so that in
		// parallel it would read some of them before and some after this
		// instant's writes.
		toFleet := func(context.Context, client.Object) []reconcile.Request {
			return []reconcile.Request{req("op-15-summary")}
		}
		mustStart(t, s, Actor{Name: "aggregator", Role: "aggregator", Reconciler: &aggregator{s: s, c: s.Client(api, "aggregator", "aggregator"), n: n},
			Watches: []Watch{{GVK: coGVK, Map: toFleet}}})
	}
	s.At(at(10*time.Second), func(ctx context.Context) error { return s.Partition(ctx, "operator-05", true) })
	s.At(at(20*time.Second), func(ctx context.Context) error { return s.Kill(ctx, "operator-03") })
	s.At(at(30*time.Second), func(ctx context.Context) error { return s.Partition(ctx, "operator-05", false) })
	s.At(at(40*time.Second), func(ctx context.Context) error { return startOp(ctx, 3) })
	s.At(at(50*time.Second), func(ctx context.Context) error { return s.Kill(ctx, "mirror") })
	s.At(at(55*time.Second), startMirror)
	mustRun(t, s, at(time.Minute))
	return tl.Events()
}

// comparable keeps the fields of an event that define a timeline.
type comparableEvent struct {
	Seq        int
	Time       time.Time
	Actor      string
	Role       string
	Verb       string
	Object     timeline.ObjectRef
	Target     string
	Conditions []timeline.ConditionChange
	Fields     []timeline.FieldChange
	Failed     bool
	Detail     string
}

func project(events []timeline.Event) []comparableEvent {
	out := make([]comparableEvent, len(events))
	for i, e := range events {
		out[i] = comparableEvent{e.Seq, e.Time, e.Actor, e.Role, e.Verb, e.Object, e.Target, e.Conditions, e.Fields, e.Failed, e.Detail}
	}
	return out
}

func TestSameScenarioGivesTheSameTimeline(t *testing.T) {
	first := busyScenario(t, 4, false)

	// The scenario must actually be busy for the comparison to mean much.
	counts := map[string]int{}
	instants := map[time.Time]bool{}
	for _, e := range first {
		counts[e.Verb]++
		instants[e.Time] = true
	}
	t.Logf("%d events: %v over %d instants", len(first), counts, len(instants))
	if counts[timeline.VerbUpdateStatus] < 1000 || counts[timeline.VerbExpect] < 500 || len(instants) < 50 {
		t.Fatalf("scenario too quiet: %v over %d instants", counts, len(instants))
	}
	if counts[timeline.VerbKill] != 2 || counts[timeline.VerbHang] != 1 || counts[timeline.VerbReconnect] != 1 || counts[timeline.VerbStart] != 33 {
		t.Errorf("process events %v, want 2 kills, 1 hang, 1 reconnect, 33 starts", counts)
	}

	for _, run := range []struct {
		name    string
		workers int
	}{{"again with 4 workers", 4}, {"with 1 worker", 1}, {"with 16 workers", 16}} {
		compareTimelines(t, run.name, first, busyScenario(t, run.workers, false))
	}
}

// compareTimelines reports the first event where again differs from first.
func compareTimelines(t *testing.T, name string, first, again []timeline.Event) {
	t.Helper()
	a, b := project(first), project(again)
	if len(a) != len(b) {
		t.Errorf("%s: %d events, first run had %d", name, len(b), len(a))
	}
	for i := range min(len(a), len(b)) {
		if !reflect.DeepEqual(a[i], b[i]) {
			t.Errorf("%s: event %d differs:\n  first: %s %+v %s\n  again: %s %+v %s", name, i+1,
				brief(first[i]), a[i].Conditions, a[i].Detail, brief(again[i]), b[i].Conditions, b[i].Detail)
			return
		}
	}
}
