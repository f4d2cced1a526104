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
		{name: "no lastProbeTime: optional",
			tl:   started().status("3m", unavailable().probedAt("none"), settled(), notDegraded(), reconciling(), running()),
			want: reports.Pass},
		{name: "no reason: the ADR names none",
			tl:   started().status("3m", c(condAvailable, statusFalse), settled(), notDegraded(), reconciling(), running()),
			want: reports.Pass},
		{name: "a transition stamped when the operator saw it, within the bound",
			tl:  failed().status("2m20s", available().at("2m5s"), settled(), notDegraded(), reconciling(), running()),
			cfg: &Config{Reaction: 30e9}, want: reports.Pass},
		{name: "a transition stamped before the bound",
			tl:  failed().status("2m50s", available().at("2m5s"), settled(), notDegraded(), reconciling(), running()),
			cfg: &Config{Reaction: 30e9}, want: reports.Fail, message: []string{"went from False to True without moving lastTransitionTime"}},
		{name: "lastProbeTime before lastTransitionTime",
			tl:   started().status("3m", unavailable().probedAt("1m"), settled(), notDegraded(), reconciling(), running()),
			want: reports.Fail, message: []string{"has lastProbeTime 2026-01-01T00:01:00Z, before its lastTransitionTime 2026-01-01T00:03:00Z"}},
		{name: "lastProbeTime after the write",
			tl:   started().status("3m", available().probedAt("4m"), settled(), notDegraded(), reconciling(), running()),
			want: reports.Fail, message: []string{"has lastProbeTime 2026-01-01T00:04:00Z, after the write"}},
		{name: "lastTransitionTime after the write",
			tl:   started().status("3m", unavailable().at("5m").probedAt("5m"), settled(), notDegraded(), reconciling(), running()),
			want: reports.Fail, message: []string{"has lastTransitionTime 2026-01-01T00:05:00Z, after the write"}},
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

// STACKABLE-010, a Style rule: lastProbeTime as in the ADR's examples, a
// reason, when given, CamelCase.
func TestConventions(t *testing.T) {
	runTable(t, "STACKABLE-010", []ruleCase{
		{name: "started", tl: started(), want: reports.Pass},
		{name: "no reason is no warning", tl: started().status("3m", c(condAvailable, statusFalse), settled(), notDegraded(), reconciling(), running()), want: reports.Pass},
		{name: "no lastProbeTime",
			tl:   started().status("3m", unavailable().probedAt("none"), settled(), notDegraded(), reconciling(), running()),
			want: reports.Warn, message: []string{"condition Available has no lastProbeTime"}},
		{name: "no lastProbeTime fails under --strict",
			tl:   started().status("3m", unavailable().probedAt("none"), settled(), notDegraded(), reconciling(), running()),
			want: reports.Fail, strict: true},
		{name: "a reason that is not CamelCase",
			tl:   started().status("3m", c(condAvailable, statusFalse).because("User requested reconcile stop.", "")),
			want: reports.Warn, message: []string{`has reason "User requested reconcile stop.", not CamelCase`}},
	})
	b := newTimeline().cluster("0s", "", roles()).
		write("0s", RoleOperator, timeline.VerbUpdateStatus, c1, nil, []cond{unavailable(), starting()})
	runTable(t, "STACKABLE-010", []ruleCase{{name: "no status.conditions", tl: b, want: reports.Pass,
		message: []string{"2 judged; 1 not judged (lastProbeTime: no write recorded status.conditions)"}}})
}

// STACKABLE-009, a Style rule: messages, and the offending pods named.
func TestMessagesNamePods(t *testing.T) {
	runTable(t, "STACKABLE-009", []ruleCase{
		{name: "the reference's messages", tl: failed(), want: reports.Pass},
		{name: "other words naming the pods",
			tl: started().pod("2m", "server", "c1-server-0", "Unknown").counted("2m", server, 1).
				status("2m", c(condAvailable, statusUnknown).because("NodeLost", "c1-server-0 lost its node"), starting(),
					c(condDegraded, statusTrue).because("", "unhealthy: c1-server-0"), reconciling(), running()),
			want: reports.Pass},
		{name: "the example verbatim, placeholders and all",
			tl: started().pod("2m", "server", "c1-server-0", "Unknown").counted("2m", server, 1).
				status("2m", availabilityUnknown("[Pod1,Pod2]"), starting(), degraded("[c1-server-0]", "[Unknown]"), reconciling(), running()),
			want: reports.Warn, message: []string{"does not name pod c1-server-0"}},
		{name: "no message",
			tl:   started().status("3m", c(condAvailable, statusTrue).because(reasonAvailable, ""), settled(), notDegraded(), reconciling(), running()),
			want: reports.Warn, message: []string{"Available True has no message"}},
	})
}

// A timeline that does not record status.conditions judges the
// conditions' diffs.
func TestValidConditionsUnrecordedList(t *testing.T) {
	b := newTimeline().cluster("0s", "", roles()).
		write("0s", RoleOperator, timeline.VerbUpdateStatus, c1, nil, []cond{unavailable(), starting()})
	runTable(t, "STACKABLE-007", []ruleCase{{name: "no status.conditions", tl: b, want: reports.Pass, message: []string{"2 judged"}}})
}
