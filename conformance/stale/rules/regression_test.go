package rules

// Regression tests for rule bugs found while the rule tests were written;
// each names the bug it guards against.

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

func regression(t *testing.T, present bool, format string, args ...any) {
	t.Helper()
	if present {
		t.Fatalf("rule bug is back: "+format, args...)
	}
}

// An operator whose watched conditions are all Unknown (e.g. one that
// reports Unknown while starting) and then dies: the reference challenges
// it at +10m and, 10m later, rewrites the messages with the seed's second
// text (the builder writes what the reference writes; this package does
// not run the reference). No status changes (they are Unknown already), so
// facts.classify reads that mark as a challenge; STALE-003 then fails it
// for lacking the prefix and STALE-004 finds the challenge never marked.
func TestRegressionAllUnknownMarkIsReadAsChallenge(t *testing.T) {
	tl := newTimeline().start("0s").operatorWrites("0s", allUnknown(at("0s"))).kill("5m").challenge("10m").mark("20m")

	cfg := DefaultConfig()
	for _, id := range []string{"STALE-003", "STALE-004"} {
		t.Run(id, func(t *testing.T) {
			v := ruleByID(t, cfg, id).Check(judge.NewJudging(tl.events, at("25m")))
			regression(t, v.Status == reports.Fail,
				"conformance/stale/rules/facts.go classify: the reference's Unknown write at +20m on a ClusterOperator whose watched conditions were all Unknown is classified as a challenge; %s fails the reference: %s",
				id, v.Message)
			if v.Status != reports.Pass {
				t.Errorf("%s: %s %s, want pass", id, v.Status, v.Message)
			}
		})
	}
}

// STALE-002: a detector write that is not a challenge (here it only changes
// the Reason of Available, or only an unwatched condition) discharges the
// challenge the ClusterOperator is owed: never challenged, yet it passes.
func TestRegressionSTALE002OtherWriteDischargesChallenge(t *testing.T) {
	for name, tl := range map[string]*builder{
		"reason only":       newTimeline().created("0s").detector("1m", reason("Checked", "Available")),
		"unwatched only":    newTimeline().created("0s").detector("1m", nonWatched("1m")),
		"reason at the due": newTimeline().created("0s").detector("10m", reason("Checked", "Available")),
	} {
		t.Run(name, func(t *testing.T) {
			v := ruleByID(t, DefaultConfig(), "STALE-002").Check(judge.NewJudging(tl.events, at("30m")))
			regression(t, v.Status == reports.Pass,
				"conformance/stale/rules/detector_rules.go due: any detector write resets the owed challenge; still from +0s to +30m, never challenged, verdict %s %q",
				v.Status, v.Message)
			if v.Status != reports.Fail || !strings.Contains(v.Message, "ClusterOperator/etcd was still from +0s and due a challenge at +10m0s") {
				t.Errorf("%s %q, want a failure naming the challenge due at +10m0s", v.Status, v.Message)
			}
		})
	}
}

// STALE-002: when the operator moves after the challenge was due, the
// message says "nothing from the detector by the end of the run at <the
// move's time>" and the evidence leaves the move out.
func TestRegressionSTALE002LateMoveMessage(t *testing.T) {
	tl := newTimeline().created("0s").operator("15m", message("Rolling out", "Progressing"))
	v := ruleByID(t, DefaultConfig(), "STALE-002").Check(judge.NewJudging(tl.events, at("16m")))
	if v.Status != reports.Fail {
		t.Fatalf("status %s, want fail", v.Status)
	}
	regression(t, len(v.Evidence) == 1,
		"conformance/stale/rules/detector_rules.go due: a late move is reported as %q with evidence %v (the move at +15m0s is missing)",
		v.Message, evidenceOffsets(v.Evidence))
	checkVerdict(t, ruleCase{want: reports.Fail, message: []string{"due a challenge at +10m0s", "+15m0s"}, evidence: []string{"0s", "15m"}}, v)
}

// STALE-003 and STALE-004 range over a map of conditions: with more than one
// problem, which one the message names changes from call to call, and the same
// event is repeated in the evidence once per problem. Reports of one timeline
// should be byte for byte the same (one seed and one scenario give one
// timeline).
func TestRegressionMessagesAreNotDeterministic(t *testing.T) {
	for _, tc := range []struct {
		id  string
		tl  *builder
		end string
	}{
		{"STALE-003", newTimeline().created("0s").detector("10m", prefix("Available", "Degraded")), "15m"},
		{"STALE-004", newTimeline().created("0s").kill("5m").challenge("10m").
			detector("20m", staleMark(d("20m"), at("20m"), "Available")), "25m"},
	} {
		t.Run(tc.id, func(t *testing.T) {
			rule := ruleByID(t, DefaultConfig(), tc.id)
			seen := map[string]bool{}
			var v judge.Verdict
			for range 200 {
				v = rule.Check(judge.NewJudging(tc.tl.events, at(tc.end)))
				seen[v.Message] = true
			}
			var seqs []int
			for _, e := range v.Evidence {
				seqs = append(seqs, e.Seq)
			}
			dup := len(slices.Compact(slices.Sorted(slices.Values(seqs)))) != len(seqs)
			regression(t, len(seen) > 1 || dup,
				"conformance/stale/rules/detector_rules.go %s ranges over a map: %d distinct messages for one timeline, evidence seqs %v",
				tc.id, len(seen), seqs)
		})
	}
}

// STALE-007: the search for the reply stops at the next detector write: the
// operator's write after it was marked Unknown is no reset, and the wait is
// measured to the mark.
func TestRegressionSTALE007ReplyAfterMark(t *testing.T) {
	tl := newTimeline().start("0s").created("0s").challenge("10m").mark("20m").
		operatorWrites("25m", healthy(at("25m")))
	v := ruleByID(t, DefaultConfig(), "STALE-007").Check(judge.NewJudging(tl.events, at("30m")))
	if v.Status != reports.Fail {
		t.Fatalf("status %s, want fail", v.Status)
	}
	regression(t, len(v.Measures) == 1 && v.Measures[0].Max == d("15m"),
		"conformance/stale/rules/operator_rules.go challengesToLiveOperators: the reply is searched past the mark at +20m0s: %q, measured %s",
		v.Message, fmt.Sprint(v.Measures[0].Max))
	checkVerdict(t, ruleCase{want: reports.Fail, message: []string{"never reset"}, evidence: []string{"10m"},
		measures: []reports.Measure{wantLatencies("etcd", 1, "10m", "10m", "10m")}}, v)
}

// allUnknown are the four watched conditions of an operator starting up.
func allUnknown(ltt time.Time) []timeline.Condition {
	var out []timeline.Condition
	for _, typ := range []string{"Available", "Degraded", "Progressing", "Upgradeable"} {
		c := cond(typ, "Unknown", "Operator is starting", ltt)
		c.Reason = "Starting"
		out = append(out, c)
	}
	return out
}
