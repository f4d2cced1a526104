package timeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

func cond(typ, status, reason, msg string, ltt time.Time) Condition {
	return Condition{Type: typ, Status: status, Reason: reason, Message: msg, LastTransitionTime: ltt}
}

// render shows a change as "Type: before -> after", "-" for an absent side.
func render(changes []ConditionChange) []string {
	side := func(c *Condition) string {
		if c == nil {
			return "-"
		}
		return fmt.Sprintf("%s/%s/%s@%s", c.Status, c.Reason, c.Message, c.LastTransitionTime.UTC().Format(time.RFC3339Nano))
	}
	var out []string
	for _, ch := range changes {
		out = append(out, fmt.Sprintf("%s: %s -> %s", ch.Type, side(ch.Before), side(ch.After)))
	}
	return out
}

func TestDiffListsAddedChangedThenRemovedConditions(t *testing.T) {
	plus2 := time.FixedZone("UTC+2", 2*60*60)
	before := []Condition{
		cond("Available", "True", "AsExpected", "", t0),
		cond("Degraded", "False", "AsExpected", "", t0),
		cond("Progressing", "False", "Done", "3 of 3", t0.Add(time.Minute)),
		cond("Upgradeable", "True", "", "", t0),
	}
	after := []Condition{
		cond("Stale", "True", "NoAnswer", "operator silent", t0.Add(time.Hour)), // added
		cond("Available", "False", "Broken", "", t0.Add(time.Hour)),             // changed
		// Unchanged: the same instant, written in another zone.
		cond("Progressing", "False", "Done", "3 of 3", t0.Add(time.Minute).In(plus2)),
		cond("Upgradeable", "True", "", "", t0),
	}
	got := Diff(before, after)
	want := []string{
		"Stale: - -> True/NoAnswer/operator silent@2026-01-01T01:00:00Z",
		"Available: True/AsExpected/@2026-01-01T00:00:00Z -> False/Broken/@2026-01-01T01:00:00Z",
		"Degraded: False/AsExpected/@2026-01-01T00:00:00Z -> -",
	}
	if r := render(got); !slices.Equal(r, want) {
		t.Errorf("Diff =\n  %s\nwant\n  %s", strings.Join(r, "\n  "), strings.Join(want, "\n  "))
	}
	for _, ch := range got {
		if (ch.Before != nil && ch.Before.Type != ch.Type) || (ch.After != nil && ch.After.Type != ch.Type) {
			t.Errorf("change %s holds a condition of another type: %+v %+v", ch.Type, ch.Before, ch.After)
		}
	}

	// The changes hold copies: the caller's slices can be reused.
	after[1].Status, before[0].Status = "Unknown", "Unknown"
	if got[1].After.Status != "False" || got[1].Before.Status != "True" {
		t.Errorf("Diff aliases its inputs: %+v -> %+v", got[1].Before, got[1].After)
	}
}

func TestDiffCountsEveryFieldButTheZone(t *testing.T) {
	base := cond("Available", "True", "AsExpected", "fine", t0)
	tokyo := time.FixedZone("JST", 9*60*60)
	for _, tc := range []struct {
		name    string
		edit    func(*Condition)
		changed bool
	}{
		{"identical", func(*Condition) {}, false},
		{"same instant in Tokyo", func(c *Condition) { c.LastTransitionTime = t0.In(tokyo) }, false},
		{"status", func(c *Condition) { c.Status = "False" }, true},
		{"reason", func(c *Condition) { c.Reason = "Other" }, true},
		{"message", func(c *Condition) { c.Message = "fine!" }, true},
		{"time, by a nanosecond", func(c *Condition) { c.LastTransitionTime = t0.Add(time.Nanosecond) }, true},
		{"time, same clock reading in Tokyo", func(c *Condition) {
			c.LastTransitionTime = time.Date(2026, time.January, 1, 0, 0, 0, 0, tokyo)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			tc.edit(&c)
			got := Diff([]Condition{base}, []Condition{c})
			if tc.changed != (len(got) == 1) || len(got) > 1 {
				t.Errorf("Diff = %q, want changed=%v", render(got), tc.changed)
			}
			if base.Same(c) == tc.changed {
				t.Errorf("Same = %v, want %v", base.Same(c), !tc.changed)
			}
		})
	}
}

