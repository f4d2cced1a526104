package sim

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/sim/timeline"
)

// apiCalls is how many calls the scheduler's clients made to the server.
func apiCalls(s *Scheduler) int {
	n, _ := s.APICalls()
	return n
}

func checkAPICalls(t *testing.T, s *Scheduler, want int, when string) {
	t.Helper()
	if got := apiCalls(s); got != want {
		t.Errorf("%s: %d API calls, want %d", when, got, want)
	}
}

// changes renders an event's condition diff as "Type: before -> after", a
// side as "Status/Reason/Message@+offset" or "-" when absent.
func changes(e timeline.Event) []string {
	side := func(c *timeline.Condition) string {
		if c == nil {
			return "-"
		}
		return fmt.Sprintf("%s/%s/%s@+%v", c.Status, c.Reason, c.Message, c.LastTransitionTime.Sub(timeline.Epoch))
	}
	var out []string
	for _, ch := range e.Conditions {
		out = append(out, fmt.Sprintf("%s: %s -> %s", ch.Type, side(ch.Before), side(ch.After)))
	}
	return out
}

func checkChanges(t *testing.T, e timeline.Event, want ...string) {
	t.Helper()
	if got := changes(e); !slices.Equal(got, want) {
		t.Errorf("%s changed conditions %q, want %q", brief(e), got, want)
	}
}

func lastEvent(t *testing.T, tl *timeline.Timeline) timeline.Event {
	t.Helper()
	evs := tl.Events()
	if len(evs) == 0 {
		t.Fatal("no events recorded")
	}
	return evs[len(evs)-1]
}

func TestClientRecordsEachWriteWithVerbActorRoleAndConditionDiff(t *testing.T) {
	s, clk, tl := newScheduler()
	s.Prefix = "run7-"
	api := newAPI(t)
	c := s.Client(api, "operator-a", "operator")
	ctx := context.Background()
	key := types.NamespacedName{Name: "run7-alpha"} // on the server; the client and the timeline say alpha

	clk.Step(time.Second)
	co := clusterOperator("alpha")
	co.Labels = map[string]string{"team": "a"}
	if err := c.Create(ctx, co); err != nil {
		t.Fatal(err)
	}
	e := lastEvent(t, tl)
	if got, want := brief(e), "+1s operator-a create ClusterOperator/alpha"; got != want {
		t.Errorf("create recorded as %q, want %q", got, want)
	}
	if e.Role != "operator" || e.Seq != 1 || e.Failed || e.Detail != "" || e.Conditions != nil {
		t.Errorf("create event %+v: want role operator, seq 1, no failure, no conditions", e)
	}

	clk.Step(time.Second)
	setCondition(co, coCondition("Available", configv1.ConditionTrue, "AsExpected", "all good", s.Now()))
	setCondition(co, coCondition("Degraded", configv1.ConditionFalse, "AsExpected", "", s.Now()))
	if err := c.Status().Update(ctx, co); err != nil {
		t.Fatal(err)
	}
	checkChanges(t, lastEvent(t, tl),
		"Available: - -> True/AsExpected/all good@+2s",
		"Degraded: - -> False/AsExpected/@+2s")

	// A main-resource update cannot change status: the recorded "after" is
	// the server's answer, so the event shows no condition change.
	clk.Step(time.Second)
	co.Labels["team"] = "b"
	setCondition(co, coCondition("Available", configv1.ConditionFalse, "Ignored", "status is a subresource", s.Now()))
	if err := c.Update(ctx, co); err != nil {
		t.Fatal(err)
	}
	checkChanges(t, lastEvent(t, tl))
	if a := findCondition(co, "Available"); a.Status != configv1.ConditionTrue || co.Labels["team"] != "b" {
		t.Errorf("after Update the object says Available=%s team=%s, want the server's True and b", a.Status, co.Labels["team"])
	}

	clk.Step(time.Second)
	base := co.DeepCopy()
	setCondition(co, coCondition("Degraded", configv1.ConditionTrue, "Broken", "disk full", s.Now()))
	if err := c.Status().Patch(ctx, co, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	checkChanges(t, lastEvent(t, tl), "Degraded: False/AsExpected/@+2s -> True/Broken/disk full@+4s")

	clk.Step(time.Second)
	base = co.DeepCopy()
	co.Annotations = map[string]string{"note": "patched"}
	if err := c.Patch(ctx, co, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	checkChanges(t, lastEvent(t, tl))

	clk.Step(time.Second)
	if err := c.Delete(ctx, &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: "alpha"}}); err != nil {
		t.Fatal(err)
	}
	checkChanges(t, lastEvent(t, tl),
		"Available: True/AsExpected/all good@+2s -> -",
		"Degraded: True/Broken/disk full@+4s -> -")

	checkEvents(t, tl,
		"+1s operator-a create ClusterOperator/alpha",
		"+2s operator-a update-status ClusterOperator/alpha",
		"+3s operator-a update ClusterOperator/alpha",
		"+4s operator-a update-status ClusterOperator/alpha",
		"+5s operator-a update ClusterOperator/alpha", // a patch is recorded as an update
		"+6s operator-a delete ClusterOperator/alpha",
	)
	for i, e := range tl.Events() {
		if e.Seq != i+1 || e.Role != "operator" || !e.IsWrite() {
			t.Errorf("event %d: seq %d role %q write %v", i+1, e.Seq, e.Role, e.IsWrite())
		}
	}

	// The server agrees that the object is gone.
	if err := api.Get(ctx, key, &configv1.ClusterOperator{}); !apierrors.IsNotFound(err) {
		t.Errorf("server Get after Delete: %v", err)
	}
}

