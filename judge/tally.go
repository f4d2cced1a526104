package judge

import (
	"slices"
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// Tally is what a rule found so far, kept as a verdict shows it: how
// many things it judged, its problems, and of what it could not judge
// only the first reason and how many. A rule that judges as the events
// pass keeps one per object, so that what it keeps does not grow with
// the things it passes or skips, and adds them to one Findings, in the
// objects' order, at the end (Into).
type Tally struct {
	// Judged counts the things the rule judged.
	Judged    int
	firstSkip string
	skips     int
	problems  []Problem
}

// Skip notes something not judged, and why (only the first reason is
// kept: a verdict shows it and the count).
func (t *Tally) Skip(why string) { t.SkipN(why, 1) }

// SkipN notes n things not judged for one reason.
func (t *Tally) SkipN(why string, n int) {
	if t.skips == 0 {
		t.firstSkip = why
	}
	t.skips += n
}

// FailIn adds a problem that judged the window [from, to] (zero: its
// evidence's span), as Findings.FailIn.
func (t *Tally) FailIn(msg string, from, to time.Time, evidence ...timeline.Event) {
	t.problems = append(t.problems, Problem{Message: msg, Evidence: evidence, From: from, To: to})
}

// Clone is a copy of t that later problems of either do not reach.
func (t *Tally) Clone() Tally {
	c := *t
	c.problems = slices.Clone(t.problems)
	return c
}

// Reword rewrites the message of each problem t holds: what a rule knows
// only at the end (the one its Clone keeps is not reached).
func (t *Tally) Reword(f func(msg string) string) {
	for i := range t.problems {
		t.problems[i].Message = f(t.problems[i].Message)
	}
}

// Into adds what t found to g, after what g holds.
func (t *Tally) Into(g *Findings) {
	g.Judged += t.Judged
	for i := range t.skips {
		if i == 0 {
			g.Skip(t.firstSkip)
			continue
		}
		g.Skip("") // a verdict shows the first reason and the count
	}
	for _, p := range t.problems {
		g.FailIn(p.Message, p.From, p.To, p.Evidence...)
	}
}
