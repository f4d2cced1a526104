package judge

import (
	"strings"
	"testing"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// An expectation that did not hold after a step a cluster played unlike
// the simulated world is counted apart: neither held nor failed, said
// with the step; with nothing else held, the case is skipped.
func TestExpectationsNotOwedAfterAStepUnlikeTheSimulation(t *testing.T) {
	step := timeline.Event{Verb: timeline.VerbUnlike, Object: timeline.ObjectRef{Kind: timeline.KindStep, Name: "s.yaml:9"}, Detail: "failPod: replaced at once"}
	notOwed := timeline.Event{Verb: timeline.VerbExpect, Detail: "c Degraded" + UnlikeMark + ": status is False, want True, after step s.yaml:9"}
	held := timeline.Event{Verb: timeline.VerbExpect, Detail: "c Available: as expected"}

	c := Expectations([]timeline.Event{held, step, notOwed})
	if c.Status != reports.Pass || !strings.HasPrefix(c.Message, "1 expectations held; 1 not owed (") ||
		!strings.Contains(c.Message, "; 1 steps played as the cluster plays them (first, s.yaml:9: failPod: replaced at once)") {
		t.Errorf("%s: %s", c.Status, c.Message)
	}
	if len(c.Evidence) != 2 {
		t.Errorf("evidence %v, want the step and the expectation", c.Evidence)
	}
	if c := Expectations([]timeline.Event{step, notOwed}); c.Status != reports.Skip {
		t.Errorf("with nothing held: %s: %s", c.Status, c.Message)
	}
	failed := notOwed
	failed.Failed = true
	if c := Expectations([]timeline.Event{step, failed}); c.Status != reports.Fail {
		t.Errorf("a failed expectation: %s: %s", c.Status, c.Message)
	}
}
