// Package rules holds the STALE rules: seed 000 (detection and reporting
// of stale ClusterOperators) as pure functions over a recorded timeline.
// Each rule cites the seed's section; its texts, watched conditions and
// thresholds are written here (seed.go, config.go), never imported from
// reference/ (DESIGN "The judge does not borrow from the judged"; a test
// fails if this package or its tests depend on reference/).
package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// Rules returns the STALE rules judged against cfg; the statements name
// the thresholds in force (--challenge-after, --unknown-after, a time
// scale's) and the reaction bound.
func Rules(cfg Config) []judge.Rule {
	return []judge.Rule{
		{ID: "STALE-001", Section: "000 §Proposal ¶2", Role: RoleDetector,
			Statement: fmt.Sprintf("no ClusterOperator is challenged before its conditions have been still for the threshold (%s)", threshold(cfg.ChallengeAfter)),
			Check:     onlineOr(r001, cfg.notEarly)},
		{ID: "STALE-002", Section: "000 §Proposal ¶2", Role: RoleDetector,
			Statement: fmt.Sprintf("a ClusterOperator whose conditions have been still for the threshold (%s) is challenged then, within the reaction bound (%s)", threshold(cfg.ChallengeAfter), cfg.AnswerBudget),
			Check:     onlineOr(r002, cfg.due)},
		{ID: "STALE-003", Section: "000 §Proposal ¶2", Role: RoleDetector,
			Statement: "a challenge prefixes every watched message with the seed's text, in one write, and changes no status or lastTransitionTime",
			Check:     onlineOr(r003, cfg.challengeText)},
		{ID: "STALE-004", Section: "000 §Proposal ¶4", Role: RoleDetector,
			Statement: fmt.Sprintf("a challenge left unanswered for %s more is followed then, within the reaction bound (%s), by one write setting the watched conditions Unknown with the seed's text, their lastTransitionTime moved to the mark", threshold(cfg.UnknownAfter), cfg.AnswerBudget),
			Check:     onlineOr(r004, cfg.marked)},
		{ID: "STALE-005", Section: "000 §Proposal ¶5", Role: RoleDetector,
			Statement: fmt.Sprintf("no condition is set Unknown unless a challenge went unanswered, with no movement, for the full threshold (%s)", threshold(cfg.UnknownAfter)),
			Check:     onlineOr(r005, cfg.markJustified)},
		{ID: "STALE-006", Section: "000 §Risks and Mitigations", Role: RoleDetector,
			Statement: "the detector writes a ClusterOperator at most twice per cycle (between two movements of its conditions)",
			Check:     onlineOr(r006, cfg.writesPerCycle)},
		{ID: "STALE-007", Section: "000 §Test Plan", Role: RoleOperator,
			Statement: fmt.Sprintf("a running operator resets a challenged message within the budget (%s), the reaction bound, removing the seed's text: the minimum stale-message update time", cfg.AnswerBudget),
			Check:     onlineOr(r007, cfg.answerTime)},
		{ID: "STALE-008", Section: "000 §Proposal ¶3", Role: RoleOperator,
			Statement: "a running operator answers every challenge by resetting the messages, removing the seed's text, before it would be marked Unknown",
			Check:     onlineOr(r008, cfg.answered)},
	}
}

// onlineOr takes a rule's verdict from the online judging when the timeline
// was judged as it streamed (online.go), else from the batch rule.
func onlineOr(idx int, batch func(*judge.Judging) judge.Verdict) func(*judge.Judging) judge.Verdict {
	return func(j *judge.Judging) judge.Verdict {
		if o := factsOf(j).online; o != nil {
			return o.verdicts(j.End)[idx]
		}
		return batch(j)
	}
}

// finding accumulates violations; a verdict passes when there are none.
type finding struct {
	judged   int
	problems []judge.Problem
	evidence []timeline.Event
}

func (f *finding) fail(msg string, evidence ...fact) {
	f.failUntil(msg, time.Time{}, evidence...)
}

// failUntil is a failure whose judged window runs past its evidence, to
// until: what was missing was looked for until then (so a recording gap
// before then may hold it).
func (f *finding) failUntil(msg string, until time.Time, evidence ...fact) {
	p := judge.Problem{Message: msg, To: until}
	for _, e := range evidence {
		ev := e.ev()
		f.evidence = append(f.evidence, ev)
		p.Evidence = append(p.Evidence, ev)
	}
	f.problems = append(f.problems, p)
}

// maxEvidence keeps a failing report readable; the timeline has the rest.
const maxEvidence = judge.MaxEvidence

// Names of the detector's reaction measures (STALE-002, STALE-004).
const (
	challengeLateness = "challenge after its deadline"
	markLateness      = "Unknown mark after its deadline"
)

// withMeasure adds the reaction times l, under name, to a verdict that judged
// any: a team sees how close its detector came to the bound.
func withMeasure(v judge.Verdict, l *judge.Latencies, name string, bound time.Duration) judge.Verdict {
	if l.Count() > 0 {
		v.Measures = append(v.Measures, l.Measure(name, bound))
	}
	return v
}

func (f *finding) verdict(nothing string) judge.Verdict {
	switch {
	case len(f.problems) > 0:
		msg := f.problems[0].Message
		if n := len(f.problems); n > 1 {
			msg = fmt.Sprintf("%s (and %d more)", msg, n-1)
		}
		ev := f.evidence
		if len(ev) > maxEvidence {
			ev = ev[:maxEvidence]
		}
		return judge.Verdict{Status: reports.Fail, Message: msg, Evidence: ev, Problems: f.problems}
	case f.judged == 0:
		return judge.Verdict{Status: reports.Skip, Message: nothing}
	}
	return judge.Verdict{Status: reports.Pass, Message: fmt.Sprintf("%d judged", f.judged)}
}

// threshold writes a duration as the statements give it: 10m, 6s, 1h30m.
func threshold(d time.Duration) string {
	s := d.String()
	if d%time.Minute == 0 {
		s = strings.TrimSuffix(s, "0s")
	}
	if d%time.Hour == 0 {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
