package conformance

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// newStage makes the stage of one Play: in virtual time a scheduler on the
// fake clock at timeline.Epoch; in real time (a subject that is an executable,
// or a run on a cluster) one on the wall clock from now, with the
// processes' host or the cluster's Deployments. A time scale
// other than 1 replaces *m with the mechanism scaled (Scalable), and a
// real-time run with the mechanism given its tolerance (Tolerant).
// A scenario with apiErrors steps plays in virtual time only (RealTimeFaults).
func newStage(api client.Client, sc *scenarios.Scenario, cast Cast, tl *timeline.Timeline, m *Mechanism, opts Options) (*Stage, error) {
	scale := opts.TimeScale
	if scale == 0 {
		scale = 1
	}
	if !(scale > 0 && scale <= 1) { // NaN fails every comparison
		return nil, fmt.Errorf("time scale %g is out of range: give more than 0 and at most 1", scale)
	}
	if scale != 1 {
		s, ok := (*m).(Scalable)
		if !ok {
			return nil, fmt.Errorf("mechanism %s cannot scale its times", (*m).Name())
		}
		*m = s.Scaled(scale)
	}
	st := &Stage{API: api, Dir: opts.Dir, Scale: scale}
	procs, deps := hasImpl[Process](cast), hasImpl[Deployment](cast)
	if !procs && !deps && opts.Cluster == nil {
		st.Sched, st.Origin = sim.NewScheduler(sim.NewClock(), tl), timeline.Epoch
		return st, nil
	}
	if err := RealTimeFaults(sc, procs && opts.Cluster == nil); err != nil {
		return nil, err
	}
	switch {
	case opts.Cluster != nil && procs:
		return nil, errProcessOnCluster
	case opts.Cluster != nil:
		// On a cluster everything else runs on the wall clock: so does the
		// run, whoever plays the roles.
		st.Config, st.Deployments = opts.Cluster, NewDeployments(api)
	case deps:
		return nil, errNoCluster
	case opts.Host == nil || opts.ProcessDir == "" || opts.Dir == "":
		return nil, errNoHost
	default:
		var err error
		if st.Processes, err = NewProcesses(opts.Host, opts.ProcessDir, opts.Dir); err != nil {
			return nil, err
		}
		st.Config = opts.Host.RESTConfig()
	}
	if t, ok := (*m).(Tolerant); ok {
		*m = t.WithTolerance(RealtimeTolerance)
	}
	// Whole milliseconds, as the timeline writes times in real time.
	st.Sched, st.Origin = sim.NewRealtime(tl), time.Now().Truncate(time.Millisecond)
	return st, nil
}

// RealTimeFaults refuses the apiErrors steps of a scenario played in real
// time: opcert's clients fail the calls of the actors it runs, in virtual
// time; an executable or a Deployment calls the API server through no
// client of opcert's. It refuses its perturb steps too but, in process
// mode (processes), the crashes and lost notifications an executable's
// proxy makes (perturb_realtime.go). opcert run asks it of every plan
// before anything starts.
func RealTimeFaults(sc *scenarios.Scenario, processes bool) error {
	for i, st := range sc.Steps {
		if st.APIErrors != nil {
			return fmt.Errorf("%s:%d: steps[%d].apiErrors: API errors are injected in virtual time only, and this run is in real time (an executable or a Deployment plays a role, or the run is on a cluster); play the scenario with opcert's subjects, or leave the step out", sc.Source, st.Line, i)
		}
		p := st.Perturb
		if p == nil || processes && (p.Crash != nil || p.LostEvents != nil) {
			continue
		}
		where := "in process mode only crashes and lostEvents are made (through an executable's proxy), and on a cluster none"
		return fmt.Errorf("%s:%d: steps[%d].perturb: %s, and this run is in real time; play the scenario with opcert's subjects or a team's reconciler, or leave the step out", sc.Source, st.Line, i, where)
	}
	return nil
}

// RealtimeTolerance is the slack a real-time run's rules allow on
// deadlines: the API server keeps the times of conditions to the second,
// and a process's write is filed when it is seen, milliseconds later.
const RealtimeTolerance = time.Second

// hasImpl tells whether a subject of the cast is a T (an executable, a
// Deployment: subjects that run on the wall clock).
func hasImpl[T any](cast Cast) bool {
	for _, s := range cast {
		if _, ok := s.Impl.(T); ok {
			return true
		}
	}
	return false
}

var (
	errNoHost           = errors.New("a subject that is an executable needs opcert's own API server (process mode: opcert run)")
	errNoCluster        = errors.New("a subject that is a Deployment needs a cluster (cluster mode: opcert run --kubeconfig PATH)")
	errProcessOnCluster = errors.New("a subject that is an executable runs against opcert's own API server, not on a cluster: deploy it and give deployment:NAMESPACE/NAME, or leave out --kubeconfig")
)

// Stage is what a mechanism builds a scenario's world on.
type Stage struct {
	// Sched is the run's scheduler: its clock, its queue and its recorded client.
	Sched *sim.Scheduler
	// API is a direct client of the run's API server; actors wrap it with
	// Sched.Client so their writes are recorded.
	API client.Client
	// Dir is where the run may keep files (a simulated node's tree): inside
	// the API server's run directory, so they go with it on every exit and
	// are swept after a SIGKILL. Empty means the system's temporary
	// directory, and the mechanism removes what it made.
	Dir string
	// Processes starts the run's executable subjects (process mode; nil
	// in virtual time).
	Processes *Processes
	// Deployments scales the run's Deployment subjects (cluster mode; nil
	// otherwise).
	Deployments *Deployments
	// Config reaches the run's API server with opcert's own rights, for
	// the watches a real-time run needs (nil in virtual time).
	Config *rest.Config
	// Origin is the run's time zero (timeline.Epoch in virtual time, the wall
	// clock's start in real time) and Scale what scenario times are
	// multiplied by (Options.TimeScale): a mechanism that queues its own
	// work at scenario times (chaos) queues it at At.
	Origin time.Time
	// Scale is in (0, 1]: 1 when Options.TimeScale is not set (see Origin).
	Scale float64

	// restarts start a role's actors again after a crash (perturb.go).
	restarts restarts

	// background work of the run (Go), stopped when the run ends.
	bg     context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Go runs f beside the run (a watch feeding a real-time scheduler) with a
// context that ends with the run; the run waits for f to return before it
// is judged, so nothing reaches the timeline after its end.
func (s *Stage) Go(f func(ctx context.Context)) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f(s.bg)
	}()
}

// stop ends the run's background work and waits for it.
func (s *Stage) stop() {
	s.cancel()
	s.wg.Wait()
}

// At is the instant of a scenario time: the origin plus the time, scaled.
func (s *Stage) At(offset time.Duration) time.Time {
	return s.Origin.Add(s.Scaled(offset))
}

// Scaled is a duration of the scenario's world (a pod's pace) as the run
// plays it: multiplied by Scale.
func (s *Stage) Scaled(d time.Duration) time.Duration { return scaled(d, s.Scale) }

// scaled multiplies d by scale (0 meaning 1).
func scaled(d time.Duration, scale float64) time.Duration {
	if scale == 0 || scale == 1 {
		return d
	}
	return time.Duration(float64(d) * scale)
}
