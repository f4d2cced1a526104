package rules

import (
	"testing"

	"github.com/opcert/opcert/reports"
)

// A detector that was down (life.go): what it may and must do when back.

// downAtFive has the detector die at +1m while the operator's message
// moves at +5m (its transition times stay at +0).
func downAtFive() *builder {
	return newTimeline().detectorStarts("0s").created("0s").detectorDies("1m").
		operator("5m", message("Rolling out", "Progressing"))
}

func TestSTALE001DetectorBack(t *testing.T) {
	runTable(t, "STALE-001", []ruleCase{
		{name: "a new detector dates by transition times: the message moved unseen at +5m, challenged at +12m",
			tl: downAtFive().detectorStarts("12m").challenge("12m"), end: "15m", want: reports.Pass},
		{name: "a detector up throughout saw the movement at +5m",
			tl:  newTimeline().detectorStarts("0s").created("0s").operator("5m", message("Rolling out", "Progressing")).challenge("12m"),
			end: "15m", want: reports.Fail, message: []string{"+12m0s", "moved at +5m0s"}, evidence: []string{"5m", "12m"}},
		{name: "a new detector challenges before the transition times are 10m old",
			tl: newTimeline().detectorStarts("0s").created("0s").detectorDies("1m").
				operator("5m", status("False", at("5m"), "Available")).detectorStarts("8m").challenge("8m"),
			end: "15m", want: reports.Fail, message: []string{"+8m0s", "3m0s after its conditions moved at +5m0s"}, evidence: []string{"5m", "8m"}},
		{name: "a reconnected detector missed the movement made while it was cut off",
			tl: newTimeline().detectorStarts("0s").created("0s").detectorHangs("1m").
				operator("5m", message("Rolling out", "Progressing")).detectorBack("8m").challenge("10m"),
			end: "15m", want: reports.Pass},
		{name: "a new detector that saw the object created counts later movements from their writes",
			tl: newTimeline().detectorStarts("0s").created("0s").detectorDies("1m").detectorStarts("2m").
				operator("5m", message("Rolling out", "Progressing")).challenge("12m"),
			end: "15m", want: reports.Pass},
	})
}

func TestSTALE002DetectorBack(t *testing.T) {
	runTable(t, "STALE-002", []ruleCase{
		{name: "down at the deadline: challenged when back at +25m",
			tl:  newTimeline().detectorStarts("0s").created("0s").detectorDies("5m").detectorStarts("25m").challenge("25m"),
			end: "30m", want: reports.Pass, message: []string{"1 judged"}},
		{name: "back at +25m but dates the stillness from its return",
			tl:  newTimeline().detectorStarts("0s").created("0s").detectorDies("5m").detectorStarts("25m").challenge("35m"),
			end: "40m", want: reports.Fail, message: []string{"due a challenge at +25m0s (when the detector was back)", "+35m0s"},
			evidence: []string{"0s", "35m"}},
		{name: "an unseen movement is dated by its transition times: owed at +12m",
			tl: downAtFive().detectorStarts("12m").challenge("15m"), end: "20m",
			want: reports.Fail, message: []string{"still from +5m0s", "due a challenge at +12m0s"}, evidence: []string{"5m", "15m"}},
		{name: "back before the deadline: still owed at +10m",
			tl:  newTimeline().detectorStarts("0s").created("0s").detectorDies("2m").detectorStarts("4m").challenge("14m"),
			end: "20m", want: reports.Fail, message: []string{"due a challenge at +10m0s,"}, evidence: []string{"0s", "14m"}},
		{name: "down until the end: owed nothing",
			tl: newTimeline().detectorStarts("0s").created("0s").detectorDies("5m"), end: "1h", want: reports.Skip},
		{name: "back too briefly to owe anything",
			tl:  newTimeline().detectorStarts("0s").created("0s").detectorDies("5m").detectorStarts("25m").detectorDies("25m").detectorStarts("50m").challenge("50m"),
			end: "55m", want: reports.Pass},
		{name: "a reconnected detector owes it 10m after its return",
			tl:  newTimeline().detectorStarts("0s").created("0s").detectorHangs("5m").detectorBack("25m").challenge("35m"),
			end: "40m", want: reports.Pass},
		{name: "a reconnected detector within the reaction bound of that",
			tl:  newTimeline().detectorStarts("0s").created("0s").detectorHangs("5m").detectorBack("25m").challenge("35m30s"),
			end: "40m", want: reports.Pass},
		{name: "a reconnected detector 1s past the reaction bound of that",
			tl:  newTimeline().detectorStarts("0s").created("0s").detectorHangs("5m").detectorBack("25m").challenge("35m31s"),
			end: "40m", want: reports.Fail, message: []string{"due a challenge at +35m0s"}, evidence: []string{"0s", "35m31s"}},
	})
}

func TestSTALE004DetectorBack(t *testing.T) {
	// The operator is dead from +5m; the detector dies at +12m, after its
	// challenge, and a new one starts at +15m.
	restarted := func() *builder {
		return newTimeline().detectorStarts("0s").start("0s").created("0s").kill("5m").challenge("10m").
			detectorDies("12m").detectorStarts("15m")
	}
	runTable(t, "STALE-004", []ruleCase{
		{name: "the new detector marks 10m after its return",
			tl: restarted().mark("25m"), end: "30m", want: reports.Pass},
		{name: "the new detector marks 10m after the challenge",
			tl: restarted().mark("20m"), end: "30m", want: reports.Pass},
		{name: "the new detector marks within the reaction bound of the mark it owed",
			tl: restarted().mark("25m30s"), end: "30m", want: reports.Pass},
		{name: "the new detector marks 1s past the reaction bound of the mark it owed",
			tl: restarted().mark("25m31s"), end: "30m", want: reports.Fail,
			message: []string{"set Unknown at +25m31s, want it between +20m0s and +25m0s and the 30s reaction bound"}, evidence: []string{"10m", "25m31s"}},
		{name: "the new detector never marks",
			tl: restarted(), end: "30m", want: reports.Fail,
			message: []string{"not set Unknown between +20m0s and +25m0s"}, evidence: []string{"10m"}},
		{name: "the detector does not come back",
			tl:  newTimeline().detectorStarts("0s").start("0s").created("0s").kill("5m").challenge("10m").detectorDies("12m"),
			end: "1h", want: reports.Skip},
	})
}

// A detector whose API calls fail (scenario apiErrors) can neither look nor
// write: it is read as cut off until the fault clears.
func TestDetectorUnderAnAPIFault(t *testing.T) {
	faulted := func() *builder {
		return newTimeline().detectorStarts("0s").created("0s").detectorFault("9m").detectorClear("15m")
	}
	runTable(t, "STALE-002", []ruleCase{
		{name: "challenged once the fault clears",
			tl: faulted().challenge("15m"), end: "20m", want: reports.Pass},
		{name: "owed no later than 10m after the fault clears",
			tl: faulted(), end: "26m", want: reports.Fail,
			message: []string{"due a challenge at +25m0s (when the detector was back)"}, evidence: []string{"0s"}},
	})
	runTable(t, "STALE-004", []ruleCase{
		{name: "a mark due during the fault is owed 10m after it clears",
			tl:  newTimeline().detectorStarts("0s").created("0s").challenge("10m").detectorFault("19m").detectorClear("21m").mark("21m"),
			end: "35m", want: reports.Pass},
	})
}
