package judge

import (
	"fmt"
	"strings"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// NotComparedMark ends the detail of an expect event that compared
// nothing: the tally counts it apart from the expectations that held.
const NotComparedMark = ": not compared"

// UnlikeMark ends the head of an expect event that did not hold after a
// step a cluster carried out unlike the simulated world the scenario was
// written for (conformance.Unlike): the tally counts it apart, neither
// held nor failed.
const UnlikeMark = ": not owed"

// ExpectCase is the case of the scenario's own expectations, unjudged.
func ExpectCase() reports.Case {
	return reports.Case{Rule: "EXPECT", Section: "scenario", Statement: "the scenario's expectations hold", Role: timeline.RoleScenario}
}

// Expectations turns the scenario's expect events into one case.
func Expectations(events []timeline.Event) reports.Case {
	var t ExpectTally
	for _, e := range events {
		t.Read(e)
	}
	return t.Result()
}

// ExpectTally counts a scenario's expect and skip events as they pass,
// into the EXPECT case (Result).
type ExpectTally struct {
	n                            int
	failed, skipped, notCompared []timeline.Event
	// unlike are the steps a cluster carried out unlike the simulated
	// world, notOwed the expectations that did not hold after one.
	unlike, notOwed []timeline.Event
}

// Read counts e if it is an expect or a skip event; other events pass.
func (t *ExpectTally) Read(e timeline.Event) {
	switch {
	case e.Verb == timeline.VerbSkip:
		t.skipped = append(t.skipped, e)
	case e.Verb == timeline.VerbUnlike:
		t.unlike = append(t.unlike, e)
	case e.Verb == timeline.VerbExpect && !e.Failed && strings.Contains(e.Detail, UnlikeMark+": "):
		t.notOwed = append(t.notOwed, e)
	case e.Verb == timeline.VerbExpect && !e.Failed && strings.Contains(e.Detail, NotComparedMark):
		t.notCompared = append(t.notCompared, e)
	case e.Verb == timeline.VerbExpect:
		t.n++
		if e.Failed {
			t.failed = append(t.failed, e)
		}
	}
}

// Result is the EXPECT case of the events read so far: failed when an
// expectation failed, skipped when none compared anything, with the
// failures and the skipped steps as evidence.
func (t *ExpectTally) Result() reports.Case {
	c := ExpectCase()
	c.Evidence = append(c.Evidence, t.failed...)
	switch {
	case len(t.failed) > 0:
		c.Status, c.Message = reports.Fail, fmt.Sprintf("%d of %d expectations failed; first: %s", len(t.failed), t.n, t.failed[0].Detail)
	case t.n == 0 && len(t.notOwed) > 0:
		c.Status, c.Message = reports.Skip, fmt.Sprintf("none of the scenario's expectations held that was owed: %d did not hold after a step unlike the world they were written for", len(t.notOwed))
	case t.n == 0 && len(t.notCompared) > 0:
		c.Status, c.Message = reports.Skip, fmt.Sprintf("none of the scenario's %d expectations compared anything: they check texts, and the subject chose its own", len(t.notCompared))
	case t.n == 0:
		c.Status, c.Message = reports.Skip, "the scenario has no expectations"
	default:
		c.Status, c.Message = reports.Pass, fmt.Sprintf("%d expectations held", t.n)
	}
	if len(t.notCompared) > 0 && t.n > 0 {
		// Said, never counted as held.
		c.Message += fmt.Sprintf("; %d not compared (they check only texts the subject chose: first, %s)", len(t.notCompared), t.notCompared[0].Detail)
	}
	if len(t.notOwed) > 0 && t.n > 0 {
		// Said, never counted as held nor failed.
		c.Message += fmt.Sprintf("; %d not owed (they did not hold after a step unlike the world they were written for: first, %s)", len(t.notOwed), t.notOwed[0].Detail)
	}
	if len(t.unlike) > 0 {
		c.Message += fmt.Sprintf("; %d steps played as the cluster plays them (first, %s: %s)", len(t.unlike), t.unlike[0].Object.Name, t.unlike[0].Detail)
		c.Evidence = append(c.Evidence, t.unlike...)
	}
	if len(t.unlike) > 0 || len(t.failed) == 0 {
		c.Evidence = append(c.Evidence, t.notOwed...)
	}
	if len(t.skipped) > 0 {
		// Steps that did not apply are said, never passed over in silence.
		c.Message += fmt.Sprintf("; %d steps skipped as not applying to the subjects (first, %s: %s)", len(t.skipped), t.skipped[0].Object.Name, t.skipped[0].Detail)
		c.Evidence = append(c.Evidence, t.skipped...)
	}
	return c
}
