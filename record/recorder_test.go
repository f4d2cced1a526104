package record

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

var coGVK = configv1.GroupVersion.WithKind("ClusterOperator")

// testRecording is a mechanism's Recording as the tests need one: a
// manager named "detector" plays the detector, any other an operator.
func testRecording() *Recording {
	return &Recording{Kinds: []schema.GroupVersionKind{coGVK}, Role: func(m string) string {
		if m == "detector" {
			return "detector"
		}
		return "operator"
	}}
}

// recording runs a recorder in the background; its events come on a
// channel, and stop ends it and returns every event.
type recording struct {
	r      *Recorder
	events chan timeline.Event
	stop   func() []timeline.Event
}

func startRecorder(t *testing.T, prep func(*Recorder)) *recording {
	t.Helper()
	return startRecorderWith(t, testRecording(), prep)
}

// startRecorderOf records the kinds of rec.
func startRecorderOf(t *testing.T, rec *Recording) *recording {
	t.Helper()
	return startRecorderWith(t, rec, nil)
}

func startRecorderWith(t *testing.T, kinds *Recording, prep func(*Recorder)) *recording {
	t.Helper()
	rec := &recording{events: make(chan timeline.Event, 1024)}
	var mu sync.Mutex
	var all []timeline.Event
	r, err := New(Options{Config: ReadOnly(api.Config), Recording: kinds, Sink: func(e timeline.Event, _ *unstructured.Unstructured) error {
		mu.Lock()
		all = append(all, e)
		mu.Unlock()
		rec.events <- e
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	r.opts.Ready = func() { close(ready) }
	if prep != nil {
		prep(r)
	}
	rec.r = r
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	select { // every write from here on is seen
	case <-ready:
	case err := <-done:
		t.Fatalf("the recorder stopped before it was ready: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the recorder was not ready within 10s")
	}
	rec.stop = func() []timeline.Event {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("recorder: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the recorder did not stop within 10s")
		}
		mu.Lock()
		defer mu.Unlock()
		return all
	}
	t.Cleanup(func() { cancel() })
	return rec
}

// next waits for the next event about name (or any recorder event when
// name is ""), failing after 10s.
func (rec *recording) next(t *testing.T, name string) timeline.Event {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case e := <-rec.events:
			if name == "" || e.Object.Name == name {
				return e
			}
		case <-deadline:
			t.Fatalf("no event about %q within 10s", name)
		}
	}
}

func cond(typ, status, msg string) configv1.ClusterOperatorStatusCondition {
	return configv1.ClusterOperatorStatusCondition{Type: configv1.ClusterStatusConditionType(typ), Status: configv1.ConditionStatus(status),
		Reason: "AsExpected", Message: msg, LastTransitionTime: metav1.NewTime(time.Now().Truncate(time.Second))}
}

// unique names keep the tests of this package apart on one server.
var counter int

func unique(base string) string {
	counter++
	return fmt.Sprintf("%s-%d-%d", base, time.Now().UnixNano()%100000, counter)
}

