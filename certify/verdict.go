package certify

import (
	"fmt"
	"strings"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// ids are the cases every run is reported by, in the mechanism's order.
func (p *plan) ids() []string {
	var out []string
	for _, r := range p.rules {
		out = append(out, r.ID)
	}
	if p.expect {
		out = append(out, "EXPECT")
	}
	if p.perturbed() {
		out = append(out, judge.ConvergeRule)
	}
	return out
}

// statement is a case's title: the rule's ID and statement.
func (p *plan) statement(id string) string {
	for _, r := range p.rules {
		if r.ID == id {
			return r.ID + ": " + r.Statement
		}
	}
	if id == judge.ConvergeRule {
		return id + ": " + judge.ConvergeCase("").Statement
	}
	return id + ": the scenario's expectations hold"
}

// outcome is what a spec or a subtest makes of one case of a run.
type outcome struct {
	status reports.Status
	text   string
	// skipped says which steps did not apply to the team's subject.
	skipped string
}

func outcomeOf(run reports.Run, id string) outcome {
	o := outcome{skipped: skippedSteps(run)}
	if run.Error != "" {
		// A run its subjects, its environment or a signal stopped: not
		// judged, and not passed either.
		o.status = reports.Fail
		o.text = fmt.Sprintf("the run of %s stopped (%s) at +%s before it could be judged: %s", run.Scenario, run.Stopped, run.Reached, run.Error)
		return o
	}
	for _, c := range run.Cases {
		if c.Rule != id {
			continue
		}
		o.status, o.text = c.Status, body(c)
		if len(run.NotJudged) > 0 && c.Status != reports.Fail {
			// The run proved nothing of the team's reconciler (it never
			// acted): a rule it did not fail is not a pass either.
			o.status = reports.Fail
			o.text = fmt.Sprintf("%s: the run of %s proved nothing: %s\n%s", reports.NotJudged, run.Scenario, strings.Join(run.NotJudged, "; "), o.text)
		}
		return o
	}
	o.status, o.text = reports.Skip, "the run has no case "+id
	return o
}

// body is a case as JUnit shows it: message, section, measures, evidence.
func body(c reports.Case) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nsection: %s\n", c.Message, c.Section)
	for _, m := range c.Measures {
		fmt.Fprintf(&b, "measure %s: count=%d p50=%s p99=%s max=%s", m.Name, m.Count, m.P50, m.P99, m.Max)
		if m.Budget > 0 {
			fmt.Fprintf(&b, " budget=%s", m.Budget)
		}
		b.WriteByte('\n')
	}
	if len(c.Evidence) > 0 {
		b.WriteString("evidence:\n")
		for _, e := range c.Evidence {
			b.WriteString("  " + reports.FormatEvent(e) + "\n")
		}
	}
	return b.String()
}

// skippedSteps lists the steps that did not apply to the subjects, which
// the EXPECT case carries, one a line; "" if none.
func skippedSteps(run reports.Run) string {
	var b strings.Builder
	for _, c := range run.Cases {
		if c.Rule != "EXPECT" {
			continue
		}
		for _, e := range c.Evidence {
			if e.Verb == timeline.VerbSkip {
				b.WriteString(reports.FormatEvent(e) + "\n")
			}
		}
	}
	return b.String()
}
