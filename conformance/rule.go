// Package conformance judges runs: rules are pure functions over a
// timeline, the runner plays a scenario against chosen subjects in the
// simulator and turns the timeline into report cases. Mechanisms plug in
// through Mechanism (one package per seed under conformance/).
package conformance

import (
	"time"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// Rule is one checkable statement of a seed.
type Rule struct {
	ID        string // STALE-001
	Section   string // 000 §Proposal ¶2
	Statement string
	Role      string // the role whose subject the rule judges
	// Check judges a timeline that covers virtual time up to end.
	Check func(events []timeline.Event, end time.Time) Verdict
}

// Verdict is a rule's finding on one timeline.
type Verdict struct {
	Status   reports.Status
	Message  string
	Evidence []timeline.Event
	Measures []reports.Measure
}

// Judge applies rules to a timeline.
func Judge(rules []Rule, events []timeline.Event, end time.Time) []reports.Case {
	out := make([]reports.Case, 0, len(rules))
	for _, r := range rules {
		v := r.Check(events, end)
		out = append(out, reports.Case{
			Rule: r.ID, Section: r.Section, Statement: r.Statement, Role: r.Role,
			Status: v.Status, Message: v.Message, Evidence: v.Evidence, Measures: v.Measures,
		})
	}
	return out
}
