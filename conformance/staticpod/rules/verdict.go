package rules

import (
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
)

// finding is a rule's findings (judge.Findings) with the reactions it
// measured, reported on its verdict against budget under the name
// reaction.
type finding struct {
	judge.Findings
	reactions []time.Duration
	reaction  string
	budget    time.Duration
}

// measured notes a reaction the rule measured.
func (f *finding) measured(d time.Duration) { f.reactions = append(f.reactions, d) }

func (f *finding) verdict(nothing string) judge.Verdict {
	v := f.Verdict(nothing)
	if len(f.reactions) > 0 {
		v.Measures = []reports.Measure{measure(f.reaction, f.reactions, f.budget)}
	}
	return v
}

// measure sums up measured reactions (count, p50, p99, max) against the
// budget a rule allows them, so a report shows how close a subject came.
func measure(name string, ds []time.Duration, budget time.Duration) reports.Measure {
	var l judge.Latencies
	for _, d := range ds {
		l.Add(d)
	}
	return l.Measure(name, budget)
}