// The harness applies the run prefix: actors and the timeline use the
// scenario's names, the server holds them prefixed, except names the seed
// fixes; objects in a namespace the run created follow its prefixed name;
// a list shows only the run's objects.
func TestClientAppliesTheRunPrefix(t *testing.T) {
	s, _, tl := newScheduler()
	s.Prefix = "run-"
	s.FixNames(schema.GroupKind{Kind: "Namespace"}, "openshift-config")
	api := newAPI(t, clusterOperator("other-run"), clusterOperator("run-seeded"))
	c := s.Client(api, "op", "operator")
	ctx := context.Background()
	for _, obj := range []client.Object{
		clusterOperator("a"), clusterOperator("run-c"),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "openshift-config"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "team"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "openshift-config"}},
	} {
		if err := c.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(obj.GetName(), "run-run") || strings.HasPrefix(obj.GetNamespace(), "run-") {
			t.Errorf("the caller's object was left with the server's name %s/%s", obj.GetNamespace(), obj.GetName())
		}
	}
	var got []string
	for _, e := range tl.Events() {
		got = append(got, e.Object.String())
	}
	want := []string{"ClusterOperator/a", "ClusterOperator/run-c", "Namespace/team", "Namespace/openshift-config",
		"ConfigMap/team/cm", "ConfigMap/openshift-config/cm"}
	if !slices.Equal(got, want) {
		t.Errorf("recorded %q, want %q", got, want)
	}
	for _, key := range []types.NamespacedName{{Name: "run-a"}, {Name: "run-run-c"}} {
		if err := api.Get(ctx, key, &configv1.ClusterOperator{}); err != nil {
			t.Errorf("server has no %s: %v", key, err)
		}
	}
	for _, key := range []types.NamespacedName{{Name: "run-cm", Namespace: "run-team"}, {Name: "run-cm", Namespace: "openshift-config"}} {
		if err := api.Get(ctx, key, &corev1.ConfigMap{}); err != nil {
			t.Errorf("server has no ConfigMap %s: %v", key, err)
		}
	}
	var seeded configv1.ClusterOperator
	if err := c.Get(ctx, types.NamespacedName{Name: "seeded"}, &seeded); err != nil || seeded.Name != "seeded" {
		t.Errorf("Get(seeded) = %q, %v; want the server's run-seeded under its scenario name", seeded.Name, err)
	}
	var list configv1.ClusterOperatorList
	if err := c.List(ctx, &list); err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, co := range list.Items {
		listed = append(listed, co.Name)
	}
	slices.Sort(listed)
	if want := []string{"a", "run-c", "seeded"}; !slices.Equal(listed, want) {
		t.Errorf("List = %q, want this run's %q (not other-run)", listed, want)
	}
}

