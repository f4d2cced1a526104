package conformance

import (
	"errors"
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// newStage makes the stage of one Play: in virtual time a scheduler on the
// fake clock at timeline.Epoch; in real time (a subject that is an executable,
// or a run on a cluster) one on the wall clock from now, with the
// processes' host or the cluster's Deployments. A time scale
// other than 1 replaces *m with the mechanism scaled (Mechanism.Scaled).
// A scenario with apiErrors steps plays in virtual time only (RealTimeFaults).
func newStage(api client.Client, sc *scenarios.Scenario, cast Cast, tl *timeline.Timeline, m **Mechanism, opts Options) (*Stage, error) {
	scale := opts.TimeScale
	if scale == 0 {
		scale = 1
	}
	if !(scale > 0 && scale <= 1) { // NaN fails every comparison
		return nil, fmt.Errorf("time scale %g is out of range: give more than 0 and at most 1", scale)
	}
	if scale != 1 {
		if (*m).Scaled == nil {
			return nil, fmt.Errorf("mechanism %s cannot scale its times", (*m).Name)
		}
		*m = (*m).Scaled(scale)
	}
	st := &Stage{API: api, Dir: opts.Dir, Scale: scale}
	procs, deps := hasImpl[Process](cast), hasImpl[Deployment](cast)
	if !procs && !deps && opts.Cluster == nil {
		st.Sched, st.Origin = sim.NewScheduler(sim.NewClock(), tl), timeline.Epoch
		return st, nil
	}
	if err := RealTimeFaults(sc); err != nil {
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
	if (*m).WithTolerance != nil {
		*m = (*m).WithTolerance(RealtimeTolerance)
	}
	// Whole milliseconds, as the timeline writes times in real time.
	st.Sched, st.Origin = sim.NewRealtime(tl), time.Now().Truncate(time.Millisecond)
	return st, nil
}

// RealTimeFaults refuses the apiErrors steps of a scenario played in real
// time: opcert's clients fail the calls of the actors it runs, in virtual
// time; an executable or a Deployment calls the API server through no
// client of opcert's, and the proxy in front of a process passes its TLS
// through, so its calls cannot be answered with an error. opcert run asks
// it of every plan before anything starts.
func RealTimeFaults(sc *scenarios.Scenario) error {
	for i, st := range sc.Steps {
		if st.APIErrors != nil {
			return fmt.Errorf("%s:%d: steps[%d].apiErrors: API errors are injected in virtual time only, and this run is in real time (an executable or a Deployment plays a role, or the run is on a cluster); play the scenario with opcert's subjects, or leave the step out", sc.Source, st.Line, i)
		}
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
