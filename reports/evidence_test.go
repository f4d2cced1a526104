package reports

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

func TestBriefEventFrom(t *testing.T) {
	long := strings.Repeat("component kube-apiserver is rolling out revision 7 on node master-0; ", 4)
	cond := func(status, reason, message string) *timeline.Condition {
		return &timeline.Condition{Status: status, Reason: reason, Message: message}
	}
	at := timeline.Epoch.Add(10 * time.Minute)
	for _, tc := range []struct {
		name string
		e    timeline.Event
		want string
	}{{
		name: "status and message changed",
		e: timeline.Event{Time: at, Actor: "op", Verb: timeline.VerbUpdateStatus, Object: widget,
			Conditions: []timeline.ConditionChange{{Type: "Ready", Before: cond("True", "Ok", "ok"), After: cond("False", "Ok", "stale")}}},
		want: `+10m0s op update-status Widget/default/w1 Ready: True -> False, "ok" -> "stale"`,
	}, {
		name: "only the reason changed",
		e: timeline.Event{Time: at, Actor: "op", Verb: timeline.VerbUpdateStatus, Object: widget,
			Conditions: []timeline.ConditionChange{{Type: "Ready", Before: cond("True", "", "ok"), After: cond("True", "Fine", "ok")}}},
		want: `+10m0s op update-status Widget/default/w1 Ready: reason "" -> Fine`,
	}, {
		name: "a rewrite that changed nothing",
		e: timeline.Event{Time: at, Actor: "op", Verb: timeline.VerbUpdateStatus, Object: widget,
			Conditions: []timeline.ConditionChange{{Type: "Ready", Before: cond("True", "", "ok"), After: cond("True", "", "ok")}}},
		want: `+10m0s op update-status Widget/default/w1 Ready: unchanged True`,
	}, {
		name: "appeared and went",
		e: timeline.Event{Time: at, Actor: "op", Verb: timeline.VerbUpdateStatus, Object: widget,
			Conditions: []timeline.ConditionChange{
				{Type: "Ready", After: cond("False", "", long)},
				{Type: "Degraded", Before: cond("True", "", "x")}}},
		want: `+10m0s op update-status Widget/default/w1 Ready: absent -> False "component kube-apiserver is rolling…ing out revision 7 on node master-0;"; Degraded: True -> absent`,
	}, {
		name: "a long message cut to where it differs",
		e: timeline.Event{Time: at, Actor: "op", Verb: timeline.VerbUpdateStatus, Object: widget,
			Conditions: []timeline.ConditionChange{{Type: "Progressing",
				Before: cond("True", "", long+"3 of 5 pods updated"), After: cond("True", "", long+"4 of 5 pods updated")}}},
		want: `+10m0s op update-status Widget/default/w1 Progressing: "… node master-0; 3 of 5 pods updated" -> "… node master-0; 4 of 5 pods updated"`,
	}, {
		name: "many messages at once show less of each",
		e: timeline.Event{Time: at, Actor: "detector", Verb: timeline.VerbUpdateStatus, Object: widget,
			Conditions: []timeline.ConditionChange{
				{Type: "A", Before: cond("True", "", "All is well"), After: cond("True", "", "Operator checking for stale status, the active operator will reset this message: All is well")},
				{Type: "B", Before: cond("False", "", "No problems"), After: cond("False", "", "Operator checking for stale status, the active operator will reset this message: No problems")},
				{Type: "C", Before: cond("True", "", "Fine"), After: cond("True", "", "Operator checking for stale status, the active operator will reset this message: Fine")},
				{Type: "D", Before: cond("True", "", "Same"), After: cond("True", "", "Same")}}},
		want: `+10m0s detector update-status Widget/default/w1 A: "All is well" -> "Operator checking for s…his message: All is well"; ` +
			`B: "No problems" -> "Operator checking for s…his message: No problems"; C: "Fine" -> "Operator checking for s…reset this message: Fine"; D: unchanged True`,
	}, {
		name: "fields, target, detail and a refused write",
		e: timeline.Event{Time: at, Actor: "installer", Verb: timeline.VerbRename,
			Object: timeline.ObjectRef{Kind: timeline.KindFile, Namespace: "master-0", Name: "/a.tmp"}, Target: "/a",
			Fields: []timeline.FieldChange{{Path: "spec.replicas", Before: json.RawMessage("1"), After: json.RawMessage("3")},
				{Path: "metadata.annotations", After: json.RawMessage(`{"k":"v"}`)}},
			Detail: strings.Repeat("x", 100), Failed: true},
		want: `+10m0s installer rename File/master-0//a.tmp -> /a spec.replicas: 1 -> 3; metadata.annotations: absent -> {"k":"v"} (` +
			strings.Repeat("x", 35) + "…" + strings.Repeat("x", 36) + `) [failed]`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := BriefEventFrom(tc.e, time.Time{}); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestElide(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghij", 5, "ab…ij"},
		{"ééééé-üüüüü", 5, "éé…üü"},
	} {
		if got := elide(tc.in, tc.n); got != tc.want {
			t.Errorf("elide(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// An expectation reads a condition and changes nothing: its evidence says
// what it observed, never "absent -> True" as if it had written it.
func TestExpectEvidenceSaysWhatWasObserved(t *testing.T) {
	e := timeline.Event{Time: timeline.Epoch.Add(13 * time.Minute), Actor: timeline.RoleScenario, Role: timeline.RoleScenario, Verb: timeline.VerbExpect,
		Object:     timeline.ObjectRef{Kind: "ClusterOperator", Name: "etcd"},
		Conditions: []timeline.ConditionChange{{Type: "Available", After: &timeline.Condition{Status: "True", Reason: "AsExpected", Message: "All is well"}}},
		Detail:     "etcd Available: as expected"}
	for name, got := range map[string]string{
		"brief": BriefEventFrom(e, timeline.Epoch),
		"full":  FormatEvent(e),
		"html":  diffText(e),
	} {
		if strings.Contains(got, "absent") || !strings.Contains(got, "observed") || !strings.Contains(got, "True") || !strings.Contains(got, "All is well") {
			t.Errorf("%s: %q, want what the expectation observed", name, got)
		}
	}
	if got, want := BriefEventFrom(e, timeline.Epoch), `+13m0s scenario expect ClusterOperator/etcd Available: observed True/AsExpected "All is well" (etcd Available: as expected)`; got != want {
		t.Errorf("brief:\n got %s\nwant %s", got, want)
	}
	if got, want := FormatEvent(e), `+13m0s scenario expect ClusterOperator/etcd Available: observed True/"All is well" (etcd Available: as expected)`; got != want {
		t.Errorf("full:\n got %s\nwant %s", got, want)
	}
}
