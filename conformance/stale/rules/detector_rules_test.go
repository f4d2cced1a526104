package rules

import (
	"strings"
	"testing"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// nonWatched is a ClusterOperator condition the detector does not look at.
func nonWatched(off string) edit {
	return upsert(cond("EvaluationConditionsDetected", "False", "Nothing to evaluate at "+off, at(off)))
}

// 000 §Proposal ¶2: no challenge before 10 minutes of stillness.
func TestSTALE001NotEarly(t *testing.T) {
	runTable(t, "STALE-001", []ruleCase{
		{name: "reference: challenged at +10m and again 10m after the answer",
			tl: answering(), end: "25m", want: reports.Pass, message: []string{"2 judged"}},
		{name: "reference: dead operator challenged at +10m",
			tl: dying(), end: "25m", want: reports.Pass, message: []string{"1 judged"}},
		{name: "Failing-typed ClusterOperator",
			tl:  newTimeline().operatorWrites("0s", healthyFailing(at("0s"))).challenge("10m").answer("10m2s"),
			end: "15m", want: reports.Pass},
		{name: "a change of an unwatched condition is not movement",
			tl:  newTimeline().created("0s").operator("5m", nonWatched("5m")).challenge("10m"),
			end: "15m", want: reports.Pass},
		{name: "a failed early write is not a challenge",
			tl:  newTimeline().created("0s").challenge("5m").failed().challenge("10m"),
			end: "15m", want: reports.Pass, message: []string{"1 judged"}},
		{name: "challenged at +5m",
			tl:  newTimeline().created("0s").challenge("5m"),
			end: "15m", want: reports.Fail, message: []string{"+5m0s", "+0s"}, evidence: []string{"0s", "5m"}},
		{name: "challenged again 5m after the answer",
			tl:  newTimeline().created("0s").challenge("10m").answer("10m2s").challenge("15m2s"),
			end: "20m", want: reports.Fail, message: []string{"+15m2s", "+10m2s"}, evidence: []string{"10m2s", "15m2s"}},
		{name: "a message-only change is movement",
			tl:  newTimeline().created("0s").operator("5m", message("Rolling out", "Progressing")).challenge("10m"),
			end: "15m", want: reports.Fail, message: []string{"+10m0s", "+5m0s"}, evidence: []string{"5m", "10m"}},
		{name: "Failing is watched like Degraded: its movement postpones the challenge",
			tl: newTimeline().operatorWrites("0s", healthyFailing(at("0s"))).
				operator("5m", status("True", at("5m"), "Failing"), message("Broken", "Failing")).challenge("10m"),
			end: "15m", want: reports.Fail, message: []string{"+10m0s", "+5m0s"}, evidence: []string{"5m", "10m"}},
		{name: "the failure names the early ClusterOperator",
			tl: newTimeline().created("0s").on("dns").created("3m").
				on("etcd").challenge("10m").on("dns").challenge("10m"),
			end: "15m", want: reports.Fail, co: "dns", message: []string{"+10m0s", "+3m0s"}, evidence: []string{"3m", "10m"}},
		{name: "500ms early within a tolerance of 1s",
			tl: newTimeline().created("0s").challenge("9m59.5s"), end: "15m", tolerance: "1s", want: reports.Pass},
		{name: "500ms early exactly",
			tl: newTimeline().created("0s").challenge("9m59.5s"), end: "15m",
			want: reports.Fail, message: []string{"+9m59.5s"}, evidence: []string{"0s", "9m59.5s"}},
		{name: "no challenge", tl: newTimeline().created("0s"), end: "30m", want: reports.Skip},
		{name: "empty timeline", tl: newTimeline(), end: "30m", want: reports.Skip},
		{name: "process events only", tl: newTimeline().start("0s").kill("5m"), end: "30m", want: reports.Skip},
	})
}

// 000 §Proposal ¶2: a ClusterOperator still for 10 minutes is challenged
// then, within the reaction bound.
func TestSTALE002Due(t *testing.T) {
	runTable(t, "STALE-002", []ruleCase{
		{name: "reference: challenged at +10m and again 10m after the answer",
			tl: answering(), end: "25m", want: reports.Pass, message: []string{"2 judged"},
			measures: wantLateness(challengeLateness, 2, "0s", "0s", "0s")},
		{name: "reference: dead operator challenged and marked, then owed nothing",
			tl: dying(), end: "1h", want: reports.Pass, message: []string{"1 judged"}},
		{name: "Failing-typed ClusterOperator",
			tl:  newTimeline().operatorWrites("0s", healthyFailing(at("0s"))).challenge("10m"),
			end: "15m", want: reports.Pass},
		{name: "first challenge at +15m",
			tl:  newTimeline().created("0s").challenge("15m"),
			end: "20m", want: reports.Fail, message: []string{"still from +0s", "due a challenge at +10m0s", "within the 30s reaction bound", "+15m0s"},
			evidence: []string{"0s", "15m"}, measures: wantLateness(challengeLateness, 1, "5m", "5m", "5m")},
		{name: "no challenge by the end",
			tl:  newTimeline().created("0s"),
			end: "30m", want: reports.Fail, message: []string{"due a challenge at +10m0s", "end of the run at +30m0s"},
			evidence: []string{"0s"}},
		{name: "answered, then not challenged again",
			tl:  newTimeline().created("0s").challenge("10m").answer("10m2s"),
			end: "25m", want: reports.Fail, message: []string{"still from +10m2s", "due a challenge at +20m2s"},
			evidence: []string{"10m2s"}},
		{name: "a change of an unwatched condition does not postpone the challenge",
			tl:  newTimeline().created("0s").operator("5m", nonWatched("5m")).challenge("15m"),
			end: "20m", want: reports.Fail, message: []string{"due a challenge at +10m0s", "+15m0s"},
			evidence: []string{"0s", "15m"}},
		{name: "a change of an unwatched condition is no reason to challenge",
			tl:  newTimeline().created("0s").operator("5m", nonWatched("5m")).challenge("10m"),
			end: "15m", want: reports.Pass},
		{name: "the failure names the forgotten ClusterOperator",
			tl:  answering().on("dns").created("0s"),
			end: "25m", want: reports.Fail, co: "dns", message: []string{"due a challenge at +10m0s"},
			evidence: []string{"0s"}},
		{name: "faithful: challenged 20s late, on a resync, within the reaction bound",
			tl: newTimeline().created("0s").challenge("10m20s"), end: "15m", want: reports.Pass,
			measures: wantLateness(challengeLateness, 1, "20s", "20s", "20s")},
		{name: "faithful: challenged at the reaction bound",
			tl: newTimeline().created("0s").challenge("10m30s"), end: "15m", want: reports.Pass},
		{name: "500ms past the reaction bound within a tolerance of 1s",
			tl: newTimeline().created("0s").challenge("10m30.5s"), end: "15m", tolerance: "1s", want: reports.Pass},
		{name: "500ms past the reaction bound",
			tl: newTimeline().created("0s").challenge("10m30.5s"), end: "15m",
			want: reports.Fail, message: []string{"+10m30.5s", "due a challenge at +10m0s"}, evidence: []string{"0s", "10m30.5s"},
			measures: wantLateness(challengeLateness, 1, "30.5s", "30.5s", "30.5s")},
		{name: "faithful: faulted 5s into its reaction bound, it challenges 10m after the fault clears",
			tl:  newTimeline().detectorStarts("0s").created("0s").detectorFault("10m5s").detectorClear("11m5s").challenge("11m26s"),
			end: "15m", want: reports.Pass, measures: wantLateness(challengeLateness, 1, "0s", "0s", "0s")},
		{name: "faulted after its reaction bound: the challenge was owed before",
			tl:  newTimeline().detectorStarts("0s").created("0s").detectorFault("10m31s").detectorClear("11m5s").challenge("11m26s"),
			end: "15m", want: reports.Fail, message: []string{"due a challenge at +10m0s"}, evidence: []string{"0s", "11m26s"}},
		{name: "the run ends before the challenge is due",
			tl: newTimeline().created("0s"), end: "5m", want: reports.Skip},
		{name: "the run ends when the challenge is due",
			tl: newTimeline().created("0s"), end: "10m", want: reports.Skip},
		{name: "empty timeline", tl: newTimeline(), end: "30m", want: reports.Skip},
	})
}

// 000 §Proposal ¶2: the challenge prefixes every watched message, in one
// write, with the seed's text, and changes no status or transition time.
func TestSTALE003ChallengeText(t *testing.T) {
	// The seed's text without its trailing space.
	noSpace := strings.TrimSuffix(challengePrefix, " ")
	runTable(t, "STALE-003", []ruleCase{
		{name: "reference: all four prefixed",
			tl: answering(), end: "25m", want: reports.Pass, message: []string{"2 judged"}},
		{name: "reference: Failing-typed ClusterOperator",
			tl:  newTimeline().operatorWrites("0s", healthyFailing(at("0s"))).challenge("10m"),
			end: "15m", want: reports.Pass},
		{name: "only the watched conditions present are prefixed",
			tl: newTimeline().operatorWrites("0s", []timeline.Condition{
				cond("Available", "True", "All is well", at("0s")),
				cond("Degraded", "False", "No problems", at("0s")),
				cond("EvaluationConditionsDetected", "False", "None", at("0s")),
			}).challenge("10m"),
			end: "15m", want: reports.Pass},
		{name: "wrong prefix",
			tl:  newTimeline().created("0s").detector("10m", prefixWith("Operator checking for stale status: ")),
			end: "15m", want: reports.Fail, message: []string{"+10m0s", challengePrefix},
			evidence: []string{"10m"}},
		{name: "prefix without its trailing space",
			tl:  newTimeline().created("0s").detector("10m", prefixWith(noSpace)),
			end: "15m", want: reports.Fail, message: []string{"+10m0s"}, evidence: []string{"10m"}},
		{name: "only two of four prefixed",
			tl:  newTimeline().created("0s").detector("10m", prefix("Available", "Degraded")),
			end: "15m", want: reports.Fail, message: []string{"+10m0s"}, evidence: []string{"10m"}},
		{name: "four prefixed in two writes",
			tl: newTimeline().created("0s").
				detector("10m", prefix("Available", "Degraded")).detector("10m", prefix("Progressing", "Upgradeable")),
			end: "15m", want: reports.Fail, message: []string{"+10m0s"}, evidence: []string{"10m"}},
		{name: "status changed in the challenge",
			tl:  newTimeline().created("0s").detector("10m", prefix(), status("False", at("10m"), "Upgradeable")),
			end: "15m", want: reports.Fail, message: []string{"Upgradeable", "+10m0s", "not only the message"},
			evidence: []string{"10m"}},
		{name: "faithful: a reason of the detector's own in the challenge (the seed names none)",
			tl:  newTimeline().created("0s").detector("10m", prefix(), reason("StaleCheck", "Available")),
			end: "15m", want: reports.Pass},
		{name: "transition time moved in the challenge",
			tl: newTimeline().created("0s").detector("10m", prefix(),
				each(func(c *timeline.Condition) { c.LastTransitionTime = at("10m") }, "Progressing")),
			end: "15m", want: reports.Fail, message: []string{"Progressing", "not only the message"},
			evidence: []string{"10m"}},
		{name: "Failing is watched like Degraded: left unprefixed",
			tl: newTimeline().operatorWrites("0s", healthyFailing(at("0s"))).
				detector("10m", prefix("Available", "Progressing", "Upgradeable")),
			end: "15m", want: reports.Fail, message: []string{"Failing", "+10m0s"}, evidence: []string{"10m"}},
		{name: "the failure names the ClusterOperator",
			tl:  answering().on("dns").created("0s").detector("10m", prefix("Available")),
			end: "25m", want: reports.Fail, co: "dns", message: []string{"+10m0s"}, evidence: []string{"10m"}},
		{name: "no challenge", tl: newTimeline().created("0s"), end: "30m", want: reports.Skip},
		{name: "a mark is not a challenge",
			tl: newTimeline().created("0s").mark("20m"), end: "30m", want: reports.Skip},
	})
}

// 000 §Proposal ¶4: an unanswered challenge is followed 10m later, within
// the reaction bound, by one write setting the watched conditions Unknown
// with the seed's text.
func TestSTALE004Marked(t *testing.T) {
	runTable(t, "STALE-004", []ruleCase{
		{name: "reference: dead operator marked at +20m",
			tl: dying(), end: "25m", want: reports.Pass, message: []string{"1 judged"},
			measures: wantLateness(markLateness, 1, "0s", "0s", "0s")},
		{name: "reference: Failing-typed ClusterOperator",
			tl:  newTimeline().operatorWrites("0s", healthyFailing(at("0s"))).kill("5m").challenge("10m").mark("20m"),
			end: "25m", want: reports.Pass},
		{name: "reference: a condition already Unknown keeps its status and is quoted as Unknown",
			tl: newTimeline().operatorWrites("0s", healthy(at("0s"))).
				operator("1m", status("Unknown", at("1m"), "Upgradeable")).kill("5m").challenge("11m").mark("21m"),
			end: "25m", want: reports.Pass},
		{name: "reference: two death cycles",
			tl: dying().start("30m").operatorWrites("30m", healthy(at("30m"))).kill("31m").
				challenge("40m").mark("50m"),
			end: "55m", want: reports.Pass, message: []string{"2 judged"}},
		{name: "faithful: marked 25s late, on a resync, within the reaction bound",
			tl:  newTimeline().created("0s").kill("5m").challenge("10m").mark("20m25s"),
			end: "25m", want: reports.Pass, measures: wantLateness(markLateness, 1, "25s", "25s", "25s")},
		{name: "marked 500ms past the reaction bound within a tolerance of 1s",
			tl:  newTimeline().created("0s").kill("5m").challenge("10m").mark("20m30.5s"),
			end: "25m", tolerance: "1s", want: reports.Pass},
		{name: "marked 500ms past the reaction bound",
			tl:  newTimeline().created("0s").kill("5m").challenge("10m").mark("20m30.5s"),
			end: "25m", want: reports.Fail, message: []string{"+20m30.5s", "want it at +20m0s (or within the 30s reaction bound)"}, evidence: []string{"10m", "20m30.5s"},
			measures: wantLateness(markLateness, 1, "30.5s", "30.5s", "30.5s")},
		{name: "faithful: answered within the reaction bound of the mark's deadline, not marked",
			tl:  newTimeline().created("0s").challenge("10m").answer("20m10s"),
			end: "25m", want: reports.Skip},
		{name: "not marked",
			tl:  newTimeline().created("0s").kill("5m").challenge("10m"),
			end: "25m", want: reports.Fail, message: []string{"challenged at +10m0s", "not set Unknown at +20m0s"},
			evidence: []string{"10m"}, measures: wantLateness(markLateness, 1, "5m", "5m", "5m")},
		{name: "marked at +21m",
			tl:  newTimeline().created("0s").kill("5m").challenge("10m").mark("21m"),
			end: "25m", want: reports.Fail, message: []string{"+10m0s", "set Unknown at +21m0s, want it at +20m0s"},
			evidence: []string{"10m", "21m"}},
		{name: "marked at +19m",
			tl:  newTimeline().created("0s").kill("5m").challenge("10m").mark("19m"),
			end: "25m", want: reports.Fail, message: []string{"set Unknown at +19m0s, want it at +20m0s"},
			evidence: []string{"10m", "19m"}},
		{name: "wrong duration in the text",
			tl:  newTimeline().created("0s").kill("5m").challenge("10m").detector("20m", staleMark(d("10m"), at("20m"))),
			end: "25m", want: reports.Fail, message: []string{"+20m0s", "more than 20 minutes"},
			evidence: []string{"10m", "20m"}},
		{name: "the text quotes the challenged message",
			tl: newTimeline().created("0s").kill("5m").challenge("10m").detector("20m",
				each(func(c *timeline.Condition) {
					c.Message = staleMessage(d("20m"), "True", c.Message)
					c.Status = "Unknown"
				})),
			end: "25m", want: reports.Fail, message: []string{"+20m0s"}, evidence: []string{"10m", "20m"}},
		{name: "faithful: the mark gives a reason of its own (the seed names none)",
			tl: newTimeline().created("0s").kill("5m").challenge("10m").detector("20m", staleMark(d("20m"), at("20m")),
				reason("OperatorFailedStalenessCheck")),
			end: "25m", want: reports.Pass},
		{name: "the mark leaves lastTransitionTime behind",
			tl:  newTimeline().created("0s").kill("5m").challenge("10m").detector("20m", staleMark(d("20m"), at("0s"))),
			end: "25m", want: reports.Fail, message: []string{"lastTransitionTime is +0s after the mark at +20m0s, want the mark's time"}, evidence: []string{"10m", "20m"}},
		{name: "only Available set Unknown",
			tl:  newTimeline().created("0s").kill("5m").challenge("10m").detector("20m", staleMark(d("20m"), at("20m"), "Available")),
			end: "25m", want: reports.Fail, message: []string{"+20m0s"}, evidence: []string{"10m", "20m"}},
		{name: "Failing is watched like Degraded: left as it was",
			tl: newTimeline().operatorWrites("0s", healthyFailing(at("0s"))).kill("5m").challenge("10m").
				detector("20m", staleMark(d("20m"), at("20m"), "Available", "Progressing", "Upgradeable")),
			end: "25m", want: reports.Fail, message: []string{"Failing", "+20m0s"}, evidence: []string{"10m", "20m"}},
		{name: "answered too late, never marked",
			tl:  newTimeline().created("0s").challenge("10m").answer("25m"),
			end: "30m", want: reports.Fail, message: []string{"not set Unknown at +20m0s"}, evidence: []string{"10m"}},
		{name: "the failure names the ClusterOperator",
			tl:  dying().on("dns").created("0s").challenge("10m"),
			end: "25m", want: reports.Fail, co: "dns", message: []string{"not set Unknown at +20m0s"}, evidence: []string{"10m"}},
		{name: "every challenge answered", tl: answering(), end: "25m", want: reports.Skip},
		{name: "the run ends before the mark is due",
			tl: newTimeline().created("0s").kill("5m").challenge("10m"), end: "15m", want: reports.Skip},
		{name: "the run ends when the mark is due",
			tl: newTimeline().created("0s").kill("5m").challenge("10m"), end: "20m", want: reports.Skip},
		{name: "no challenge", tl: newTimeline().created("0s"), end: "30m", want: reports.Skip},
	})
}

// 000 §Proposal ¶5: Unknown only after a challenge left unanswered, with no
// movement, for the full 10 minutes.
func TestSTALE005MarkJustified(t *testing.T) {
	runTable(t, "STALE-005", []ruleCase{
		{name: "reference: dead operator marked at +20m",
			tl: dying(), end: "25m", want: reports.Pass, message: []string{"1 judged"}},
		{name: "reference: two death cycles",
			tl: dying().start("30m").operatorWrites("30m", healthy(at("30m"))).kill("31m").
				challenge("40m").mark("50m"),
			end: "55m", want: reports.Pass, message: []string{"2 judged"}},
		{name: "marked 500ms early within a tolerance of 1s",
			tl:  newTimeline().created("0s").kill("5m").challenge("10m").mark("19m59.5s"),
			end: "25m", tolerance: "1s", want: reports.Pass},
		{name: "marked 500ms early exactly",
			tl:  newTimeline().created("0s").kill("5m").challenge("10m").mark("19m59.5s"),
			end: "25m", want: reports.Fail, message: []string{"+19m59.5s", "only 9m59.5s after the challenge"},
			evidence: []string{"10m", "19m59.5s"}},
		{name: "marked after the operator answered",
			tl:  newTimeline().created("0s").challenge("10m").answer("10m2s").mark("20m"),
			end: "25m", want: reports.Fail, message: []string{"+20m0s", "moved at +10m2s", "challenge at +10m0s"},
			evidence: []string{"10m", "10m2s", "20m"}},
		{name: "marked without a challenge",
			tl:  newTimeline().created("0s").kill("5m").mark("20m"),
			end: "25m", want: reports.Fail, message: []string{"set Unknown at +20m0s without a challenge"},
			evidence: []string{"20m"}},
		{name: "marked again after the operator came back, without a new challenge",
			tl:  dying().start("30m").operatorWrites("30m", healthy(at("30m"))).kill("31m").mark("40m"),
			end: "45m", want: reports.Fail, message: []string{"set Unknown at +40m0s without a challenge"},
			evidence: []string{"40m"}},
		{name: "marked 5m after the challenge",
			tl:  newTimeline().created("0s").kill("5m").challenge("10m").mark("15m"),
			end: "25m", want: reports.Fail, message: []string{"+15m0s", "only 5m0s after the challenge"},
			evidence: []string{"10m", "15m"}},
		{name: "the failure names the ClusterOperator",
			tl:  dying().on("dns").created("0s").mark("20m"),
			end: "25m", want: reports.Fail, co: "dns", message: []string{"without a challenge"}, evidence: []string{"20m"}},
		{name: "nothing set Unknown", tl: answering(), end: "25m", want: reports.Skip},
		{name: "challenged, not yet marked",
			tl: newTimeline().created("0s").kill("5m").challenge("10m"), end: "15m", want: reports.Skip},
	})
}

// 000 §Risks and Mitigations: at most two detector writes per cycle.
func TestSTALE006WritesPerCycle(t *testing.T) {
	runTable(t, "STALE-006", []ruleCase{
		{name: "reference: one write per answered cycle",
			tl: answering(), end: "25m", want: reports.Pass, message: []string{"2 judged"}},
		{name: "reference: challenge and mark",
			tl: dying(), end: "1h", want: reports.Pass, message: []string{"1 judged"}},
		{name: "reference: two death cycles",
			tl: dying().start("30m").operatorWrites("30m", healthy(at("30m"))).kill("31m").
				challenge("40m").mark("50m"),
			end: "55m", want: reports.Pass, message: []string{"2 judged"}},
		{name: "a failed third write is not a write",
			tl: dying().detector("25m", message("Still stale")).failed(), end: "30m", want: reports.Pass},
		{name: "three detector writes: challenge, mark, rewrite",
			tl:  dying().detector("25m", message("Still stale")),
			end: "30m", want: reports.Fail, message: []string{"3 detector writes between +10m0s and +25m0s"},
			evidence: []string{"10m", "20m", "25m"}},
		{name: "challenged three times",
			tl:  newTimeline().created("0s").challenge("10m").challenge("11m").challenge("12m"),
			end: "15m", want: reports.Fail, message: []string{"3 detector writes between +10m0s and +12m0s"},
			evidence: []string{"10m", "11m", "12m"}},
		{name: "a write that changes nothing watched counts",
			tl:  dying().detector("30m", nonWatched("30m")),
			end: "35m", want: reports.Fail, message: []string{"3 detector writes between +10m0s and +30m0s"},
			evidence: []string{"10m", "20m", "30m"}},
		{name: "the failure names the ClusterOperator",
			tl:  answering().on("dns").created("0s").challenge("10m").challenge("11m").challenge("12m"),
			end: "25m", want: reports.Fail, co: "dns", message: []string{"3 detector writes"},
			evidence: []string{"10m", "11m", "12m"}},
		{name: "no detector write", tl: newTimeline().created("0s").answer("5m"), end: "8m", want: reports.Skip},
	})
}
