package rules

import (
	"fmt"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// judgement is a finding of the contract rules, which also say what they
// could not judge and why (an operator down, a run ended before a
// deadline): never a failure (DESIGN "A verdict is true or absent").
type judgement struct {
	finding
	notJudged []string
}

// failIn adds a problem that judged the window [from, to] (zero: its
// evidence's span), so a recording gap inside it excuses it.
func (g *judgement) failIn(msg string, from, to time.Time, evidence ...timeline.Event) {
	g.problems = append(g.problems, judge.Problem{Message: msg, Evidence: evidence, From: from, To: to})
}

func (g *judgement) skip(why string) { g.notJudged = append(g.notJudged, why) }

// verdict is finding's, with what was not judged: the reason of a skip,
// or a note on a pass or failure.
func (g *judgement) verdict(nothing string) judge.Verdict {
	note := ""
	switch n := len(g.notJudged); {
	case n == 0:
	case g.judged == 0 && len(g.problems) == 0:
		nothing = "not judged: " + g.notJudged[0]
		if n > 1 {
			nothing += fmt.Sprintf(" (and %d more)", n-1)
		}
	default:
		note = fmt.Sprintf("%d not judged (%s)", n, g.notJudged[0])
	}
	return g.finding.verdict(nothing, note)
}
