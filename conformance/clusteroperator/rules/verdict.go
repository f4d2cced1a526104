package rules

import (
	"fmt"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// finding accumulates what a rule found: how many things it judged and
// its problems, each with the write that shows it, so that a problem in a
// recording gap is excused alone (judge.Verdict.Problems).
type finding struct {
	judged   int
	problems []judge.Problem
}

func (f *finding) fail(msg string, e timeline.Event) {
	f.problems = append(f.problems, judge.Problem{Message: msg, Evidence: []timeline.Event{e}})
}

// verdict fails with the problems, passes when something was judged, and
// otherwise skips saying there was nothing: nothing judged is no pass.
// note, if not empty, ends the message whatever the status.
func (f *finding) verdict(nothing, note string) judge.Verdict {
	var v judge.Verdict
	switch {
	case len(f.problems) > 0:
		v = judge.Verdict{Status: reports.Fail, Message: f.problems[0].Message, Problems: f.problems}
		if n := len(f.problems); n > 1 {
			v.Message += fmt.Sprintf(" (and %d more)", n-1)
		}
		for _, p := range f.problems {
			for _, e := range p.Evidence {
				// One write with several faults is shown once.
				if n := len(v.Evidence); n == 0 || v.Evidence[n-1].Seq != e.Seq || !v.Evidence[n-1].Time.Equal(e.Time) {
					v.Evidence = append(v.Evidence, e)
				}
			}
		}
		if len(v.Evidence) > judge.MaxEvidence {
			v.Evidence = v.Evidence[:judge.MaxEvidence]
		}
	case f.judged == 0:
		v = judge.Verdict{Status: reports.Skip, Message: nothing}
	default:
		v = judge.Verdict{Status: reports.Pass, Message: fmt.Sprintf("%d judged", f.judged)}
	}
	if note != "" {
		v.Message += "; " + note
	}
	return v
}