func TestDiffEdgeCases(t *testing.T) {
	a := cond("A", "True", "", "", t0)
	b := cond("B", "False", "", "", t0)
	if got := Diff(nil, nil); got != nil {
		t.Errorf("Diff(nil, nil) = %v", got)
	}
	if got := Diff([]Condition{a, b}, []Condition{b, a}); got != nil {
		t.Errorf("reordering alone is a change: %q", render(got))
	}
	if got, want := render(Diff(nil, []Condition{b, a})), []string{
		"B: - -> False//@2026-01-01T00:00:00Z", "A: - -> True//@2026-01-01T00:00:00Z",
	}; !slices.Equal(got, want) {
		t.Errorf("all added: %q, want %q", got, want)
	}
	if got, want := render(Diff([]Condition{b, a}, nil)), []string{
		"B: False//@2026-01-01T00:00:00Z -> -", "A: True//@2026-01-01T00:00:00Z -> -",
	}; !slices.Equal(got, want) {
		t.Errorf("all removed: %q, want %q", got, want)
	}
}

func TestStateApplyReplaysWrites(t *testing.T) {
	op := ObjectRef{Kind: "ClusterOperator", Name: "etcd"}
	nsObj := ObjectRef{Kind: "Widget", Namespace: "team-a", Name: "etcd"}
	avail := cond("Available", "True", "AsExpected", "", t0)
	degraded := cond("Degraded", "True", "Broken", "disk", t0.Add(time.Minute))
	availFalse := cond("Available", "False", "Broken", "", t0.Add(time.Minute))

	st := State{}
	st.Apply(Event{Actor: "op", Verb: VerbCreate, Object: op,
		Conditions: []ConditionChange{{Type: "Available", After: &avail}}})
	st.Apply(Event{Actor: "op", Verb: VerbCreate, Object: nsObj})
	check := func(when string, ref ObjectRef, want ...Condition) {
		t.Helper()
		got, ok := st[ref]
		if !ok {
			t.Fatalf("%s: %s missing from the state", when, ref)
		}
		wantMap := map[string]Condition{}
		for _, c := range want {
			wantMap[c.Type] = c
		}
		if !reflect.DeepEqual(got, wantMap) {
			t.Errorf("%s: %s = %+v, want %+v", when, ref, got, wantMap)
		}
	}
	check("after create", op, avail)
	check("after create", nsObj)

	st.Apply(Event{Actor: "op", Verb: VerbUpdateStatus, Object: op, Conditions: []ConditionChange{
		{Type: "Available", Before: &avail, After: &availFalse},
		{Type: "Degraded", After: &degraded},
	}})
	check("after update-status", op, availFalse, degraded)

	// Failed writes and non-writes change nothing.
	gone := cond("Degraded", "False", "", "", t0)
	for _, e := range []Event{
		{Actor: "op", Verb: VerbUpdateStatus, Object: op, Failed: true, Detail: "conflict",
			Conditions: []ConditionChange{{Type: "Degraded", Before: &degraded, After: &gone}}},
		{Actor: "op", Verb: VerbDelete, Object: op, Failed: true},
		{Actor: "scenario", Verb: VerbExpect, Object: op, Conditions: []ConditionChange{{Type: "Available", Before: &availFalse}}},
		{Actor: "op", Verb: VerbKill, Object: ObjectRef{Kind: "Process", Name: "op"}},
	} {
		st.Apply(e)
	}
	check("after ignored events", op, availFalse, degraded)
	if len(st) != 2 {
		t.Errorf("state has %d objects, want 2: %v", len(st), st)
	}

	st.Apply(Event{Actor: "op", Verb: VerbUpdate, Object: op, Conditions: []ConditionChange{{Type: "Available", Before: &availFalse}}})
	check("after removing a condition", op, degraded)

	st.Apply(Event{Actor: "op", Verb: VerbDelete, Object: op})
	if _, ok := st[op]; ok {
		t.Errorf("deleted object still in the state: %v", st[op])
	}
	check("after deleting the other object", nsObj)
}

