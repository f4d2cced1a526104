package conformance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// Options tune one Play.
type Options struct {
	// Prefix keeps the run's objects apart from other runs' on the same server.
	Prefix string
	// Dir is where the run may keep files (Stage.Dir).
	Dir string
	// Workers bounds the objects worked on at once (0: the scheduler's
	// default); a timeline does not depend on it.
	Workers int
	// Progress, if set, is told the virtual time reached each time the
	// clock jumps.
	Progress func(virtual time.Duration)
	// TimeScale multiplies the scenario's times and, through
	// Scalable, the mechanism's thresholds (0 means 1): a real-time
	// run of a long scenario takes minutes at 0.01.
	TimeScale float64
	// Host is the API server a run with executable subjects (Process)
	// starts them against; such a run is in real time (realtime.go).
	Host Host
	// ProcessDir receives the processes' output; their kubeconfigs go
	// into a directory of their own in Dir (process mode needs both).
	ProcessDir string
	// Cluster, when set, is the cluster the run is played on (cluster
	// mode), reached with opcert's rights; api is then a client of it that
	// writes only what the run may write. Such a run is in real time, and
	// its Deployment subjects are scaled through api.
	Cluster *rest.Config
	// Strict judges the run strictly (Judging.Strict): the failures of
	// convention rules fail it instead of warning.
	Strict bool
}

// Play runs one scenario with one choice of subjects against the API server
// behind api, judges the timeline, and returns the run's report entry with
// the timeline. A run that cannot complete says why in the report's Error
// and Stopped, and is judged only as far as that reason allows (stop.go).
// A scenario with perturb steps is played twice, without them first, and
// judged by convergence too (converge.go).
func Play(ctx context.Context, api client.Client, m Mechanism, sc *scenarios.Scenario, cast Cast, opts Options) (run reports.Run, tl *timeline.Timeline) {
	if !sc.Perturbed() {
		return play(ctx, api, m, sc, cast, opts)
	}
	return playPerturbed(ctx, api, m, sc, cast, opts, unperturbedPrefix(opts.Prefix))
}

func play(ctx context.Context, api client.Client, m Mechanism, sc *scenarios.Scenario, cast Cast, opts Options) (run reports.Run, tl *timeline.Timeline) {
	tl = &timeline.Timeline{}
	run = reports.Run{Scenario: sc.Name, Mechanism: m.Name(), Description: sc.Description, Subjects: cast.Names(),
		Redacted: cast.Redacted(), Virtual: sc.Duration.Duration}
	err := Refuses(m, cast)
	var stage *Stage
	if err == nil {
		stage, err = newStage(api, sc, cast, tl, &m, opts)
	}
	// The bound the rules judge with: newStage scaled it with a scaled
	// run's times (--time-scale), as analyze of the run's timeline does.
	run.Reaction = ReactionOf(m)
	// Last, once the processes have said how they ended: whether the run
	// proved anything of its subjects (unproven.go).
	defer func() { run.NotJudged = unproven(m, cast, tl.Events(), run) }()
	if err != nil {
		run.Error, run.Stopped = err.Error(), reports.StopScenario
		return run, tl
	}
	if stage.Processes != nil {
		// Every process goes when the run ends, whatever ends it; the
		// report says how each ended.
		defer func() { run.Processes = stage.Processes.Close() }()
	}
	if stage.Deployments != nil {
		// Every Deployment goes back to its replicas, whatever ends the run.
		defer func() { run.Processes = append(run.Processes, stage.Deployments.Close()...) }()
	}
	stage.bg, stage.cancel = context.WithCancel(ctx)
	sched := stage.Sched
	sched.Prefix = opts.Prefix
	if opts.Workers > 0 {
		sched.Workers = opts.Workers
	}
	if opts.Progress != nil {
		sched.OnAdvance = func(t time.Time) { opts.Progress(t.Sub(stage.Origin)) }
	}
	start := time.Now()

	// Steps are queued before anything starts, so at any instant they run
	// before the controllers' work (the scenario format promises it).
	var actions Actions
	end := stage.At(sc.Duration.Duration)
	scn := &scene{sched: sched, client: sched.Client(api, timeline.RoleScenario, timeline.RoleScenario), actions: &actions,
		source: sc.Source, expects: ExpectedKind(m.Name()), faults: map[*scenarios.APIErrors]*sim.Fault{},
		views: map[*scenarios.Perturb]*sim.Perturbed{}, errs: map[*scenarios.Perturb]*sim.Fault{},
		lost: map[*scenarios.Perturb][]string{}, stage: stage,
		tl: tl, origin: stage.Origin, end: end, window: expectWindow(m, sched.Realtime()), ownTexts: referenceWrites(m, cast)}
	for _, step := range sc.Steps {
		if err = scn.queue(stage, step); err != nil {
			break // nothing started: a crash at the start cannot be armed
		}
	}
	if err == nil {
		if actions, err = m.Build(ctx, stage, sc, cast); err == nil {
			err = scn.unhandled(actions, sc)
		}
	}
	if err == nil {
		err = scn.metPerturbation(sched.Run(ctx, end))
	}
	stage.stop()
	run.Wall = time.Since(start)
	run.APICalls, run.MedianCall = sched.APICalls()
	run.Reached = sched.Now().Sub(stage.Origin)
	events := tl.Events()
	judgeUpTo := func(events []timeline.Event, end time.Time) []reports.Case {
		j := judge.NewJudging(events, end)
		j.Start, j.Strict = stage.Origin, opts.Strict
		return judge.JudgeWith(m.Rules(), j)
	}
	if sched.Realtime() {
		tl.SortByTime()
		events = tl.Events()
		run.Start, run.TimeScale = stage.Origin, stage.Scale
		if _, ok := m.(Tolerant); ok { // newStage gave the rules it
			run.Tolerance = RealtimeTolerance
		}
	}
	if err == nil {
		run.Cases = append(judgeUpTo(events, end), judge.Expectations(events))
		return run, tl
	}
	run.Error, run.Stopped = err.Error(), stopReason(ctx, err)
	// A subject that stamped wall-clock times broke the run too, but the
	// times on its timeline are not the run's: nothing is judged on them.
	var stamp *sim.WallClockError
	if run.Stopped != reports.StopSubject || errors.As(err, &stamp) {
		why := fmt.Sprintf("the run stopped (%s) at +%s", run.Stopped, run.Reached)
		expect := judge.ExpectCase()
		expect.Status, expect.Message = reports.Skip, "not judged: "+why
		run.Cases = append(notJudged(m.Rules(), why), expect)
		return run, tl
	}
	// The subjects broke the run: judge what completed, every instant
	// before the one it stopped at, as a run of that length.
	cut := sched.Now()
	events = before(events, cut)
	run.Cases = append(judgeUpTo(events, cut.Add(-time.Nanosecond)), judge.Expectations(events))
	return run, tl
}

// expectWindow is how long after its step an expectation may come to hold
// (expect.go): the reaction bound the rules judge with, and in real time
// the tolerance their deadlines get.
func expectWindow(m Mechanism, realtime bool) time.Duration {
	w := ReactionOf(m)
	if realtime {
		w += RealtimeTolerance
	}
	return w
}

// referenceWrites tells whether a role's writes are its reference's (or
// the world's: a role the cast does not fill), whose texts expectations
// compare.
func referenceWrites(m Mechanism, cast Cast) func(role string) bool {
	return func(role string) bool {
		s, ok := cast[role]
		if !ok {
			return true
		}
		for _, r := range m.Roles() {
			if r.Name == role {
				return s.Name == r.Subjects[0].Name
			}
		}
		return true
	}
}