func TestClientGetAfterWriteIsServedFromTheStore(t *testing.T) {
	s, _, _ := newScheduler()
	api := newAPI(t, clusterOperator("seeded", coCondition("Available", configv1.ConditionTrue, "Seed", "from the fixture", timeline.Epoch)))
	c := s.Client(api, "op", "operator")
	ctx := context.Background()

	var got configv1.ClusterOperator
	if err := c.Get(ctx, types.NamespacedName{Name: "seeded"}, &got); err != nil {
		t.Fatal(err)
	}
	checkAPICalls(t, s, 1, "first Get of an object the store never saw")
	got = configv1.ClusterOperator{}
	if err := c.Get(ctx, types.NamespacedName{Name: "seeded"}, &got); err != nil {
		t.Fatal(err)
	}
	checkAPICalls(t, s, 1, "second Get")
	if a := findCondition(&got, "Available"); a == nil || a.Message != "from the fixture" {
		t.Errorf("Get from the store returned conditions %+v", got.Status.Conditions)
	}

	fresh := clusterOperator("fresh")
	if err := c.Create(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	checkAPICalls(t, s, 2, "after Create")
	created := fresh.ResourceVersion
	if created == "" {
		t.Fatal("Create returned no resourceVersion")
	}
	setCondition(fresh, coCondition("Available", configv1.ConditionFalse, "Starting", "not yet", timeline.Epoch.Add(time.Minute)))
	if err := c.Status().Update(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	// The update knew the object from the store: no Get before it.
	checkAPICalls(t, s, 3, "after Status().Update")
	if fresh.ResourceVersion == created {
		t.Fatalf("status update kept resourceVersion %s", created)
	}

	// Another actor of the same run reads the same store.
	other := s.Client(api, "detector", "detector")
	var read configv1.ClusterOperator
	if err := other.Get(ctx, types.NamespacedName{Name: "fresh"}, &read); err != nil {
		t.Fatal(err)
	}
	checkAPICalls(t, s, 3, "Get after the writes")
	if read.ResourceVersion != fresh.ResourceVersion {
		t.Errorf("Get returned resourceVersion %s, the write returned %s", read.ResourceVersion, fresh.ResourceVersion)
	}
	a := findCondition(&read, "Available")
	if a == nil || a.Status != configv1.ConditionFalse || a.Reason != "Starting" || !a.LastTransitionTime.Equal(&metav1.Time{Time: timeline.Epoch.Add(time.Minute)}) {
		t.Errorf("Get returned Available %+v, want the written False/Starting at +1m", a)
	}

	// What Get returns is a copy: scribbling on it does not reach the store.
	a.Status = configv1.ConditionUnknown
	read.Labels = map[string]string{"scribbled": "yes"}
	var again configv1.ClusterOperator
	if err := c.Get(ctx, types.NamespacedName{Name: "fresh"}, &again); err != nil {
		t.Fatal(err)
	}
	if findCondition(&again, "Available").Status != configv1.ConditionFalse || again.Labels != nil {
		t.Errorf("a caller's changes leaked into the store: %+v %v", again.Status.Conditions, again.Labels)
	}
	checkAPICalls(t, s, 3, "after all the Gets")
}

func TestClientGetOfMissingObjectCachesNotFound(t *testing.T) {
	s, _, _ := newScheduler()
	c := s.Client(newAPI(t), "op", "operator")
	ctx := context.Background()
	want := `clusteroperators.config.openshift.io "ghost" not found`
	for i := range 3 {
		err := c.Get(ctx, types.NamespacedName{Name: "ghost"}, &configv1.ClusterOperator{})
		if !apierrors.IsNotFound(err) || err.Error() != want {
			t.Fatalf("Get %d of a missing object: %v, want NotFound %q", i+1, err, want)
		}
	}
	checkAPICalls(t, s, 1, "three Gets of a missing object")

	if err := c.Create(ctx, clusterOperator("ghost")); err != nil {
		t.Fatal(err)
	}
	var got configv1.ClusterOperator
	if err := c.Get(ctx, types.NamespacedName{Name: "ghost"}, &got); err != nil {
		t.Fatalf("Get after Create: %v", err)
	}
	if got.Name != "ghost" || got.ResourceVersion == "" {
		t.Errorf("Get after Create returned %s rv %q", got.Name, got.ResourceVersion)
	}
	checkAPICalls(t, s, 2, "Gets around a Create")
}

func TestClientRecordsFailedWritesAndForgetsWhatItKnew(t *testing.T) {
	s, clk, tl := newScheduler()
	api := newAPI(t)
	c := s.Client(api, "op", "operator")
	ctx := context.Background()
	watcher := newRecorder(s, nil)
	mustStart(t, s, Actor{Name: "watcher", Reconciler: watcher, Watches: []Watch{{GVK: coGVK}}})

	t.Run("update of a missing object", func(t *testing.T) {
		clk.SetTime(at(time.Second))
		before := apiCalls(s)
		err := c.Update(ctx, clusterOperator("missing"))
		if !apierrors.IsNotFound(err) {
			t.Fatalf("Update of a missing object: %v", err)
		}
		e := lastEvent(t, tl)
		if got, want := brief(e), "+1s op update ClusterOperator/missing FAILED"; got != want {
			t.Errorf("recorded %q, want %q", got, want)
		}
		if e.Detail != err.Error() || !strings.Contains(e.Detail, `"missing" not found`) || e.Conditions != nil || e.IsWrite() {
			t.Errorf("failed event detail %q conditions %v: want the error's text and no conditions", e.Detail, e.Conditions)
		}
		// A Get to learn the object's conditions, then the update.
		checkAPICalls(t, s, before+2, "failed update")
		if err := c.Get(ctx, types.NamespacedName{Name: "missing"}, &configv1.ClusterOperator{}); !apierrors.IsNotFound(err) {
			t.Fatalf("Get after the failed update: %v", err)
		}
		checkAPICalls(t, s, before+3, "Get after a failed write asks the server")
	})

	t.Run("conflict with a stale resourceVersion", func(t *testing.T) {
		clk.SetTime(at(2 * time.Second))
		if err := c.Create(ctx, clusterOperator("contested")); err != nil {
			t.Fatal(err)
		}
		// Another writer, unknown to the store, moves the object on.
		var theirs configv1.ClusterOperator
		if err := api.Get(ctx, types.NamespacedName{Name: "contested"}, &theirs); err != nil {
			t.Fatal(err)
		}
		theirs.Labels = map[string]string{"owner": "someone-else"}
		if err := api.Update(ctx, &theirs); err != nil {
			t.Fatal(err)
		}

		var stale configv1.ClusterOperator
		if err := c.Get(ctx, types.NamespacedName{Name: "contested"}, &stale); err != nil {
			t.Fatal(err)
		}
		if stale.ResourceVersion == theirs.ResourceVersion {
			t.Fatal("the store already knew the other writer's version")
		}
		clk.SetTime(at(3 * time.Second))
		setCondition(&stale, coCondition("Available", configv1.ConditionTrue, "Done", "", s.Now()))
		err := c.Status().Update(ctx, &stale)
		if !apierrors.IsConflict(err) {
			t.Fatalf("status update with a stale resourceVersion: %v", err)
		}
		e := lastEvent(t, tl)
		if got, want := brief(e), "+3s op update-status ClusterOperator/contested FAILED"; got != want {
			t.Errorf("recorded %q, want %q", got, want)
		}
		if e.Detail != err.Error() || !strings.HasPrefix(e.Detail, `Operation cannot be fulfilled on clusteroperators.config.openshift.io "contested"`) {
			t.Errorf("detail %q, want the conflict's text %q", e.Detail, err.Error())
		}

		before := apiCalls(s)
		var fresh configv1.ClusterOperator
		if err := c.Get(ctx, types.NamespacedName{Name: "contested"}, &fresh); err != nil {
			t.Fatal(err)
		}
		checkAPICalls(t, s, before+1, "Get after a conflict asks the server")
		if fresh.ResourceVersion != theirs.ResourceVersion || fresh.Labels["owner"] != "someone-else" {
			t.Errorf("Get after the conflict returned rv %s labels %v, want the other writer's rv %s",
				fresh.ResourceVersion, fresh.Labels, theirs.ResourceVersion)
		}

		// Retrying on the fresh copy works and records the change.
		setCondition(&fresh, coCondition("Available", configv1.ConditionTrue, "Done", "", s.Now()))
		if err := c.Status().Update(ctx, &fresh); err != nil {
			t.Fatal(err)
		}
		checkChanges(t, lastEvent(t, tl), "Available: - -> True/Done/@+3s")
	})

	t.Run("create of an existing object", func(t *testing.T) {
		clk.SetTime(at(4 * time.Second))
		err := c.Create(ctx, clusterOperator("contested"))
		if !apierrors.IsAlreadyExists(err) {
			t.Fatalf("second Create: %v", err)
		}
		e := lastEvent(t, tl)
		if got, want := brief(e), "+4s op create ClusterOperator/contested FAILED"; got != want || e.Detail != err.Error() {
			t.Errorf("recorded %q detail %q, want %q detail %q", got, e.Detail, want, err.Error())
		}
	})

	// Only the successful writes woke the watcher: the create of contested
	// (+2s) and the retried status update (+3s). Made outside Run, they were
	// queued at once, deduped to one request, and run when Run began at +4s.
	mustRun(t, s, at(time.Minute))
	checkCalls(t, "watcher", watcher.Calls(), call{4 * time.Second, "contested"})
	var writes, failed int
	for _, e := range tl.Events() {
		if e.IsWrite() {
			writes++
		}
		if e.Failed {
			failed++
		}
	}
	if writes != 2 || failed != 3 {
		t.Errorf("%d writes and %d failures on the timeline, want 2 and 3", writes, failed)
	}
}

func TestClientRefusesWhatItCannotRecord(t *testing.T) {
	s, _, tl := newScheduler()
	api := newAPI(t, clusterOperator("x"))
	c := s.Client(api, "op", "operator")
	ctx := context.Background()

	apply := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "config.openshift.io/v1", "kind": "ClusterOperator",
		"metadata": map[string]any{"name": "x"},
		"status":   map[string]any{"conditions": []any{map[string]any{"type": "Available", "status": "True"}}},
	}}
	err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(apply), client.FieldOwner("op"))
	if want := "opcert simulator: server-side apply is not supported; use Update or Patch"; err == nil || err.Error() != want {
		t.Errorf("Apply: %v, want %q", err, want)
	}

	err = c.DeleteAllOf(ctx, &configv1.ClusterOperator{})
	if want := "opcert simulator: DeleteAllOf is not supported; delete objects one by one"; err == nil || err.Error() != want {
		t.Errorf("DeleteAllOf: %v, want %q", err, want)
	}
	if err := api.Get(ctx, types.NamespacedName{Name: "x"}, &configv1.ClusterOperator{}); err != nil {
		t.Errorf("the object is gone after a refused DeleteAllOf: %v", err)
	}

	co := clusterOperator("x")
	scale := c.SubResource("scale")
	for op, err := range map[string]error{
		"get":    scale.Get(ctx, co, &unstructured.Unstructured{}),
		"create": scale.Create(ctx, co, &unstructured.Unstructured{}),
		"update": scale.Update(ctx, co),
		"patch":  scale.Patch(ctx, co, client.MergeFrom(co.DeepCopy())),
		"apply":  scale.Apply(ctx, client.ApplyConfigurationFromUnstructured(apply)),
	} {
		want := fmt.Sprintf("opcert simulator: %s of subresource \"scale\" is not supported", op)
		if err == nil || err.Error() != want {
			t.Errorf("scale %s: %v, want %q", op, err, want)
		}
	}
	status := c.SubResource("status")
	for op, err := range map[string]error{
		"get":    status.Get(ctx, co, &unstructured.Unstructured{}),
		"create": c.Status().Create(ctx, co, &unstructured.Unstructured{}),
		"apply":  c.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(apply)),
	} {
		want := fmt.Sprintf("opcert simulator: %s of subresource \"status\" is not supported", op)
		if err == nil || err.Error() != want {
			t.Errorf("status %s: %v, want %q", op, err, want)
		}
	}
	checkAPICalls(t, s, 0, "refused calls")
	if n := len(tl.Events()); n != 0 {
		t.Errorf("refused calls recorded %d events", n)
	}

	// SubResource("status") is the recorded status writer.
	if err := c.Get(ctx, types.NamespacedName{Name: "x"}, co); err != nil {
		t.Fatal(err)
	}
	setCondition(co, coCondition("Upgradeable", configv1.ConditionFalse, "Pinned", "", timeline.Epoch))
	if err := status.Update(ctx, co); err != nil {
		t.Fatal(err)
	}
	e := lastEvent(t, tl)
	if brief(e) != "+0s op update-status ClusterOperator/x" {
		t.Errorf("SubResource(status).Update recorded %q", brief(e))
	}
	checkChanges(t, e, "Upgradeable: - -> False/Pinned/@+0s")
}

