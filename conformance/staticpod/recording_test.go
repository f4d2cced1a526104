package staticpod_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/staticpod"
	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/record"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// judgedOnRecordings are the rules that read only what a recording of the
// API server holds: the operator's condition and the mirror pods.
var judgedOnRecordings = map[string]bool{"STATICPOD-008": true, "STATICPOD-015": true}

// recorded is what a recording of the API server would hold of a run's
// timeline: the writes of the kinds the mechanism records, each put down
// to the role its writer's field manager takes (opcert's actors write
// under their own names).
func recorded(m conformance.Mechanism, events []timeline.Event) []timeline.Event {
	var out []timeline.Event
	for _, e := range events {
		if e.IsWrite() && conformance.RecordingOf(m).Records(schema.GroupKind{Group: e.Object.Group, Kind: e.Object.Kind}) {
			e.Role = conformance.RecordingOf(m).Role(e.Actor)
			out = append(out, e)
		}
	}
	return out
}

// analyze judges events as opcert analyze judges a timeline file.
func analyze(t *testing.T, m conformance.Mechanism, events []timeline.Event, g conformancetest.GoldenTimeline) reports.Run {
	t.Helper()
	var tl timeline.Timeline
	tl.Append(events...)
	var buf bytes.Buffer
	if err := tl.WriteJSONL(&buf); err != nil {
		t.Fatal(err)
	}
	src, err := record.Open(&buf, conformance.RecordingOf(m))
	if err != nil {
		t.Fatal(err)
	}
	run, err := record.Judge(context.Background(), src, conformance.Judged(m), record.Judgement{Name: g.Name, Source: "test", Start: timeline.Epoch, Until: g.End.Sub(timeline.Epoch)})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// Analyzed as a recording of the API server (the mirror pods and the
// operator's ClusterOperator of a run, nothing of its nodes), a run's
// timeline gets the run's verdicts on the operator's condition, on every
// built-in's golden timeline and on the same without the operator's
// ClusterOperator writes (which fails STATICPOD-008 wherever a fallback
// reached the mirror pod); every other rule is not judged, saying that a
// recording does not hold what it reads.
func TestAnalyzeJudgesWhatTheAPIShows(t *testing.T) {
	m := staticpod.Mechanism(staticpod.DefaultConfig())
	judged := map[reports.Status]int{}
	for _, g := range conformancetest.GoldenTimelines(t) {
		var silent []timeline.Event
		for _, e := range g.Events {
			if !(e.Role == staticpod.RoleOperator && e.Object.Kind == "ClusterOperator") {
				silent = append(silent, e)
			}
		}
		for what, events := range map[string][]timeline.Event{g.Name: g.Events, g.Name + " (operator silent)": silent} {
			want := judge.Judge(m.Rules(), events, g.End)
			got := analyze(t, m, recorded(m, events), g)
			if len(got.Cases) < len(want) {
				t.Fatalf("%s: %d cases analyzed, %d played", what, len(got.Cases), len(want))
			}
			for i, w := range want {
				c := got.Cases[i]
				switch {
				case judgedOnRecordings[w.Rule]:
					if c.Status != w.Status {
						t.Errorf("%s %s: analyzed %s %q, played %s %q", what, w.Rule, c.Status, c.Message, w.Status, w.Message)
					}
					judged[c.Status]++
				case c.Status != reports.Skip || !strings.Contains(c.Message, "recording"):
					t.Errorf("%s %s: analyzed %s %q, want not judged on a recording", what, w.Rule, c.Status, c.Message)
				}
			}
		}
	}
	if judged[reports.Pass] == 0 || judged[reports.Fail] == 0 {
		t.Errorf("the rules judged on recordings passed %d and failed %d times: want both", judged[reports.Pass], judged[reports.Fail])
	}
}

// A recording of seed 003 watches the mirror pods and the operator's
// ClusterOperator with the fields the rules read, and files the kubelet's
// writes (its own manager, or opcert's kubelet actors) under the kubelet
// and everyone else's under the operator.
func TestRecording(t *testing.T) {
	rec := conformance.RecordingOf(staticpod.Mechanism(staticpod.DefaultConfig()))
	if rec == nil {
		t.Fatal("no recording")
	}
	for _, gvk := range []schema.GroupVersionKind{staticpod.PodGVK, staticpod.ClusterOperatorGVK} {
		if !rec.Records(gvk.GroupKind()) || len(rec.Fields[gvk]) == 0 {
			t.Errorf("%s: recorded %t, fields %v", gvk.Kind, rec.Records(gvk.GroupKind()), rec.Fields[gvk])
		}
	}
	for _, tc := range []struct{ manager, role string }{
		{"kubelet", staticpod.RoleKubelet},
		{"kubelet/master-0", staticpod.RoleKubelet},
		{"cluster-kube-apiserver-operator", staticpod.RoleOperator},
		{"kubelet-impostor", staticpod.RoleOperator},
	} {
		if got := rec.Role(tc.manager); got != tc.role {
			t.Errorf("manager %s has role %q, want %q", tc.manager, got, tc.role)
		}
	}
}
