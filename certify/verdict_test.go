package certify

import (
	"strings"
	"testing"

	"github.com/opcert/opcert/reports"
)

// A rule passed in a run that proved nothing of the team's reconciler (it
// never acted) fails its spec, saying why; a failure stays a failure.
func TestOutcomeOfUnprovenRun(t *testing.T) {
	run := reports.Run{Scenario: "s", NotJudged: []string{"the operator (mine) never acted"},
		Cases: []reports.Case{{Rule: "R-1", Status: reports.Pass}, {Rule: "R-2", Status: reports.Fail, Message: "broke"}}}
	if o := outcomeOf(run, "R-1"); o.status != reports.Fail || !strings.Contains(o.text, "NOT JUDGED: the run of s proved nothing: the operator (mine) never acted") {
		t.Errorf("R-1: %s %q", o.status, o.text)
	}
	if o := outcomeOf(run, "R-2"); o.status != reports.Fail || strings.Contains(o.text, reports.NotJudged) {
		t.Errorf("R-2: %s %q", o.status, o.text)
	}
	run.NotJudged = nil
	if o := outcomeOf(run, "R-1"); o.status != reports.Pass {
		t.Errorf("R-1 of a run that proved something: %s", o.status)
	}
}