func TestConditionsReadsStatusConditions(t *testing.T) {
	zone := time.FixedZone("UTC+2", 2*60*60)
	typed := clusterOperator("x",
		coCondition("Available", configv1.ConditionTrue, "AsExpected", "fine", time.Date(2026, 3, 4, 7, 6, 7, 0, zone)),
		coCondition("Degraded", configv1.ConditionFalse, "", "", time.Date(2026, 3, 4, 5, 0, 0, 0, time.UTC)),
	)
	got := Conditions(typed)
	want := []timeline.Condition{
		{Type: "Available", Status: "True", Reason: "AsExpected", Message: "fine", LastTransitionTime: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)},
		{Type: "Degraded", Status: "False", LastTransitionTime: time.Date(2026, 3, 4, 5, 0, 0, 0, time.UTC)},
	}
	checkConditions(t, "typed ClusterOperator", got, want)
	if got[0].LastTransitionTime.Location() != time.UTC {
		t.Errorf("transition time in %v, want UTC", got[0].LastTransitionTime.Location())
	}

	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w"},
		"status": map[string]any{"conditions": []any{
			map[string]any{"type": "Ready", "status": "False", "reason": "Waiting", "message": "for the disk",
				"lastTransitionTime": "2026-01-01T00:01:30+01:00", "observedGeneration": int64(3)},
			"not a condition",
			map[string]any{"type": "Synced", "status": "Unknown"}, // no time: zero
		}},
	}}
	checkConditions(t, "unstructured Widget", Conditions(u), []timeline.Condition{
		{Type: "Ready", Status: "False", Reason: "Waiting", Message: "for the disk", LastTransitionTime: time.Date(2025, 12, 31, 23, 1, 30, 0, time.UTC)},
		{Type: "Synced", Status: "Unknown"},
	})

	if got := Conditions(nil); got != nil {
		t.Errorf("Conditions(nil) = %v, want nil", got)
	}
	if got := Conditions(clusterOperator("bare")); len(got) != 0 {
		t.Errorf("Conditions of an object without conditions = %v", got)
	}
	if got := Conditions(&unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"conditions": "oops"}}}); len(got) != 0 {
		t.Errorf("Conditions of malformed conditions = %v", got)
	}
}

