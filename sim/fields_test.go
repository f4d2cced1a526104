package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/sim/timeline"
)

const fallbackReason = "startup-monitor.static-pods.openshift.io/fallback-reason"

// fields renders an event's field changes as "path: before -> after", "-"
// for an absent side.
func fields(e timeline.Event) []string {
	side := func(v json.RawMessage) string {
		if v == nil {
			return "-"
		}
		return string(v)
	}
	out := []string{}
	for _, f := range e.Fields {
		out = append(out, fmt.Sprintf("%s: %s -> %s", f.Path, side(f.Before), side(f.After)))
	}
	return out
}

func checkFields(t *testing.T, e timeline.Event, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if got := fields(e); !slices.Equal(got, want) {
		t.Errorf("%s changed fields\n  %s\nwant\n  %s", brief(e), strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestParsePath(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want "error: ..." is the start of the error
	}{
		{"spec.replicas", "spec.replicas"},
		{"status", "status"},
		{"metadata.annotations", "metadata.annotations"},
		{"metadata.annotations[" + fallbackReason + "]", "metadata.annotations[" + fallbackReason + "]"},
		{"metadata.labels[team]", "metadata.labels.team"}, // brackets only where a dot needs them
		{"[spec].replicas", "spec.replicas"},
		{"status.a[b.c][d.e].f", "status.a[b.c][d.e].f"},
		{"metadata.generation", "metadata.generation"}, // counts spec changes: the same in every run
		{"", "error: path \"\": empty key"},
		{"spec..replicas", "error: path \"spec..replicas\": empty key"},
		{"spec.", "error: path \"spec.\": empty key"},
		{"spec[]", "error: path \"spec[]\": empty key"},
		{"metadata.annotations[a.b", "error: path \"metadata.annotations[a.b\": \"[a.b\" has no closing bracket"},
		{"metadata.annotations[a.b]x", "error: path \"metadata.annotations[a.b]x\": a dot or a bracket must follow a bracketed key"},
		{"spec]x", "error: path \"spec]x\": empty key or bracket inside a key"},
		{"metadata", "error: path \"metadata\": metadata.creationTimestamp is set by the API server and differs from run to run"},
		{"metadata.resourceVersion", "error: path \"metadata.resourceVersion\": metadata.resourceVersion is set by"},
		{"metadata.managedFields", "error: path \"metadata.managedFields\": metadata.managedFields is set by"},
		{"metadata.ownerReferences", "error: path \"metadata.ownerReferences\": metadata.ownerReferences is set by"},
		{"metadata[uid]", "error: path \"metadata[uid]\": metadata.uid is set by"},
		{"metadata.creationTimestamp.x", "error: path \"metadata.creationTimestamp.x\": metadata.creationTimestamp is set by"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			fp, err := parsePath(tc.in)
			wantErr, isErr := strings.CutPrefix(tc.want, "error: ")
			switch {
			case isErr && (err == nil || !strings.HasPrefix(err.Error(), wantErr)):
				t.Errorf("parsePath(%q) = %q, %v; want error %q", tc.in, fp.text, err, wantErr)
			case !isErr && (err != nil || fp.text != tc.want):
				t.Errorf("parsePath(%q) = %q, %v; want %q", tc.in, fp.text, err, tc.want)
			case !isErr:
				again, err := parsePath(fp.text)
				if err != nil || !slices.Equal(again.keys, fp.keys) {
					t.Errorf("the canonical %q reads as %q, %v; want %q", fp.text, again.keys, err, fp.keys)
				}
			}
		})
	}
}

func TestRecordFieldsSortsAndDedupesAndRefusesBadPathsWhole(t *testing.T) {
	s, _, _ := newScheduler()
	if err := s.RecordFields(coGVK, "status.versions", "metadata.labels[team]", "metadata.annotations"); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordFields(coGVK, "metadata.labels.team", "status.relatedObjects"); err != nil {
		t.Fatal(err)
	}
	err := s.RecordFields(coGVK, "spec.x", "metadata")
	if err == nil || !strings.HasPrefix(err.Error(), "record fields of ClusterOperator: path \"metadata\"") {
		t.Errorf("bad path: %v", err)
	}
	var got []string
	for _, p := range s.fieldPaths(coGVK) {
		got = append(got, p.text)
	}
	if want := []string{"metadata.annotations", "metadata.labels.team", "status.relatedObjects", "status.versions"}; !slices.Equal(got, want) {
		t.Errorf("registered %q, want %q (spec.x left out with the bad path)", got, want)
	}
	if p := s.fieldPaths(configv1.GroupVersion.WithKind("ClusterVersion")); p != nil {
		t.Errorf("another kind has paths %v", p)
	}
}

func TestClientRecordsRegisteredFieldsOfEachWrite(t *testing.T) {
	s, clk, tl := newScheduler()
	s.Prefix = "p-"
	if err := s.RecordFields(coGVK, "status.versions", "metadata.annotations["+fallbackReason+"]", "metadata.labels",
		"metadata.annotations", "status.versions", "spec.absent"); err != nil {
		t.Fatal(err)
	}
	c := s.Client(newAPI(t), "op", "operator")
	ctx := context.Background()

	co := clusterOperator("p-kas")
	co.Labels = map[string]string{"team": "a", "app": "kas"}
	co.Annotations = map[string]string{fallbackReason: "CrashLooping"}
	clk.Step(time.Second)
	if err := c.Create(ctx, co); err != nil {
		t.Fatal(err)
	}
	checkFields(t, lastEvent(t, tl),
		`metadata.annotations: - -> {"`+fallbackReason+`":"CrashLooping"}`,
		`metadata.annotations[`+fallbackReason+`]: - -> "CrashLooping"`,
		`metadata.labels: - -> {"app":"kas","team":"a"}`) // keys sorted

	co.Status.Versions = []configv1.OperandVersion{{Name: "operator", Version: "4.18.0"}, {Name: "kube-apiserver", Version: "1.31.0"}}
	if err := c.Status().Update(ctx, co); err != nil {
		t.Fatal(err)
	}
	checkFields(t, lastEvent(t, tl),
		`status.versions: - -> [{"name":"operator","version":"4.18.0"},{"name":"kube-apiserver","version":"1.31.0"}]`)

	// A list is compared whole: the same versions in another order changed.
	slices.Reverse(co.Status.Versions)
	if err := c.Status().Update(ctx, co); err != nil {
		t.Fatal(err)
	}
	checkFields(t, lastEvent(t, tl),
		`status.versions: [{"name":"operator","version":"4.18.0"},{"name":"kube-apiserver","version":"1.31.0"}] -> `+
			`[{"name":"kube-apiserver","version":"1.31.0"},{"name":"operator","version":"4.18.0"}]`)

	// A write that moves no registered field records none, and its line is
	// what it would be without registrations.
	setCondition(co, coCondition("Available", configv1.ConditionTrue, "AsExpected", "", s.Now()))
	if err := c.Status().Update(ctx, co); err != nil {
		t.Fatal(err)
	}
	e := lastEvent(t, tl)
	checkFields(t, e)
	if line, _ := json.Marshal(e); strings.Contains(string(line), `"fields"`) {
		t.Errorf("an event without field changes serializes them: %s", line)
	}

	// Another annotation moves the whole map but not the one key.
	co.Annotations["note"] = "hello"
	if err := c.Update(ctx, co); err != nil {
		t.Fatal(err)
	}
	checkFields(t, lastEvent(t, tl),
		`metadata.annotations: {"`+fallbackReason+`":"CrashLooping"} -> {"note":"hello","`+fallbackReason+`":"CrashLooping"}`)

	if err := c.Delete(ctx, co); err != nil {
		t.Fatal(err)
	}
	checkFields(t, lastEvent(t, tl),
		`metadata.annotations: {"note":"hello","`+fallbackReason+`":"CrashLooping"} -> -`,
		`metadata.annotations[`+fallbackReason+`]: "CrashLooping" -> -`,
		`metadata.labels: {"app":"kas","team":"a"} -> -`,
		`status.versions: [{"name":"kube-apiserver","version":"1.31.0"},{"name":"operator","version":"4.18.0"}] -> -`)

	// A failed write and a kind with no registrations record no fields.
	if err := c.Update(ctx, co); err == nil {
		t.Fatal("update of a deleted object succeeded")
	}
	checkFields(t, lastEvent(t, tl))
	cv := &configv1.ClusterVersion{ObjectMeta: metav1.ObjectMeta{Name: "p-version", Labels: map[string]string{"team": "a"}}}
	if err := c.Create(ctx, cv); err != nil {
		t.Fatal(err)
	}
	checkFields(t, lastEvent(t, tl))
}

// Typed and unstructured objects are the same JSON: a mechanism's rules see
// the same bytes whichever its subjects use.
func TestFieldsAreTheSameForTypedAndUnstructuredWrites(t *testing.T) {
	record := func(obj client.Object) []string {
		s, _, tl := newScheduler()
		if err := s.RecordFields(coGVK, "metadata.labels", "status.versions"); err != nil {
			t.Fatal(err)
		}
		c := s.Client(newAPI(t), "op", "operator")
		if err := c.Create(context.Background(), obj); err != nil {
			t.Fatal(err)
		}
		if err := c.Status().Update(context.Background(), obj); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range tl.Events() {
			out = append(out, fields(e)...)
		}
		return out
	}
	typed := clusterOperator("x")
	typed.Labels = map[string]string{"b": "2", "a": "1"}
	typed.Status.Versions = []configv1.OperandVersion{{Version: "1", Name: "operator"}}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "config.openshift.io/v1", "kind": "ClusterOperator",
		"metadata": map[string]any{"name": "x", "labels": map[string]any{"b": "2", "a": "1"}},
		"status":   map[string]any{"versions": []any{map[string]any{"version": "1", "name": "operator"}}},
	}}
	want := []string{`metadata.labels: - -> {"a":"1","b":"2"}`, `status.versions: - -> [{"name":"operator","version":"1"}]`}
	if got := record(typed); !slices.Equal(got, want) {
		t.Errorf("typed: %q, want %q", got, want)
	}
	if got := record(u); !slices.Equal(got, want) {
		t.Errorf("unstructured: %q, want %q", got, want)
	}
}

