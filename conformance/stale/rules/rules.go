// Package rules holds the STALE rules: seed 000 (detection and reporting
// of stale ClusterOperators) as pure functions over a recorded timeline.
// Each rule cites the seed's section; its texts, watched conditions and
// thresholds are written here (seed.go, config.go), never imported from
// reference/ (the judge does not borrow from the judged; a test
// fails if this package or its tests depend on reference/).
package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// Rules returns the STALE rules judged against cfg; the statements name
// the thresholds in force (--challenge-after, --unknown-after, a time
// scale's) and the reaction bound.
func Rules(cfg Config) []judge.Rule {
	return []judge.Rule{
		{ID: "STALE-001", Section: "000 §Proposal ¶2", Role: RoleDetector,
			Statement: fmt.Sprintf("no ClusterOperator is challenged before its conditions have been still for the threshold (%s)", threshold(cfg.ChallengeAfter)),
			Check:     cfg.check(r001)},
		{ID: "STALE-002", Section: "000 §Proposal ¶2", Role: RoleDetector,
			Statement: fmt.Sprintf("a ClusterOperator whose conditions have been still for the threshold (%s) is challenged then, within the reaction bound (%s)", threshold(cfg.ChallengeAfter), cfg.AnswerBudget),
			Check:     cfg.check(r002)},
		{ID: "STALE-003", Section: "000 §Proposal ¶2", Role: RoleDetector,
			Statement: "a challenge prefixes every watched message with the seed's text, in one write, and changes no status or lastTransitionTime",
			Check:     cfg.check(r003)},
		{ID: "STALE-004", Section: "000 §Proposal ¶4", Role: RoleDetector,
			Statement: fmt.Sprintf("a challenge left unanswered for %s more is followed then, within the reaction bound (%s), by one write setting the watched conditions Unknown with the seed's text, their lastTransitionTime moved to the mark", threshold(cfg.UnknownAfter), cfg.AnswerBudget),
			Check:     cfg.check(r004)},
		{ID: "STALE-005", Section: "000 §Proposal ¶5", Role: RoleDetector,
			Statement: fmt.Sprintf("no condition is set Unknown unless a challenge went unanswered, with no movement, for the full threshold (%s)", threshold(cfg.UnknownAfter)),
			Check:     cfg.check(r005)},
		{ID: "STALE-006", Section: "000 §Risks and Mitigations", Role: RoleDetector,
			Statement: "the detector writes a ClusterOperator at most twice per cycle (between two movements of its conditions)",
			Check:     cfg.check(r006)},
		{ID: "STALE-007", Section: "000 §Test Plan", Role: RoleOperator,
			Statement: fmt.Sprintf("a running operator resets a challenged message within the budget (%s), the reaction bound, removing the seed's text: the minimum stale-message update time", cfg.AnswerBudget),
			Check:     cfg.check(r007)},
		{ID: "STALE-008", Section: "000 §Proposal ¶3", Role: RoleOperator,
			Statement: "a running operator answers every challenge by resetting the messages, removing the seed's text, before it would be marked Unknown",
			Check:     cfg.check(r008)},
	}
}

// check is the Check of the rule of index i: its verdict of the rules'
// judging.
func (c Config) check(i int) func(*judge.Judging) judge.Verdict {
	return func(j *judge.Judging) judge.Verdict { return c.verdicts(j)[i] }
}

// judgedKey is the key of the rules of a configuration judging a
// timeline.
type judgedKey struct{ c Config }

// verdicts are the rules' verdicts on j: its reader's judging, made as
// the events passed with these rules, or what the reader kept (the
// timeline folded through it, for a timeline held whole) judged now.
func (c Config) verdicts(j *judge.Judging) []judge.Verdict {
	g := judge.Facts(j, judgedKey{c}, func(events []timeline.Event) *judging {
		k := judge.Facts(j, factsKey{}, func(events []timeline.Event) read { return judge.Fold[read](Online(c), events) })
		if k.judged != nil && k.judged.cfg == c && k.judged.start.Equal(j.Start) {
			return k.judged
		}
		g := newJudging(c, j.Start, false)
		g.replay(k.items)
		return g
	})
	return g.verdicts(j.End)
}

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