func checkConditions(t *testing.T, what string, got, want []timeline.Condition) {
	t.Helper()
	if !slices.EqualFunc(got, want, timeline.Condition.Same) {
		t.Errorf("%s: Conditions = %+v, want %+v", what, got, want)
	}
}

// ---- regression tests for bugs found while these tests were written ----

// The recording client computes the store key and the recorded name before
// the create, so a Create with GenerateName records an empty name, stores
// the object under "" and wakes name watchers of nothing.
func TestClientCreateWithGenerateNameRecordsTheGeneratedName(t *testing.T) {
	s, _, tl := newScheduler()
	c := s.Client(newAPI(t), "op", "operator")
	ctx := context.Background()
	co := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{GenerateName: "gen-"}}
	if err := c.Create(ctx, co); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(co.Name, "gen-") {
		t.Fatalf("the server named the object %q", co.Name)
	}
	e := lastEvent(t, tl)
	if e.Object.Name != co.Name {
		t.Fatalf("regression (sim/client.go Client.write): Create with GenerateName recorded object name %q, the server named it %q", e.Object.Name, co.Name)
	}
	before := apiCalls(s)
	if err := c.Get(ctx, types.NamespacedName{Name: co.Name}, &configv1.ClusterOperator{}); err != nil {
		t.Fatal(err)
	}
	checkAPICalls(t, s, before, "Get of the created object")
}