// The reference names the API group, empty for the core group.
func TestClientRecordsTheGroupOfEachObject(t *testing.T) {
	s, _, tl := newScheduler()
	c := s.Client(newAPI(t), "op", "operator")
	ctx := context.Background()
	if err := c.Create(ctx, clusterOperator("co")); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm"}}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range tl.Events() {
		line, _ := json.Marshal(e.Object)
		got = append(got, e.Object.String()+" "+string(line))
	}
	want := []string{
		`ClusterOperator/co {"kind":"ClusterOperator","group":"config.openshift.io","name":"co"}`,
		`ConfigMap/ns/cm {"kind":"ConfigMap","namespace":"ns","name":"cm"}`,
		`ConfigMap/ns/cm {"kind":"ConfigMap","namespace":"ns","name":"cm"}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("recorded\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// Conditions are compared by type, not by position: a write that only
// reorders them changes no condition, and its line carries none.
func TestReorderingConditionsIsNoConditionChange(t *testing.T) {
	s, clk, tl := newScheduler()
	c := s.Client(newAPI(t), "op", "operator")
	ctx := context.Background()
	co := clusterOperator("x",
		coCondition("Available", configv1.ConditionTrue, "AsExpected", "up", s.Now()),
		coCondition("Degraded", configv1.ConditionFalse, "AsExpected", "", s.Now()),
		coCondition("Progressing", configv1.ConditionFalse, "AsExpected", "done", s.Now()),
	)
	if err := c.Create(ctx, co); err != nil {
		t.Fatal(err)
	}
	if err := c.Status().Update(ctx, co); err != nil {
		t.Fatal(err)
	}
	clk.Step(time.Minute)
	for _, order := range [][]int{{2, 1, 0}, {1, 2, 0}, {0, 2, 1}} {
		was := slices.Clone(co.Status.Conditions)
		for i, j := range order {
			co.Status.Conditions[i] = was[j]
		}
		if err := c.Status().Update(ctx, co); err != nil {
			t.Fatal(err)
		}
		e := lastEvent(t, tl)
		checkChanges(t, e)
		if line, _ := json.Marshal(e); strings.Contains(string(line), `"conditions"`) {
			t.Errorf("order %v: the line carries conditions: %s", order, line)
		}
	}
	if n := len(tl.Events()); n != 5 {
		t.Errorf("%d events, want 5 (create, status, three reorders)", n)
	}
}