// sampleTimeline has something in every field.
func sampleTimeline() *Timeline {
	avail := cond("Available", "True", "AsExpected", "all good", t0.Add(2*time.Second))
	degraded := cond("Degraded", "True", "Broken", "disk \"full\"\nline two", t0.Add(1500*time.Millisecond))
	tl := &Timeline{}
	tl.Append(
		Event{Seq: 99, Time: t0, Actor: "operator-a", Role: "operator", Verb: VerbStart, Object: ObjectRef{Kind: "Process", Name: "operator-a"}},
		Event{Time: t0.Add(2 * time.Second), Actor: "operator-a", Role: "operator", Verb: VerbUpdateStatus,
			Object:     ObjectRef{Kind: "ClusterOperator", Group: "config.openshift.io", Name: "alpha"},
			Conditions: []ConditionChange{{Type: "Available", After: &avail}, {Type: "Degraded", Before: &degraded}},
			Fields: []FieldChange{
				{Path: "metadata.annotations[example.com/reason]", After: json.RawMessage(`"<new> & \u2028"`)},
				{Path: "status.versions", Before: json.RawMessage(`[{"name":"operator","version":"1.0"}]`), After: json.RawMessage(`null`)},
			}},
		Event{Time: t0.Add(2*time.Second + 7*time.Nanosecond), Actor: "operator-a", Role: "operator", Verb: VerbUpdate,
			Object: ObjectRef{Kind: "Widget", Namespace: "team-a", Name: "w"}, Failed: true, Detail: "conflict: ünïcödé"},
		Event{Time: t0.Add(time.Hour).In(time.FixedZone("UTC+2", 2*60*60)), Actor: "scenario", Role: "scenario", Verb: VerbExpect, Detail: "Available within 1m"},
		Event{Time: t0.Add(2 * time.Hour), Actor: "installer", Role: "installer", Verb: VerbRename,
			Object: ObjectRef{Kind: KindFile, Namespace: "master-0", Name: "/etc/kubernetes/manifests/.kas.tmp"},
			Target: "/etc/kubernetes/manifests/kube-apiserver-pod.yaml"},
	)
	return tl
}

// sameJSON tells whether two field values hold the same JSON value (none
// for both absent), whatever their spacing and escapes.
func sameJSON(x, y json.RawMessage) bool {
	if len(x) == 0 || len(y) == 0 {
		return len(x) == len(y)
	}
	var vx, vy any
	return json.Unmarshal(x, &vx) == nil && json.Unmarshal(y, &vy) == nil && reflect.DeepEqual(vx, vy)
}

// sameEvents compares events field by field, times as instants, an empty
// condition or field list as none, and field values as JSON values.
func sameEvents(a, b []Event) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d events, want %d", len(b), len(a))
	}
	sameCond := func(x, y *Condition) bool {
		if x == nil || y == nil {
			return x == nil && y == nil
		}
		return x.Same(*y)
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Seq != y.Seq || !x.Time.Equal(y.Time) || x.Actor != y.Actor || x.Role != y.Role || x.Verb != y.Verb ||
			x.Object != y.Object || x.Target != y.Target || x.Detail != y.Detail || x.Failed != y.Failed ||
			len(x.Conditions) != len(y.Conditions) || len(x.Fields) != len(y.Fields) {
			return fmt.Errorf("event %d:\n  got  %+v\n  want %+v", i+1, y, x)
		}
		for j, fx := range x.Fields {
			if fy := y.Fields[j]; fx.Path != fy.Path || !sameJSON(fx.Before, fy.Before) || !sameJSON(fx.After, fy.After) {
				return fmt.Errorf("event %d field %d: got %s %s -> %s, want %s %s -> %s", i+1, j+1, fy.Path, fy.Before, fy.After, fx.Path, fx.Before, fx.After)
			}
		}
		for j := range x.Conditions {
			cx, cy := x.Conditions[j], y.Conditions[j]
			if cx.Type != cy.Type || !sameCond(cx.Before, cy.Before) || !sameCond(cx.After, cy.After) {
				return fmt.Errorf("event %d condition %d: got %+v, want %+v", i+1, j+1, cy, cx)
			}
		}
	}
	return nil
}

func TestAppendNumbersEventsAndEventsReturnsACopy(t *testing.T) {
	tl := sampleTimeline()
	evs := tl.Events()
	var seqs []int
	for _, e := range evs {
		seqs = append(seqs, e.Seq)
	}
	if want := []int{1, 2, 3, 4, 5}; !slices.Equal(seqs, want) {
		t.Errorf("seqs %v, want %v", seqs, want)
	}
	evs[0].Actor = "scribbled"
	if tl.Events()[0].Actor != "operator-a" {
		t.Error("Events returned the timeline's own slice")
	}
	if !evs[1].IsWrite() || evs[2].IsWrite() || evs[0].IsWrite() || evs[3].IsWrite() || evs[4].IsWrite() {
		t.Errorf("IsWrite: start %v, update-status %v, failed update %v, expect %v, file rename %v",
			evs[0].IsWrite(), evs[1].IsWrite(), evs[2].IsWrite(), evs[3].IsWrite(), evs[4].IsWrite())
	}
}