// The recorder turns each write into the simulator's event: the verb, the
// field manager as actor and its role, the condition diff against the
// version before, Written from managedFields; in the order of the writes,
// each seen within a bounded time.
func TestRecorderRecordsWrites(t *testing.T) {
	needAPI(t)
	ctx := context.Background()
	c := api.Client
	before := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: unique("listed")}}
	if err := c.Create(ctx, before, client.FieldOwner("operator-x")); err != nil {
		t.Fatal(err)
	}
	rec := startRecorder(t, nil)
	if e := rec.next(t, ""); e.Verb != timeline.VerbRecord || e.Object.Kind != timeline.KindRecording {
		t.Fatalf("first event %+v, want the recording's start", e)
	}
	if e := rec.next(t, before.Name); e.Verb != timeline.VerbCreate || e.Actor != RecorderActor || !strings.Contains(e.Detail, "listed") {
		t.Errorf("an object there before the recording: %+v, want listed by the recorder", e)
	}

	name := unique("etcd")
	co := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: name}}
	type step struct {
		do                  func() error
		verb, actor, role   string
		changed             []string // condition types in the diff
		wantMessage, ofType string
	}
	steps := []step{
		{do: func() error { return c.Create(ctx, co, client.FieldOwner("etcd-operator")) }, verb: timeline.VerbCreate, actor: "etcd-operator", role: "operator"},
		{do: func() error {
			co.Status.Conditions = []configv1.ClusterOperatorStatusCondition{cond("Available", "True", "All is well"), cond("Degraded", "False", "No problems")}
			return c.Status().Update(ctx, co, client.FieldOwner("etcd-operator"))
		}, verb: timeline.VerbUpdateStatus, actor: "etcd-operator", role: "operator", changed: []string{"Available", "Degraded"}},
		{do: func() error {
			co.Status.Conditions[0].Message = "Checking: All is well"
			return c.Status().Update(ctx, co, client.FieldOwner("detector"))
		}, verb: timeline.VerbUpdateStatus, actor: "detector", role: "detector", changed: []string{"Available"}, wantMessage: "Checking: All is well", ofType: "Available"},
		{do: func() error {
			co.Status.Conditions[0].Message = "All is well"
			return c.Status().Update(ctx, co, client.FieldOwner("etcd-operator"))
		}, verb: timeline.VerbUpdateStatus, actor: "etcd-operator", role: "operator", changed: []string{"Available"}, wantMessage: "All is well", ofType: "Available"},
		{do: func() error {
			co.Labels = map[string]string{"team": "etcd"}
			return c.Update(ctx, co, client.FieldOwner("kubectl-label"))
		}, verb: timeline.VerbUpdate, actor: "kubectl-label", role: "operator"},
		{do: func() error { return c.Delete(ctx, co) }, verb: timeline.VerbDelete, actor: UnknownActor, changed: []string{"Available", "Degraded"}},
	}
	var lastSeq int
	for i, s := range steps {
		sent := time.Now()
		if err := s.do(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		e := rec.next(t, name)
		if e.Verb != s.verb || e.Actor != s.actor || e.Role != s.role {
			t.Errorf("step %d: %s by %s (%s), want %s by %s (%s)", i, e.Verb, e.Actor, e.Role, s.verb, s.actor, s.role)
		}
		var types []string
		for _, ch := range e.Conditions {
			types = append(types, ch.Type)
		}
		sort.Strings(types)
		if !slices.Equal(types, s.changed) {
			t.Errorf("step %d: conditions changed %v, want %v", i, types, s.changed)
		}
		for _, ch := range e.Conditions {
			if ch.Type == s.ofType && (ch.After == nil || ch.After.Message != s.wantMessage) {
				t.Errorf("step %d: %s after the write %+v, want message %q", i, ch.Type, ch.After, s.wantMessage)
			}
		}
		if e.Seq <= lastSeq {
			t.Errorf("step %d: seq %d after %d", i, e.Seq, lastSeq)
		}
		lastSeq = e.Seq
		if lag := e.Time.Sub(sent); lag < -time.Millisecond || lag > 5*time.Second {
			t.Errorf("step %d: seen %s after the write was sent", i, lag)
		}
		if s.verb != timeline.VerbDelete && (e.Written.IsZero() || e.Written.After(e.Time) || e.Time.Sub(e.Written) > 5*time.Second) {
			t.Errorf("step %d: written %s, seen %s: want the managedFields time, up to a second before", i, e.Written, e.Time)
		}
		if e.Time.Sub(e.Time.Truncate(time.Millisecond)) != 0 {
			t.Errorf("step %d: time %s is not to the millisecond", i, e.Time)
		}
	}
	events := rec.stop()
	if last := events[len(events)-1]; last.Verb != timeline.VerbStop {
		t.Errorf("last event %+v, want the recording's end", last)
	}
	for i := 1; i < len(events); i++ {
		if events[i].Time.Before(events[i-1].Time) {
			t.Errorf("event %d goes back in time", i)
		}
	}
}