// A failed Create that says the object already exists leaves a cached
// NotFound in place, so reads keep denying an object the server has.
func TestClientForgetsACachedNotFoundWhenCreateFindsTheObject(t *testing.T) {
	s, _, _ := newScheduler()
	api := newAPI(t)
	c := s.Client(api, "op", "operator")
	ctx := context.Background()
	key := types.NamespacedName{Name: "late"}
	if err := c.Get(ctx, key, &configv1.ClusterOperator{}); !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	if err := api.Create(ctx, clusterOperator("late")); err != nil { // behind the store's back
		t.Fatal(err)
	}
	if err := c.Create(ctx, clusterOperator("late")); !apierrors.IsAlreadyExists(err) {
		t.Fatalf("Create: %v", err)
	}
	if err := c.Get(ctx, key, &configv1.ClusterOperator{}); err != nil {
		t.Fatalf("regression (sim/client.go Client.write): after Create failed with AlreadyExists the store still answers %v", err)
	}
}

// Delete of an object with a finalizer only marks it for deletion, yet the
// store records it as gone.
func TestClientGetAfterDeleteOfAFinalizedObjectSeesIt(t *testing.T) {
	s, _, _ := newScheduler()
	held := clusterOperator("held")
	held.Finalizers = []string{"example.com/hold"}
	api := newAPI(t, held)
	c := s.Client(api, "op", "operator")
	ctx := context.Background()
	if err := c.Delete(ctx, clusterOperator("held")); err != nil {
		t.Fatal(err)
	}
	var onServer configv1.ClusterOperator
	if err := api.Get(ctx, types.NamespacedName{Name: "held"}, &onServer); err != nil || onServer.DeletionTimestamp == nil {
		t.Fatalf("server: %v, deletionTimestamp %v: the fake client no longer keeps finalized objects", err, onServer.DeletionTimestamp)
	}
	var got configv1.ClusterOperator
	if err := c.Get(ctx, types.NamespacedName{Name: "held"}, &got); err != nil {
		t.Fatalf("regression (sim/client.go Client.write): the server still has the object (deletionTimestamp %v) but the store answers %v",
			onServer.DeletionTimestamp, err)
	}
}