func TestWriteJSONLThenReadJSONLRoundTrips(t *testing.T) {
	tl := sampleTimeline()
	var buf bytes.Buffer
	if err := tl.WriteJSONL(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want one per event:\n%s", len(lines), buf.String())
	}
	wantLines := map[int]string{
		0: `{"seq":1,"time":"2026-01-01T00:00:00Z","actor":"operator-a","role":"operator","verb":"start","object":{"kind":"Process","name":"operator-a"}}`,
		2: `{"seq":3,"time":"2026-01-01T00:00:02.000000007Z","actor":"operator-a","role":"operator","verb":"update","object":{"kind":"Widget","namespace":"team-a","name":"w"},"detail":"conflict: ünïcödé","failed":true}`,
		3: `{"seq":4,"time":"2026-01-01T03:00:00+02:00","actor":"scenario","role":"scenario","verb":"expect","object":{"kind":"","name":""},"detail":"Available within 1m"}`,
		// The group sits between kind and namespace, fields after the
		// conditions, each side as compact JSON, HTML escaped as encoding/json does.
		1: `{"seq":2,"time":"2026-01-01T00:00:02Z","actor":"operator-a","role":"operator","verb":"update-status","object":{"kind":"ClusterOperator","group":"config.openshift.io","name":"alpha"},` +
			`"conditions":[{"type":"Available","after":{"type":"Available","status":"True","reason":"AsExpected","message":"all good","lastTransitionTime":"2026-01-01T00:00:02Z"}},` +
			`{"type":"Degraded","before":{"type":"Degraded","status":"True","reason":"Broken","message":"disk \"full\"\nline two","lastTransitionTime":"2026-01-01T00:00:01.5Z"}}],` +
			`"fields":[{"path":"metadata.annotations[example.com/reason]","after":"\u003cnew\u003e \u0026 \u2028"},` +
			`{"path":"status.versions","before":[{"name":"operator","version":"1.0"}],"after":null}]}`,
		4: `{"seq":5,"time":"2026-01-01T02:00:00Z","actor":"installer","role":"installer","verb":"rename","object":{"kind":"File","namespace":"master-0","name":"/etc/kubernetes/manifests/.kas.tmp"},"target":"/etc/kubernetes/manifests/kube-apiserver-pod.yaml"}`,
	}
	for i, want := range wantLines {
		if lines[i] != want {
			t.Errorf("line %d:\n  %s\nwant\n  %s", i+1, lines[i], want)
		}
	}

	back, err := ReadJSONL(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := sameEvents(tl.Events(), back.Events()); err != nil {
		t.Error(err)
	}
	var again bytes.Buffer
	if err := back.WriteJSONL(&again); err != nil {
		t.Fatal(err)
	}
	if again.String() != buf.String() {
		t.Errorf("second write differs:\n%s\nfirst:\n%s", again.String(), buf.String())
	}
}

func TestReadJSONLSkipsBlankLinesAndRenumbers(t *testing.T) {
	in := "\r\n" +
		`{"seq":7,"time":"2026-01-01T00:00:00Z","actor":"a","role":"r","verb":"start","object":{"kind":"Process","name":"a"}}` + "\r\n" +
		"\n" +
		// 10:00+02:00 is 08:00Z, so the 09:00Z after it is not going back.
		`{"seq":3,"time":"2026-01-01T10:00:00+02:00","actor":"a","verb":"kill","object":{"kind":"Process","name":"a"}}` + "\n" +
		`{"seq":3,"time":"2026-01-01T09:00:00Z","actor":"b","verb":"expect","object":{"kind":"","name":""}}`
	tl, err := ReadJSONL(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range tl.Events() {
		got = append(got, fmt.Sprintf("%d %s %s %s", e.Seq, e.Time.UTC().Format(time.RFC3339), e.Actor, e.Verb))
	}
	want := []string{
		"1 2026-01-01T00:00:00Z a start",
		"2 2026-01-01T08:00:00Z a kill",
		"3 2026-01-01T09:00:00Z b expect",
	}
	if !slices.Equal(got, want) {
		t.Errorf("read %q, want %q", got, want)
	}
	empty, err := ReadJSONL(strings.NewReader(""))
	if err != nil || len(empty.Events()) != 0 {
		t.Errorf("empty input: %v, %d events", err, len(empty.Events()))
	}
}

func TestReadJSONLErrorsNameTheLine(t *testing.T) {
	ok := `{"time":"2026-01-01T00:00:10Z","actor":"a","verb":"start","object":{"kind":"Process","name":"a"}}`
	for _, tc := range []struct {
		name, in, want string // a want ending in "..." is the start of the error
	}{
		{"bad JSON", ok + "\n" + ok + "\n" + `{"actor":"a","verb":`,
			"timeline line 3: unexpected EOF"},
		{"not an object", `["a"]`,
			"timeline line 1: json: cannot unmarshal array into Go value of type timeline.Event"},
		{"unknown field", ok + "\n" + `{"actor":"a","verb":"start","colour":"red"}`,
			`timeline line 2: json: unknown field "colour"`},
		{"unknown nested field", `{"actor":"a","verb":"update","object":{"kind":"X","name":"y","uid":"1"}}`,
			`timeline line 1: json: unknown field "uid"`},
		{"missing actor", ok + "\n\n" + `{"time":"2026-01-01T00:00:10Z","verb":"start"}`,
			"timeline line 3: event needs an actor and a verb"},
		{"missing verb", `{"time":"2026-01-01T00:00:10Z","actor":"a"}`,
			"timeline line 1: event needs an actor and a verb"},
		{"null", "null",
			"timeline line 1: event needs an actor and a verb"},
		{"time going back", ok + "\n" + ok + "\n" + `{"time":"2026-01-01T00:00:05Z","actor":"a","verb":"kill"}`,
			"timeline line 3: time 2026-01-01 00:00:05 +0000 UTC goes back before 2026-01-01 00:00:10 +0000 UTC"},
		{"bad time", `{"time":"yesterday","actor":"a","verb":"kill"}`,
			`timeline line 1: parsing time "yesterday"...`},
		{"wrong type", `{"seq":"one","actor":"a","verb":"kill"}`,
			"timeline line 1: json: cannot unmarshal string into Go struct field Event.seq of type int"},
		{"whitespace line", ok + "\n   \n",
			"timeline line 2: EOF"},
		{"line too long", ok + "\n" + `{"actor":"a","verb":"expect","detail":"` + strings.Repeat("x", 16*1024*1024) + `"}`,
			"timeline line 2: longer than 16 MiB, the most a line may hold; is this a timeline (one JSON event per line)?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl, err := ReadJSONL(strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("no error; read %d events", len(tl.Events()))
			}
			start, isPrefix := strings.CutSuffix(tc.want, "...")
			if err.Error() != tc.want && !(isPrefix && strings.HasPrefix(err.Error(), start)) {
				t.Errorf("error %q, want %q", err, tc.want)
			}
			if tl != nil {
				t.Errorf("a timeline came back with the error")
			}
		})
	}
}

