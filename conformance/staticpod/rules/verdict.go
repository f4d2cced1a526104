package rules

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// finding accumulates what a rule found; a verdict passes when there are
// no problems and something was judged.
type finding struct {
	judged    int
	problems  []string
	evidence  []timeline.Event
	notJudged []string // cases left out, and why: never a failure
	notes     []string // warnings on a passing verdict
	// reactions are the reactions measured (measure), reported on the
	// verdict against budget, under the name reaction.
	reactions []time.Duration
	reaction  string
	budget    time.Duration
}

// measured notes a reaction the rule measured.
func (f *finding) measured(d time.Duration) { f.reactions = append(f.reactions, d) }

func (f *finding) fail(msg string, evidence ...timeline.Event) {
	f.problems = append(f.problems, msg)
	f.evidence = append(f.evidence, evidence...)
}

func (f *finding) skip(why string) { f.notJudged = append(f.notJudged, why) }

// maxEvidence keeps a failing report readable; the timeline has the rest.
const maxEvidence = 12

func (f *finding) verdict(nothing string) judge.Verdict {
	v := f.judgement(nothing)
	if len(f.reactions) > 0 {
		v.Measures = []reports.Measure{measure(f.reaction, f.reactions, f.budget)}
	}
	return v
}

func (f *finding) judgement(nothing string) judge.Verdict {
	switch {
	case len(f.problems) > 0:
		ev := f.evidence
		if len(ev) > maxEvidence {
			ev = ev[:maxEvidence]
		}
		return judge.Verdict{Status: reports.Fail, Message: summary(f.problems), Evidence: ev}
	case f.judged == 0 && len(f.notJudged) > 0:
		return judge.Verdict{Status: reports.Skip, Message: nothing + "; not judged: " + summary(f.notJudged)}
	case f.judged == 0:
		return judge.Verdict{Status: reports.Skip, Message: nothing}
	}
	msg := fmt.Sprintf("%d judged", f.judged)
	if len(f.notJudged) > 0 {
		msg += fmt.Sprintf(", %d not judged (%s)", len(f.notJudged), f.notJudged[0])
	}
	if len(f.notes) > 0 {
		msg += "; warning: " + strings.Join(f.notes, "; ")
	}
	return judge.Verdict{Status: reports.Pass, Message: msg}
}

// summary is the first item, and how many more there are.
func summary(items []string) string {
	if n := len(items); n > 1 {
		return fmt.Sprintf("%s (and %d more)", items[0], n-1)
	}
	return items[0]
}

// measure sums up measured reactions (count, p50, p99, max) against the
// budget a rule allows them, so a report shows how close a subject came.
func measure(name string, ds []time.Duration, budget time.Duration) reports.Measure {
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := func(q float64) time.Duration { return s[int(math.Ceil(q*float64(len(s))))-1] }
	return reports.Measure{Name: name, Count: len(s), P50: rank(0.5), P99: rank(0.99), Max: s[len(s)-1], Budget: budget}
}
