package conformance

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// newStage makes the stage of one Play: in virtual time a scheduler on the
// fake clock at sim.Epoch; in real time (a subject that is an executable)
// one on the wall clock from now, with the processes' host. A time scale
// other than 1 replaces *m with the mechanism scaled (Mechanism.Scaled).
func newStage(api client.Client, cast Cast, tl *timeline.Timeline, m **Mechanism, opts Options) (*Stage, error) {
	scale := opts.TimeScale
	if scale == 0 {
		scale = 1
	}
	if scale <= 0 || scale > 1 {
		return nil, fmt.Errorf("time scale %g is out of range: give more than 0 and at most 1", scale)
	}
	if scale != 1 {
		if (*m).Scaled == nil {
			return nil, fmt.Errorf("mechanism %s cannot scale its times", (*m).Name)
		}
		*m = (*m).Scaled(scale)
	}
	st := &Stage{API: api, Dir: opts.Dir, Scale: scale}
	if !realtime(cast) {
		st.Sched, st.Origin = sim.NewScheduler(sim.NewClock(), tl), sim.Epoch
		return st, nil
	}
	if opts.Host == nil || opts.ProcessDir == "" {
		return nil, errNoHost
	}
	procs, err := NewProcesses(opts.Host, opts.ProcessDir)
	if err != nil {
		return nil, err
	}
	if (*m).WithTolerance != nil {
		*m = (*m).WithTolerance(RealtimeTolerance)
	}
	// Whole milliseconds, as the timeline writes times in real time.
	st.Sched, st.Origin, st.Processes = sim.NewRealtime(tl), time.Now().Truncate(time.Millisecond), procs
	return st, nil
}

// RealtimeTolerance is the slack a real-time run's rules allow on
// deadlines: the API server keeps the times of conditions to the second,
// and a process's write is filed when it is seen, milliseconds later.
const RealtimeTolerance = time.Second

// realtime tells whether a cast needs the wall clock: it has an executable.
func realtime(cast Cast) bool {
	for _, s := range cast {
		if _, ok := s.Impl.(Process); ok {
			return true
		}
	}
	return false
}

// inOrder sorts a real-time timeline's events by time: writes observed on
// the API server are filed as they are seen, while the run's own are filed
// once their batch is over.
func inOrder(events []timeline.Event) []timeline.Event {
	out := slices.Clone(events)
	slices.SortStableFunc(out, func(a, b timeline.Event) int { return a.Time.Compare(b.Time) })
	return out
}

var errNoHost = errors.New("a subject that is an executable needs opcert's own API server (process mode: opcert run)")
