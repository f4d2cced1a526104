package judge

import (
	"fmt"
	"time"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// Findings accumulates what a rule found: how many things it judged
// (Judged), its problems, each with the window it judged, so that a
// problem in a recording gap is excused alone (Verdict.Problems), and what
// it could not judge and why (a subject down, a run ended before a
// deadline): never a failure (a verdict is true or absent). Rules
// packages build their verdicts with it.
type Findings struct {
	// Judged counts the things the rule judged (the rule adds to it); zero: the verdict is a skip.
	Judged    int
	problems  []Problem
	notJudged []string
	notes     []string
}

// Fail adds a problem that judged the window of its evidence.
func (g *Findings) Fail(msg string, evidence ...timeline.Event) {
	g.FailIn(msg, time.Time{}, time.Time{}, evidence...)
}

// FailIn adds a problem that judged the window [from, to] (zero: its
// evidence's span).
func (g *Findings) FailIn(msg string, from, to time.Time, evidence ...timeline.Event) {
	g.problems = append(g.problems, Problem{Message: msg, Evidence: evidence, From: from, To: to})
}

// Skip notes something not judged, and why.
func (g *Findings) Skip(why string) { g.notJudged = append(g.notJudged, why) }

// Note adds a remark that ends the verdict's message whatever its status
// (a warning on a pass); an empty one is none.
func (g *Findings) Note(remark string) {
	if remark != "" {
		g.notes = append(g.notes, remark)
	}
}

// Verdict fails with the problems, passes when something was judged, and
// otherwise skips, saying why (nothing, or what was not judged).
func (g *Findings) Verdict(nothing string) Verdict {
	var v Verdict
	switch {
	case len(g.problems) > 0:
		v = Verdict{Status: reports.Fail, Message: g.problems[0].Message, Problems: g.problems}
		if n := len(g.problems); n > 1 {
			v.Message += fmt.Sprintf(" (and %d more)", n-1)
		}
		for _, p := range g.problems {
			for _, e := range p.Evidence {
				// One write with several faults is shown once.
				if n := len(v.Evidence); n == 0 || v.Evidence[n-1].Seq != e.Seq || !v.Evidence[n-1].Time.Equal(e.Time) {
					v.Evidence = append(v.Evidence, e)
				}
			}
		}
		if len(v.Evidence) > MaxEvidence {
			v.Evidence = v.Evidence[:MaxEvidence]
		}
	case g.Judged == 0 && len(g.notJudged) > 0:
		v = Verdict{Status: reports.Skip, Message: "not judged: " + g.skipped()}
	case g.Judged == 0:
		v = Verdict{Status: reports.Skip, Message: nothing}
	default:
		v = Verdict{Status: reports.Pass, Message: fmt.Sprintf("%d judged", g.Judged)}
	}
	if len(g.notJudged) > 0 && v.Status != reports.Skip {
		v.Message += fmt.Sprintf("; %d not judged (%s)", len(g.notJudged), g.skipped())
	}
	for _, n := range g.notes {
		v.Message += "; " + n
	}
	return v
}

// skipped is the first reason something was not judged, and how many more.
func (g *Findings) skipped() string {
	s := g.notJudged[0]
	if n := len(g.notJudged); n > 1 {
		s += fmt.Sprintf(" (and %d more)", n-1)
	}
	return s
}
