package rules

import (
	"testing"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

func TestValidConditions(t *testing.T) {
	rs := &Config{Profile: ProfileOperatorRS}
	runTable(t, "STACKABLE-007", []ruleCase{
		{name: "started", tl: started(), want: reports.Pass, message: []string{"17 judged"}},
		{name: "lastTransitionTime moved without a status change",
			tl:   started().status("3m", available().at("3m"), settled(), notDegraded(), reconciling(), running()),
			want: reports.Fail, message: []string{"SampleCluster/data/c1 at +3m0s: condition Available moved lastTransitionTime from 2026-01-01T00:00:30Z to 2026-01-01T00:03:00Z while its status stayed True"},
			evidence: []string{"3m"}},
		{name: "a status change that keeps lastTransitionTime",
			tl:   failed().status("3m", available().at("2m"), podFailed("[c1-server-1]"), degraded("[c1-server-1]", "[Failed]"), reconciling(), running()),
			want: reports.Fail, message: []string{"went from False to True without moving lastTransitionTime"}},
		{name: "two transitions at one instant share the write's time",
			tl:   failed().status("2m", available().at("2m"), settled(), notDegraded(), reconciling(), running()),
			want: reports.Pass},
		{name: "no lastProbeTime",
			tl:   started().status("3m", unavailable().probedAt("none"), settled(), notDegraded(), reconciling(), running()),
			want: reports.Fail, message: []string{"condition Available has no lastProbeTime"}},
		{name: "lastProbeTime before lastTransitionTime",
			tl:   started().status("3m", unavailable().probedAt("1m"), settled(), notDegraded(), reconciling(), running()),
			want: reports.Fail, message: []string{"has lastProbeTime 2026-01-01T00:01:00Z, before its lastTransitionTime 2026-01-01T00:03:00Z"}},
		{name: "lastProbeTime after the write",
			tl:   started().status("3m", available().probedAt("4m"), settled(), notDegraded(), reconciling(), running()),
			want: reports.Fail, message: []string{"has lastProbeTime 2026-01-01T00:04:00Z, after the write"}},
		{name: "lastTransitionTime after the write",
			tl:   started().status("3m", unavailable().at("5m").probedAt("5m"), settled(), notDegraded(), reconciling(), running()),
			want: reports.Fail, message: []string{"has lastTransitionTime 2026-01-01T00:05:00Z, after the write"}},
		{name: "no reason",
			tl:   started().status("3m", c(condAvailable, statusFalse), settled(), notDegraded(), reconciling(), running()),
			want: reports.Fail, message: []string{"condition Available has no reason"}},
		{name: "a reason that is not CamelCase",
			tl:   started().status("3m", c(condAvailable, statusFalse).because("User requested reconcile stop.", "")),
			want: reports.Fail, message: []string{`has reason "User requested reconcile stop.", not CamelCase`}},
		{name: "a status none of the three",
			tl:   started().status("3m", c(condAvailable, "Yes").because(reasonAvailable, "")),
			want: reports.Fail, message: []string{`has status "Yes"`}},
		{name: "operator-rs: no reason, no lastProbeTime",
			tl:  started().status("3m", c(condAvailable, statusFalse).probedAt("none")),
			cfg: rs, want: reports.Pass},
		{name: "operator-rs: lastTransitionTime still moves with the status only",
			tl:  started().status("3m", c(condAvailable, statusTrue).at("3m")),
			cfg: rs, want: reports.Fail, message: []string{"while its status stayed True"}},
		{name: "no status written", tl: newTimeline().cluster("0s", "", roles()), want: reports.Skip},
	})
}

func TestNoStatusWhileBroken(t *testing.T) {
	broken := specOf{Roles: roles().Roles, Broken: "cannot render the server role"}
	runTable(t, "STACKABLE-008", []ruleCase{
		{name: "broken, then mended",
			tl: started().spec("2m", broken).pod("3m", "server", "c1-server-1", "Failed").counted("3m", server, 1).
				spec("5m", roles()).
				status("5m", unavailable(), podFailed("[c1-server-1]"), degraded("[c1-server-1]", "[Failed]"), reconciling(), running()),
			want: reports.Pass, message: []string{"1 judged"}},
		{name: "conditions published from a failed reconcile",
			tl: started().spec("2m", broken).pod("3m", "server", "c1-server-1", "Failed").counted("3m", server, 1).
				status("3m", unavailable(), podFailed("[c1-server-1]"), degraded("[c1-server-1]", "[Failed]"), reconciling(), running()),
			want: reports.Fail, message: []string{"SampleCluster/data/c1: the operator's status write (Available, Progressing, Degraded) while its reconcile fails at +3m0s (since +2m0s)"},
			evidence: []string{"3m"}},
		{name: "a status write at the instant it broke, after it",
			tl:   started().spec("2m", broken).status("2m", unavailable(), settled(), notDegraded(), reconciling(), running()),
			want: reports.Fail},
		{name: "in real time, a write within the tolerance is not judged",
			tl:  started().spec("2m", broken).status("2m2s", unavailable(), settled(), notDegraded(), reconciling(), running()),
			cfg: &Config{Tolerance: 5e9}, want: reports.Pass, message: []string{"1 not judged"}},
		{name: "broken from its creation",
			tl: newTimeline().process("0s", "start").cluster("0s", "", broken).
				status("0s", unavailable(), starting(), notDegraded(), reconciling(), running()),
			want: reports.Fail},
		{name: "never broken", tl: started(), want: reports.Skip, message: []string{"no SampleCluster whose reconcile fails"}},
	})
}

// A timeline that does not record status.conditions judges the
// conditions' diffs and says lastProbeTime was not judged.
func TestValidConditionsUnrecordedList(t *testing.T) {
	b := newTimeline().cluster("0s", "", roles()).
		write("0s", RoleOperator, timeline.VerbUpdateStatus, c1, nil, []cond{unavailable(), starting()})
	runTable(t, "STACKABLE-007", []ruleCase{{name: "no status.conditions", tl: b, want: reports.Pass,
		message: []string{"2 judged; 1 not judged (lastProbeTime: no write recorded status.conditions)"}}})
}
