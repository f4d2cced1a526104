package conformance

import (
	"slices"
	"strings"
	"testing"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

func TestUnproven(t *testing.T) {
	m := Declare("m", "", []Role{
		{Name: "operator", Subjects: []Subject{{Name: "reference"}, {Name: "broken"}}, Forms: []Form{FormProcess}},
		{Name: "watcher", Subjects: []Subject{{Name: "reference"}}},
	}, nil, nil)
	team := Cast{"operator": {Name: "exec:/bin/op --token=s3cret"}, "watcher": {Name: "reference"}}
	ours := Cast{"operator": {Name: "broken"}, "watcher": {Name: "reference"}}
	wrote := func(role string) timeline.Event {
		return timeline.Event{Role: role, Verb: timeline.VerbUpdateStatus, Object: timeline.ObjectRef{Kind: "ClusterOperator", Name: "x"}}
	}
	touched := timeline.Event{Role: "operator", Verb: timeline.VerbWrite, Object: timeline.ObjectRef{Kind: timeline.KindFile, Name: "/etc/x"}}
	refused := wrote("operator")
	refused.Failed = true
	judged := []reports.Case{{Rule: "R-1", Status: reports.Pass}, {Rule: "R-2", Status: reports.Skip}, {Rule: "EXPECT", Status: reports.Pass}}
	unjudged := []reports.Case{{Rule: "R-1", Status: reports.Skip}, {Rule: "R-2", Status: reports.Skip}, {Rule: "EXPECT", Status: reports.Pass}}
	for _, tc := range []struct {
		name   string
		cast   Cast
		events []timeline.Event
		run    reports.Run
		want   []string // substrings, one per reason
	}{
		{"a team's subject that wrote", team, []timeline.Event{wrote("operator")}, reports.Run{Cases: judged}, nil},
		{"a team's subject that wrote a node's file", team, []timeline.Event{touched}, reports.Run{Cases: judged}, nil},
		{"a team's subject that never wrote", team, []timeline.Event{wrote("watcher"), refused}, reports.Run{Cases: judged},
			[]string{"the operator (exec:/bin/op --token=REDACTED) never acted"}},
		{"opcert's own subject is not held to it", ours, nil, reports.Run{Cases: judged}, nil},
		{"a process that ended on its own", team, []timeline.Event{wrote("operator")},
			reports.Run{Cases: judged, Processes: []reports.Process{{Name: "operator/x", Role: "operator", Log: "x.log", Unasked: 1}}},
			[]string{"operator/x ended without being asked (1 of its processes; see its log x.log)"}},
		{"nothing judged", ours, nil, reports.Run{Cases: unjudged}, []string{"no rule could judge the run: all 2 said not judged"}},
		{"a run the subjects broke is still held to it", team, nil, reports.Run{Cases: judged, Stopped: reports.StopSubject}, []string{"never acted"}},
		{"a run the environment stopped has its own verdict", team, nil, reports.Run{Cases: unjudged, Stopped: reports.StopEnvironment}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := unproven(m, tc.cast, tc.events, tc.run)
			if len(got) != len(tc.want) || !slices.EqualFunc(got, tc.want, strings.Contains) {
				t.Errorf("unproven = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRoleCommand(t *testing.T) {
	r := &Role{Name: "operator", Forms: []Form{FormProcess}, Placeholders: []string{"name", "timeScale"}}
	for _, tc := range []struct{ line, err string }{
		{"/bin/true --name {name} --role {role} --scale {timeScale}", ""},
		{"sh -c 'echo {\"a\":1}'", ""},
		{"/bin/true --name {nmae}", "unknown placeholder {nmae}; the operator role's placeholders: {role}, {name}, {timeScale}"},
		{"/no/such/op", "the executable /no/such/op cannot be run"},
		{"no-such-op-in-path", "the executable no-such-op-in-path cannot be run: executable file not found in $PATH"},
		{"'{name}' --x", ""}, // the program itself a placeholder: checked when it starts
	} {
		_, err := r.command(tc.line)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("command(%q) = %v, want %q", tc.line, err, tc.err)
		}
	}
}
