package judge

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// A recording of a live API server can lose sight of it: a watch expires (410
// Gone) or breaks, and what was written until it has listed again is seen
// late, as one write per changed object, or not at all. The recorder marks
// that span on the timeline (timeline.KindRecording: lost, then resumed). A
// rule cannot tell what happened inside it, so a failure whose judged window
// overlaps a gap is not held against the subject: it becomes "not judged", and
// says which gap (a verdict is true or absent). Failures outside every gap
// still fail. This is done here, for every mechanism's rules alike; a rule
// only says which window each of its failures judged (Verdict.Problems).

// Gap is a span of a recording in which writes may be missing.
type Gap struct {
	From, To time.Time // To is the timeline's end for a gap never resumed
	// Why says what made the gap (a watch dropped, the recorder down), for the report.
	Why string
	// Open says the timeline ended in the gap: what it lost (Lost, the
	// lost events' object names: the kinds) was never listed again.
	Open bool
	// Lost names the kinds of the objects whose events an open gap lost.
	Lost string
}

// gapReader collects gaps from events in order. Each kind is lost and
// listed again on its own (the recorder watches them side by side): a gap
// lasts from the first kind lost until every kind lost is listed again.
type gapReader struct {
	gaps []Gap
	lost map[string]bool // the kinds lost now, by the events' object names
}

func (g *gapReader) read(e timeline.Event) {
	if e.Object.Kind != timeline.KindRecording || e.Object.Group != "" {
		return
	}
	switch e.Verb {
	case timeline.VerbLost:
		if len(g.lost) == 0 {
			g.gaps = append(g.gaps, Gap{From: e.Time, Why: e.Detail})
		}
		if g.lost == nil {
			g.lost = map[string]bool{}
		}
		g.lost[e.Object.Name] = true
	case timeline.VerbResumed:
		if len(g.lost) == 0 {
			return
		}
		delete(g.lost, e.Object.Name)
		if len(g.lost) == 0 {
			g.gaps[len(g.gaps)-1].To = e.Time
		}
	}
}

// upTo is the gaps of a timeline that ends at end: a gap still open runs
// to it, marked Open with the kinds still lost. The reader reads on.
func (g *gapReader) upTo(end time.Time) []Gap {
	gaps := append([]Gap(nil), g.gaps...)
	if len(g.lost) > 0 {
		last := &gaps[len(gaps)-1]
		last.To, last.Open, last.Lost = end, true, strings.Join(slices.Sorted(maps.Keys(g.lost)), ",")
	}
	return gaps
}

// Gaps lists the recording gaps of a timeline that covers time up to end.
func Gaps(events []timeline.Event, end time.Time) []Gap {
	var g gapReader
	for _, e := range events {
		g.read(e)
	}
	return g.upTo(end)
}

// excuseGaps turns the failures of v whose window overlaps a gap into "not
// judged". A verdict left with no failure is a skip that names the gap.
func excuseGaps(v Verdict, j *Judging) Verdict {
	if v.Status != reports.Fail || len(j.Gaps) == 0 {
		return v
	}
	problems := v.Problems
	if len(problems) == 0 {
		problems = []Problem{{Message: v.Message, Evidence: v.Evidence}}
	}
	var kept []Problem
	var first *Gap
	excused := 0
	for _, p := range problems {
		if g := j.overlapping(p); g != nil {
			excused++
			if first == nil {
				first = g
			}
			continue
		}
		kept = append(kept, p)
	}
	if excused == 0 {
		return v
	}
	gap := fmt.Sprintf("recording gap from %s to %s (%s)", j.Offset(first.From), j.Offset(first.To), first.Why)
	if len(kept) == 0 {
		return Verdict{Status: reports.Skip, Measures: v.Measures,
			Message: fmt.Sprintf("not judged: %s; %d failures fell in it, first: %s", gap, excused, problems[0].Message)}
	}
	out := Verdict{Status: reports.Fail, Measures: v.Measures, Problems: kept, Message: kept[0].Message}
	if len(kept) > 1 {
		out.Message = fmt.Sprintf("%s (and %d more)", out.Message, len(kept)-1)
	}
	out.Message += fmt.Sprintf("; %d more not judged: %s", excused, gap)
	for _, p := range kept {
		out.Evidence = append(out.Evidence, p.Evidence...)
	}
	if len(out.Evidence) > MaxEvidence {
		out.Evidence = out.Evidence[:MaxEvidence]
	}
	return out
}

// MaxEvidence is the most evidence events a verdict carries: enough to
// read a failure, few enough to keep a report readable; the timeline has
// the rest.
const MaxEvidence = 12

// overlapping is the first gap that overlaps the window p judged, or nil.
func (j *Judging) overlapping(p Problem) *Gap {
	from, to := p.From, p.To
	for _, e := range p.Evidence {
		if from.IsZero() || e.Time.Before(from) {
			from = e.Time
		}
		if to.IsZero() || e.Time.After(to) {
			to = e.Time
		}
	}
	if from.IsZero() && to.IsZero() {
		// Nothing says where it is: any gap may hold what it missed.
		from, to = j.Start, j.End
	}
	for i, g := range j.Gaps {
		if !g.From.After(to) && !g.To.Before(from) {
			return &j.Gaps[i]
		}
	}
	return nil
}
