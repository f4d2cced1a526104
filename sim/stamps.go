package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// A subject that stamps times from the wall clock (time.Now, metav1.Now,
// meta.SetStatusCondition) in a virtual-time run writes lastTransitionTimes
// months away from the run's clock. Rules that date movement by those times
// would then judge nonsense, so the recording client refuses to go on: the
// run stops with a WallClockError, which the runner leaves unjudged.
const (
	// stampAhead is how far after the write's virtual instant a stamp may
	// be: the API server keeps seconds, and a stamp from the run's clock is
	// rounded down, never up, so anything later is from another clock.
	stampAhead = time.Second
	// stampBehind is how far before the run's first instant a new stamp may
	// be. Nothing a subject writes now can have happened a day before the
	// run began; a stamp that old comes from a wall clock set before it.
	stampBehind = 24 * time.Hour
)

// WallClockError is a condition stamped by a subject with a time that is not
// the run's.
type WallClockError struct {
	// Actor made the write, to Object's Condition.
	Actor, Object, Condition string
	// Stamp is the time the subject wrote, Now the run's clock at that write.
	Stamp, Now time.Time
}

// Error says who stamped which condition, and how far from the run's time.
func (e *WallClockError) Error() string {
	how := fmt.Sprintf("%s after", e.Stamp.Sub(e.Now))
	if e.Stamp.Before(e.Now) {
		how = fmt.Sprintf("%s before", e.Now.Sub(e.Stamp))
	}
	how += " the write's virtual time " + e.Now.Format(time.RFC3339)
	return fmt.Sprintf("%s stamped %s condition %s with lastTransitionTime %s, %s: it takes time from the wall clock "+
		"(time.Now, metav1.Now, meta.SetStatusCondition) in a run in virtual time. Use the clock it is given "+
		"(conformance.Instance.Clock; the clock argument of a certify constructor) for every time it writes; "+
		"the run is stopped, not judged on times that are not the run's",
		e.Actor, e.Object, e.Condition, e.Stamp.Format(time.RFC3339), how)
}

// checkStamps finds, in a subject's write, a condition whose transition time
// moved to an instant the run's clock cannot have given. The scenario's own
// objects may carry any times they like.
func (s *Scheduler) checkStamps(ctx context.Context, e timeline.Event) {
	if e.Role == timeline.RoleScenario {
		return
	}
	for _, ch := range e.Conditions {
		a := ch.After
		if a == nil || a.LastTransitionTime.IsZero() || ch.Before != nil && ch.Before.LastTransitionTime.Equal(a.LastTransitionTime) {
			continue
		}
		if a.LastTransitionTime.After(e.Time.Add(stampAhead)) || a.LastTransitionTime.Before(s.epoch.Add(-stampBehind)) {
			s.fault(ctx, &WallClockError{Actor: e.Actor, Object: e.Object.String(), Condition: ch.Type,
				Stamp: a.LastTransitionTime, Now: e.Time})
			return
		}
	}
}

// fault fails the run at the end of the batch the work belongs to (the
// first fault in object order, so the message does not depend on which
// goroutine came first), or at the next one for work outside a batch.
func (s *Scheduler) fault(ctx context.Context, err error) {
	if sk, ok := ctx.Value(sinkKey{}).(*sink); ok {
		if sk.fault == nil {
			sk.fault = err
		}
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faulted == nil {
		s.faulted = err
	}
}

// takeFault returns, once, a fault found outside a batch.
func (s *Scheduler) takeFault() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.faulted
	s.faulted = nil
	return err
}