// The recorder writes nothing: a client built on its config is refused
// every write before it reaches the server.
func TestReadOnlyRefusesWrites(t *testing.T) {
	needAPI(t)
	ro, err := client.New(ReadOnly(api.Config), client.Options{Scheme: api.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	co := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: unique("readonly")}}
	for what, write := range map[string]func() error{
		"create": func() error { return ro.Create(ctx, co) },
		"update": func() error { return ro.Update(ctx, co) },
		"status": func() error { return ro.Status().Update(ctx, co) },
		"patch":  func() error { return ro.Patch(ctx, co, client.RawPatch("application/merge-patch+json", []byte(`{}`))) },
		"delete": func() error { return ro.Delete(ctx, co) },
	} {
		if err := write(); !errors.Is(err, ErrReadOnly) {
			t.Errorf("%s through the read-only config: %v, want %v", what, err, ErrReadOnly)
		}
	}
	if err := api.Client.Get(ctx, client.ObjectKeyFromObject(co), co); !apierrors.IsNotFound(err) {
		t.Errorf("the object after refused writes: %v, want not found", err)
	}
	var list configv1.ClusterOperatorList
	if err := ro.List(ctx, &list); err != nil {
		t.Errorf("a read through the read-only config: %v", err)
	}
}

// A watch that expires (here: started again from resourceVersion 1, long
// compacted away, so the server answers 410 Gone) is relisted, and the
// span is a gap on the timeline: lost, what changed meanwhile (attributed
// to its writer, marked as seen on the list), what was deleted, resumed.
func TestExpiredWatchIsAGap(t *testing.T) {
	needAPI(t)
	ctx := context.Background()
	c := api.Client
	changed := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: unique("gap-changed")}}
	deleted := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: unique("gap-deleted")}}
	for _, co := range []*configv1.ClusterOperator{changed, deleted} {
		if err := c.Create(ctx, co, client.FieldOwner("op")); err != nil {
			t.Fatal(err)
		}
	}
	var once sync.Once
	// The hook runs on the recorder's goroutine: it writes its own copy.
	mine := changed.DeepCopy()
	rec := startRecorder(t, func(r *Recorder) {
		r.breakWatch = make(chan struct{})
		r.rewatchRV = func(rv string) string {
			once.Do(func() {
				// Written while no watch runs: only a list can see them.
				mine.Status.Conditions = []configv1.ClusterOperatorStatusCondition{cond("Available", "False", "Down")}
				if err := c.Status().Update(ctx, mine, client.FieldOwner("detector")); err != nil {
					t.Error(err)
				}
				if err := c.Delete(ctx, deleted); err != nil {
					t.Error(err)
				}
			})
			return "1"
		}
	})
	rec.next(t, deleted.Name)
	close(rec.r.breakWatch)
	var got []timeline.Event
	for len(got) == 0 || got[len(got)-1].Verb != timeline.VerbResumed {
		e := rec.next(t, "")
		if e.Object.Kind == timeline.KindRecording || e.Object.Name == changed.Name || e.Object.Name == deleted.Name {
			got = append(got, e)
		}
	}
	var verbs []string
	for _, e := range got {
		verbs = append(verbs, e.Verb+" "+e.Object.Kind)
	}
	want := []string{"lost Recording", "update-status ClusterOperator", "delete ClusterOperator", "resumed Recording"}
	if !slices.Equal(verbs, want) {
		t.Fatalf("events around the gap %v, want %v", verbs, want)
	}
	if !strings.Contains(got[0].Detail, "410") {
		t.Errorf("lost: %q, want the expiry named", got[0].Detail)
	}
	if e := got[1]; e.Actor != "detector" || e.Role != "detector" || !e.Written.IsZero() || !strings.Contains(e.Detail, "after a recording gap") {
		t.Errorf("the change seen on the list: %+v", e)
	}
	if e := got[2]; e.Object.Name != deleted.Name || !strings.Contains(e.Detail, "after a recording gap") {
		t.Errorf("the deletion seen on the list: %+v", e)
	}
	gaps := judge.Gaps(rec.stop(), time.Now())
	if len(gaps) != 1 || !gaps[0].To.Equal(got[3].Time) || gaps[0].From.After(got[1].Time) || gaps[0].Open {
		t.Errorf("gaps %+v, want one from before the relist to the resume, closed: the recording did not end in it", gaps)
	}
}