// ReadJSONL decodes the first JSON value of a line and ignores the rest, so
// a line holding two events (say, a lost newline) loses the second silently.
func TestReadJSONLRejectsTrailingDataOnALine(t *testing.T) {
	in := `{"actor":"a","verb":"start"}{"actor":"b","verb":"kill"}` + "\n" + `{"actor":"c","verb":"expect"} trailing`
	tl, err := ReadJSONL(strings.NewReader(in))
	if err == nil {
		t.Fatalf("regression (sim/timeline/timeline.go ReadJSONL): two lines with trailing data read as %d events without error", len(tl.Events()))
	}
	if !strings.HasPrefix(err.Error(), "timeline line 1: ") {
		t.Errorf("error %q does not name line 1", err)
	}
}

// A real-time run appends out of time order; sorted, its timeline reads
// back (the decoder refuses a time going back) and keeps same-instant order.
func TestSortByTimeReadsBack(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var tl Timeline
	at := func(ms int, actor string) Event {
		return Event{Time: t0.Add(time.Duration(ms) * time.Millisecond), Actor: actor, Role: actor, Verb: VerbUpdate,
			Object: ObjectRef{Kind: "ClusterOperator", Name: "etcd"}}
	}
	tl.Append(at(2, "a"), at(0, "b"), at(2, "c"), at(1, "d"))
	var before bytes.Buffer
	if err := tl.WriteJSONL(&before); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadJSONL(&before); err == nil || !strings.Contains(err.Error(), "goes back") {
		t.Fatalf("a timeline out of time order read back: %v", err)
	}
	tl.SortByTime()
	var after bytes.Buffer
	if err := tl.WriteJSONL(&after); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSONL(&after)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, e := range back.Events() {
		if e.Seq != i+1 {
			t.Errorf("event %d numbered %d", i+1, e.Seq)
		}
		got = append(got, e.Actor)
	}
	if strings.Join(got, "") != "bdac" {
		t.Errorf("order %v, want b d a c", got)
	}
}
