package node

import (
	"fmt"
	"math"
	"time"
)

// Operand is one revision of an operand on a node, from the instant its
// manifest appeared. Its state is its model's; what it adds is the lines its
// starts write to termination.log.
type Operand struct {
	name     string
	revision int
	model    Model
	since    time.Time
	logged   int     // starts already written to termination.log
	scale    float64 // the run's time scale (WithScale), 0 for none
}

// NewOperand is revision of the operand name (kube-apiserver, say), behaving
// as m, whose manifest appeared at since.
func NewOperand(name string, revision int, m Model, since time.Time) (*Operand, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &Operand{name: name, revision: revision, model: m.withDefaults(), since: since}, nil
}

// WithScale is the operand played at a run's time scale (a real-time run
// at --time-scale 0.01 plays a 10s crash-loop back-off in 100ms): its
// model's durations are multiplied by scale, from since. The model stays
// a function of scenario time; only the instants it is asked at and those
// it answers are mapped.
func (o *Operand) WithScale(scale float64) *Operand {
	c := *o
	c.scale = scale
	return &c
}

// modelTime is the model's instant of t: since plus the time elapsed, unscaled.
func (o *Operand) modelTime(t time.Time) time.Time {
	if o.scale == 0 || o.scale == 1 {
		return t
	}
	return o.since.Add(time.Duration(float64(t.Sub(o.since)) / o.scale))
}

// runTime is the run's instant of a model instant t (zero stays zero);
// up rounds it up, so that the model asked at it has reached t.
func (o *Operand) runTime(t time.Time, up bool) time.Time {
	if o.scale == 0 || o.scale == 1 || t.IsZero() {
		return t
	}
	d := float64(t.Sub(o.since)) * o.scale
	if up {
		return o.since.Add(time.Duration(math.Ceil(d)) + time.Nanosecond)
	}
	return o.since.Add(time.Duration(d))
}

// Termination is the termination message each of its starts prints before
// it exits, "" if none.
func (o *Operand) Termination() string { return o.model.Termination }

// Revision is the revision it runs.
func (o *Operand) Revision() int { return o.revision }

// State is the revision's state at now. It only reads what NewOperand set,
// so an HTTP server may call it while the operand is synced.
func (o *Operand) State(now time.Time) State {
	st := o.model.At(o.since, o.modelTime(now))
	st.Next = o.runTime(st.Next, true)
	return st
}

// Sync brings the node up to the clock's time: each start not yet logged
// appends one line to the operand's termination.log through h (as its
// actor), "<start time> <operand> revision <N> start <k>", followed by ": "
// and the model's termination message when it has one (the event's Detail
// is "append <bytes> bytes: <line>"). It returns the
// next instant the revision changes, when it wants to be synced again (zero
// if never). Synced at each such instant, every line is written at the
// instant of its start.
func (o *Operand) Sync(h *Handle) (time.Time, error) {
	now := h.n.clock.Now()
	// A clock set back (a scenario's clock jump) finds nothing new to log.
	starts := o.model.runs(o.since, o.modelTime(now)).starts
	for o.logged < len(starts) {
		line := fmt.Sprintf("%s %s revision %d start %d", o.runTime(starts[o.logged], false).UTC().Format(time.RFC3339Nano), o.name, o.revision, o.logged+1)
		if o.model.Termination != "" {
			line += ": " + o.model.Termination
		}
		if err := h.AppendLine(TerminationLogPath(o.name), line); err != nil {
			return time.Time{}, err
		}
		o.logged++
	}
	return o.State(now).Next, nil
}
