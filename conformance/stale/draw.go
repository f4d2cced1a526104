package stale

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/opcert/opcert/scenarios"
)

// draw makes a random stale scenario for opcert fuzz (scenarios.Kind.Draw):
// one to four operators, each reporting a few of the watched conditions and
// answering within 20s (inside the 30s budget, so a reference run owes no
// failure); and about two faults an hour: operator deaths and hangs, each
// usually undone later, operand changes, slow-downs, detector deaths and
// restarts. Steps are whole seconds; each is harmless alone (a kill of a
// dead process does nothing), so shrinking may remove any of them.
func draw(r *rand.Rand, d time.Duration) (any, []scenarios.Step) {
	w := &World{}
	names := slices.Clone(drawNames)
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	names = names[:1+r.IntN(4)]
	slices.Sort(names)
	var steps []scenarios.Step
	for _, name := range names {
		o := Operator{Name: name, Conditions: drawConditions(r)}
		if r.IntN(2) == 0 {
			o.AnswerDelay = &scenarios.Duration{Duration: seconds(r, 0, 20)}
		}
		if r.IntN(10) == 0 {
			o.Stopped = true
			steps = append(steps, step(seconds(r, 0, min(d, time.Hour)), actRestart, name))
		}
		w.Operators = append(w.Operators, o)
	}
	faults := min(maxDrawnFaults, 1+int(r.ExpFloat64()*2*d.Hours()))
	for range faults {
		at := seconds(r, 0, d)
		name := names[r.IntN(len(names))]
		undo := func(action string, arg any) {
			if r.IntN(10) == 0 {
				return // never undone
			}
			if back := at + seconds(r, 5*time.Second, time.Hour); back < d {
				steps = append(steps, step(back, action, arg))
			}
		}
		switch k := r.IntN(100); {
		case k < 35:
			steps = append(steps, step(at, actKill, name))
			undo(actRestart, name)
		case k < 50:
			steps = append(steps, step(at, actHang, name))
			undo(actReconnect, name)
		case k < 75:
			c := drawConditions(r)[0]
			steps = append(steps, step(at, actSet, &SetCondition{Operator: name, Condition: c}))
		case k < 80:
			steps = append(steps, step(at, actSlow, &SlowOperator{Operator: name, AnswerDelay: scenarios.Duration{Duration: seconds(r, 0, 25)}}))
		case k < 95:
			steps = append(steps, step(at, actKillDetector, true))
			undo(actRestartDetector, true)
		default:
			steps = append(steps, step(at, actRestartDetector, true))
		}
	}
	slices.SortStableFunc(steps, func(a, b scenarios.Step) int { return cmp.Compare(a.Time, b.Time) })
	return w, steps
}

// maxDrawnFaults bounds a drawn scenario's faults (each up to two steps).
const maxDrawnFaults = 40

var drawNames = []string{"auth", "console", "dns", "etcd", "ingress", "network"}

// drawConditions draws two to four conditions of distinct watched types,
// Degraded or its older name Failing, mostly True or False.
func drawConditions(r *rand.Rand) []scenarios.Condition {
	degraded := "Degraded"
	if r.IntN(5) == 0 {
		degraded = "Failing"
	}
	types := []string{"Available", degraded, "Progressing", "Upgradeable"}
	r.Shuffle(len(types), func(i, j int) { types[i], types[j] = types[j], types[i] })
	var out []scenarios.Condition
	for _, t := range types[:2+r.IntN(3)] {
		status := []string{"True", "False"}[r.IntN(2)]
		if r.IntN(20) == 0 {
			status = "Unknown"
		}
		reason := []string{"AsExpected", "Rollout", "NotReady", "Upgrading"}[r.IntN(4)]
		out = append(out, scenarios.Condition{Type: t, Status: status, Reason: reason, Message: fmt.Sprintf("%s is %s (%d)", t, status, r.IntN(1000))})
	}
	return out
}

// seconds draws a whole number of seconds in [lo, hi).
func seconds(r *rand.Rand, lo, hi time.Duration) time.Duration {
	n := int64((hi - lo) / time.Second)
	if n <= 0 {
		return lo
	}
	return lo + time.Duration(r.Int64N(n))*time.Second
}

func step(at time.Duration, action string, arg any) scenarios.Step {
	return scenarios.Step{Time: at, Action: action, Arg: arg}
}
