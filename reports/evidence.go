package reports

import (
	"fmt"
	"strings"
	"time"

	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// FormatEvent is FormatEventFrom the simulator's epoch.
func FormatEvent(e timeline.Event) string { return FormatEventFrom(e, sim.Epoch) }

// FormatEventFrom renders one timeline event on one line, as the JUnit failure
// bodies and the Markdown evidence blocks show it:
//
//	+10m0s operator-a update-status Widget/default/w1 Ready: True/"ok" -> False/"stale"
//
// Time is the offset from origin (sim.Epoch, where every simulated run
// starts, when zero; a recording's start), so evidence reads as "ten
// minutes in" rather than as a wall-clock date; a
// condition side that did not exist prints as "absent". The event's detail,
// if any, follows in parentheses, and a write the API server refused is
// marked [failed], because a refused write explains a missing change.
func FormatEventFrom(e timeline.Event, origin time.Time) string {
	if origin.IsZero() {
		origin = sim.Epoch
	}
	var b strings.Builder
	d := e.Time.Sub(origin)
	if d >= 0 {
		b.WriteByte('+')
	}
	fmt.Fprintf(&b, "%s %s %s", fmtDur(d), e.Actor, e.Verb)
	if e.Object != (timeline.ObjectRef{}) {
		fmt.Fprintf(&b, " %s", e.Object)
	}
	for i, c := range e.Conditions {
		sep := "; "
		if i == 0 {
			sep = " "
		}
		fmt.Fprintf(&b, "%s%s: %s -> %s", sep, c.Type, conditionSide(c.Before), conditionSide(c.After))
	}
	if e.Detail != "" {
		fmt.Fprintf(&b, " (%s)", e.Detail)
	}
	if e.Failed {
		b.WriteString(" [failed]")
	}
	return b.String()
}

func conditionSide(c *timeline.Condition) string {
	if c == nil {
		return "absent"
	}
	return fmt.Sprintf("%s/%q", c.Status, c.Message)
}
