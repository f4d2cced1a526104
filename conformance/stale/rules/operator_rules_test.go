package rules

import (
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// 000 §Test Plan: a running operator resets the challenged messages within
// 30s; the rule reports count, p50, p99 and max per ClusterOperator.
func TestSTALE007AnswerTime(t *testing.T) {
	runTable(t, "STALE-007", []ruleCase{
		{name: "reference: answered after 2s, twice",
			tl: answering(), end: "25m", want: reports.Pass, message: []string{"2 judged"},
			measures: []reports.Measure{wantLatencies("etcd", 2, "2s", "2s", "2s")}},
		{name: "answered at exactly the budget",
			tl:  newTimeline().created("0s").challenge("10m").answer("10m30s"),
			end: "15m", want: reports.Pass, measures: []reports.Measure{wantLatencies("etcd", 1, "30s", "30s", "30s")}},
		{name: "Failing-typed ClusterOperator",
			tl:  newTimeline().operatorWrites("0s", healthyFailing(at("0s"))).challenge("10m").answer("10m2s"),
			end: "15m", want: reports.Pass, measures: []reports.Measure{wantLatencies("etcd", 1, "2s", "2s", "2s")}},
		{name: "answered after 45s",
			tl:  newTimeline().created("0s").challenge("10m").answer("10m45s"),
			end: "15m", want: reports.Fail, message: []string{"challenged at +10m0s", "reset after 45s", "30s budget"},
			evidence: []string{"10m", "10m45s"},
			measures: []reports.Measure{wantLatencies("etcd", 1, "45s", "45s", "45s")}},
		{name: "never answered: the latency counts to the end",
			tl:  newTimeline().created("0s").challenge("10m"),
			end: "15m", want: reports.Fail, message: []string{"challenged at +10m0s was never reset"},
			evidence: []string{"10m"}, measures: []reports.Measure{wantLatencies("etcd", 1, "5m", "5m", "5m")}},
		{name: "Failing left challenged is no answer",
			tl: newTimeline().operatorWrites("0s", healthyFailing(at("0s"))).challenge("10m").
				operator("10m2s", unprefix("Available", "Progressing", "Upgradeable")),
			end: "15m", want: reports.Fail, message: []string{"never reset"}, evidence: []string{"10m"},
			measures: []reports.Measure{wantLatencies("etcd", 1, "5m", "5m", "5m")}},
		{name: "faithful: answered with messages of its own, each behind its condition type",
			tl: newTimeline().created("0s").challenge("10m").
				operator("10m20s", each(func(c *timeline.Condition) {
					c.Message = "Operator" + c.Type + ": " + strings.TrimPrefix(c.Message, challengePrefix)
				})),
			end: "15m", want: reports.Pass, measures: []reports.Measure{wantLatencies("etcd", 1, "20s", "20s", "20s")}},
		{name: "the seed's text kept behind a prefix of the operator's own is no answer",
			tl: newTimeline().created("0s").challenge("10m").
				operator("10m2s", each(func(c *timeline.Condition) { c.Message = "Operator" + c.Type + ": " + c.Message })),
			end: "15m", want: reports.Fail, message: []string{"never reset"}, evidence: []string{"10m"},
			measures: []reports.Measure{wantLatencies("etcd", 1, "5m", "5m", "5m")}},
		{name: "percentiles are nearest-rank: 2s, 3s, 45s",
			tl: newTimeline().created("0s").challenge("10m").answer("10m2s").challenge("20m2s").answer("20m5s").
				challenge("30m5s").answer("30m50s"),
			end: "35m", want: reports.Fail, message: []string{"challenged at +30m5s", "reset after 45s"},
			evidence: []string{"30m5s", "30m50s"},
			measures: []reports.Measure{wantLatencies("etcd", 3, "3s", "45s", "45s")}},
		{name: "one measure per ClusterOperator, by name",
			tl:  answering().on("dns").created("0s").challenge("10m").answer("10m5s"),
			end: "25m", want: reports.Pass, message: []string{"3 judged"},
			measures: []reports.Measure{wantLatencies("dns", 1, "5s", "5s", "5s"), wantLatencies("etcd", 2, "2s", "2s", "2s")}},
		{name: "the failure names the slow ClusterOperator",
			tl:  answering().on("dns").created("0s").challenge("10m").answer("10m45s"),
			end: "25m", want: reports.Fail, co: "dns", message: []string{"reset after 45s"}, evidence: []string{"10m", "10m45s"},
			measures: []reports.Measure{wantLatencies("dns", 1, "45s", "45s", "45s"), wantLatencies("etcd", 2, "2s", "2s", "2s")}},
		{name: "500ms over the budget within a tolerance of 1s",
			tl:  newTimeline().created("0s").challenge("10m").answer("10m30.5s"),
			end: "15m", tolerance: "1s", want: reports.Pass,
			measures: []reports.Measure{wantLatencies("etcd", 1, "30.5s", "30.5s", "30.5s")}},
		{name: "500ms over the budget exactly",
			tl:  newTimeline().created("0s").challenge("10m").answer("10m30.5s"),
			end: "15m", want: reports.Fail, message: []string{"reset after 30.5s"}, evidence: []string{"10m", "10m30.5s"},
			measures: []reports.Measure{wantLatencies("etcd", 1, "30.5s", "30.5s", "30.5s")}},

		// Excused: the operator was down during the challenge's 30s.
		{name: "killed before, started after the challenge",
			tl:  newTimeline().start("0s").created("0s").kill("5m").challenge("10m").start("12m").answer("12m1s"),
			end: "15m", want: reports.Skip},
		{name: "hung before, reconnected within the window",
			tl:  newTimeline().start("0s").created("0s").hang("9m").challenge("10m").reconnect("10m20s").answer("10m45s"),
			end: "15m", want: reports.Skip},
		{name: "killed within the window",
			tl:  newTimeline().start("0s").created("0s").challenge("10m").kill("10m10s"),
			end: "15m", want: reports.Skip},
		{name: "reference: dead operator", tl: dying(), end: "25m", want: reports.Skip},
		// A ClusterOperator only the scenario wrote has no operator to
		// answer: its challenge is not held against the subject.
		{name: "created with status by the scenario, never answered",
			tl: answering().on("extra").scenarioCreated("0s").challenge("10m"), end: "25m", want: reports.Pass,
			message: []string{"2 judged"}, measures: []reports.Measure{wantLatencies("etcd", 2, "2s", "2s", "2s")}},
		{name: "created by the scenario, then written by an operator: later challenges are its own",
			tl:  newTimeline().scenarioCreated("0s").challenge("10m").operator("12m", message("Rolling out", "Progressing")).challenge("22m"),
			end: "25m", want: reports.Fail, message: []string{"challenged at +22m0s was never reset"}, evidence: []string{"22m"},
			measures: []reports.Measure{wantLatencies("etcd", 1, "3m", "3m", "3m")}},
		// Not excused: the outage was over before the challenge, or was another operator's.
		{name: "hung and reconnected before the challenge",
			tl:  newTimeline().start("0s").created("0s").hang("5m").reconnect("6m").challenge("10m"),
			end: "15m", want: reports.Fail, message: []string{"never reset"}, evidence: []string{"10m"},
			measures: []reports.Measure{wantLatencies("etcd", 1, "5m", "5m", "5m")}},
		{name: "killed and restarted before the challenge",
			tl:  newTimeline().start("0s").created("0s").kill("5m").start("8m").challenge("10m").answer("10m45s"),
			end: "15m", want: reports.Fail, message: []string{"reset after 45s"}, evidence: []string{"10m", "10m45s"},
			measures: []reports.Measure{wantLatencies("etcd", 1, "45s", "45s", "45s")}},
		{name: "another operator was down",
			tl:  newTimeline().on("dns").kill("5m").on("etcd").created("0s").challenge("10m").answer("10m45s"),
			end: "15m", want: reports.Fail, message: []string{"reset after 45s"}, evidence: []string{"10m", "10m45s"},
			measures: []reports.Measure{wantLatencies("etcd", 1, "45s", "45s", "45s")}},

		// Not yet judgeable: the window runs past the end of the run.
		{name: "answered, and the run ends within the window: the answer is judged",
			tl:  newTimeline().created("0s").challenge("10m").answer("10m2s"),
			end: "10m20s", want: reports.Pass, message: []string{"1 judged"}, measures: []reports.Measure{wantLatencies("etcd", 1, "2s", "2s", "2s")}},
		{name: "unanswered, and the run ends within the window: not judged",
			tl:  newTimeline().created("0s").challenge("10m"),
			end: "10m20s", want: reports.Skip},
		{name: "the run ends with the window",
			tl:  newTimeline().created("0s").challenge("10m").answer("10m2s"),
			end: "10m30s", want: reports.Pass, measures: []reports.Measure{wantLatencies("etcd", 1, "2s", "2s", "2s")}},
		{name: "no challenge", tl: newTimeline().created("0s"), end: "30m", want: reports.Skip},
	})
}

// 000 §Proposal ¶3: a running operator answers every challenge before it
// would be marked Unknown.
func TestSTALE008Answered(t *testing.T) {
	runTable(t, "STALE-008", []ruleCase{
		{name: "reference: both challenges answered",
			tl: answering(), end: "31m", want: reports.Pass, message: []string{"2 judged"}},
		{name: "reference: the second challenge's window runs past the end, answered all the same",
			tl: answering(), end: "25m", want: reports.Pass, message: []string{"2 judged"}},
		{name: "the seed's text kept behind a prefix of the operator's own is no answer",
			tl: newTimeline().created("0s").challenge("10m").
				operator("10m2s", each(func(c *timeline.Condition) { c.Message = "Operator" + c.Type + ": " + c.Message })),
			end: "25m", want: reports.Fail, message: []string{"challenged at +10m0s"}, evidence: []string{"10m"}},
		{name: "faithful: a message that held the seed's text before the challenge may hold it after",
			tl: newTimeline().created("0s").operator("1m", message(challengePrefix+"quoted", "Available")).challenge("11m").
				operator("11m2s", message(challengePrefix+"quoted, again", "Available"), unprefix("Degraded", "Progressing", "Upgradeable")),
			end: "25m", want: reports.Pass},
		{name: "answered late, but before the mark",
			tl:  newTimeline().created("0s").challenge("10m").answer("19m59s"),
			end: "25m", want: reports.Pass},
		{name: "not answered, marked at +20m",
			tl:  newTimeline().start("0s").created("0s").challenge("10m").mark("20m"),
			end: "25m", want: reports.Fail,
			message:  []string{"challenged at +10m0s was not reset within 10m0s although its operator was running"},
			evidence: []string{"10m"}},
		{name: "answered when the mark was due",
			tl:  newTimeline().created("0s").challenge("10m").answer("20m"),
			end: "25m", want: reports.Fail, message: []string{"challenged at +10m0s"}, evidence: []string{"10m"}},
		{name: "never answered",
			tl:  newTimeline().created("0s").challenge("10m"),
			end: "25m", want: reports.Fail, message: []string{"challenged at +10m0s"}, evidence: []string{"10m"}},
		{name: "created with status by the scenario: no operator's to answer",
			tl: newTimeline().scenarioCreated("0s").challenge("10m").mark("20m"), end: "25m", want: reports.Skip},
		{name: "Failing left challenged is no answer",
			tl: newTimeline().operatorWrites("0s", healthyFailing(at("0s"))).challenge("10m").
				operator("10m2s", unprefix("Available", "Progressing", "Upgradeable")),
			end: "25m", want: reports.Fail, message: []string{"challenged at +10m0s"}, evidence: []string{"10m"}},
		{name: "the failure names the ClusterOperator",
			tl:  answering().on("dns").created("0s").challenge("10m"),
			end: "25m", want: reports.Fail, co: "dns", message: []string{"challenged at +10m0s"}, evidence: []string{"10m"}},

		// Excused: the operator was down during the challenge's 10 minutes.
		{name: "reference: dead operator", tl: dying(), end: "25m", want: reports.Skip},
		{name: "killed before, started after the challenge",
			tl:  newTimeline().start("0s").created("0s").kill("5m").challenge("10m").start("15m").answer("15m1s"),
			end: "25m", want: reports.Skip},
		{name: "hung before the challenge, never reconnected",
			tl:  newTimeline().start("0s").created("0s").hang("9m").challenge("10m").mark("20m"),
			end: "25m", want: reports.Skip},
		{name: "killed within the window",
			tl:  newTimeline().start("0s").created("0s").challenge("10m").kill("19m"),
			end: "25m", want: reports.Skip},
		{name: "hung, then killed and restarted within the window",
			tl:  newTimeline().start("0s").created("0s").hang("9m").challenge("10m").kill("12m").start("15m"),
			end: "25m", want: reports.Skip},
		{name: "only the dead operator is excused",
			tl:  dying().on("dns").created("0s").challenge("10m").answer("10m2s"),
			end: "25m", want: reports.Pass, message: []string{"1 judged"}},
		// Not excused: the outage was over before the challenge.
		{name: "hung and reconnected before the challenge",
			tl:  newTimeline().start("0s").created("0s").hang("5m").reconnect("6m").challenge("10m").mark("20m"),
			end: "25m", want: reports.Fail, message: []string{"challenged at +10m0s"}, evidence: []string{"10m"}},
		{name: "killed and restarted before the challenge",
			tl:  newTimeline().start("0s").created("0s").kill("5m").start("8m").challenge("10m").mark("20m"),
			end: "25m", want: reports.Fail, message: []string{"challenged at +10m0s"}, evidence: []string{"10m"}},

		// Not yet judgeable.
		{name: "the run ends within the window",
			tl: newTimeline().created("0s").challenge("10m"), end: "19m", want: reports.Skip},
		{name: "no challenge", tl: newTimeline().created("0s"), end: "30m", want: reports.Skip},
	})
}

// STALE-007's summary uses nearest-rank percentiles.
func TestMeasureNearestRank(t *testing.T) {
	seconds := func(ns ...int) []time.Duration {
		var out []time.Duration
		for _, n := range ns {
			out = append(out, time.Duration(n)*time.Second)
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // 100s down to 1s: measure sorts
	}
	for _, tc := range []struct {
		name          string
		in            []time.Duration
		p50, p99, max string
	}{
		{"one", seconds(7), "7s", "7s", "7s"},
		{"two", seconds(9, 1), "1s", "9s", "9s"},
		{"three", seconds(45, 2, 3), "3s", "45s", "45s"},
		{"four", seconds(4, 3, 2, 1), "2s", "4s", "4s"},
		{"a hundred", seconds(hundred...), "50s", "99s", "100s"},
		{"a hundred and one", seconds(append(hundred, 101)...), "51s", "100s", "101s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l judge.Latencies
			for _, x := range tc.in {
				l.Add(x)
			}
			got := l.Measure("ClusterOperator/etcd", 30*time.Second)
			want := reports.Measure{Name: "ClusterOperator/etcd", Count: len(tc.in), P50: d(tc.p50), P99: d(tc.p99), Max: d(tc.max), Budget: 30 * time.Second}
			if got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
			if got2 := l.Measure("ClusterOperator/etcd", 30*time.Second); got2 != got {
				t.Errorf("a second measure differs: %+v", got2)
			}
		})
	}
}

// An operator whose calls fail (scenario apiErrors) cannot answer: a
// challenge while its fault lasts is not held against it, as one to a dead
// operator is not; one after the fault clears is.
func TestOperatorUnderAnAPIFault(t *testing.T) {
	for _, id := range []string{"STALE-007", "STALE-008"} {
		runTable(t, id, []ruleCase{
			{name: "challenged while its writes fail, answered once they succeed",
				tl:  newTimeline().start("0s").created("0s").fault("9m").challenge("10m").clear("15m").answer("15m"),
				end: "25m", want: reports.Skip},
			{name: "challenged after the fault cleared, never answered",
				tl:  newTimeline().start("0s").created("0s").fault("5m").clear("6m").challenge("10m"),
				end: "25m", want: reports.Fail, message: []string{"challenged at +10m0s"}, evidence: []string{"10m"}},
		})
	}
}
