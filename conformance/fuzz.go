package conformance

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// FuzzOptions says what Fuzz draws and how much it may shrink.
type FuzzOptions struct {
	// Draw is the first draw number, the random source's seed: run i
	// plays the scenario draw Draw+i gives.
	Draw uint64
	// Runs is how many scenarios Fuzz draws and plays.
	Runs int
	// Plays, if set, says which of the Runs this call plays (a shard's
	// share of a campaign); the others are not drawn. Each run keeps the
	// prefix its place gives it, so a shard's runs are the whole's.
	Plays func(i int) bool
	// Duration is the virtual time each drawn scenario spans.
	Duration time.Duration
	// ShrinkRuns bounds the candidate runs spent shrinking a failure.
	ShrinkRuns int
	// Dir is where runs may keep files (Options.Dir).
	Dir string
	// Stem starts every run's prefix (Options.Prefix), "f" if empty: two
	// Fuzz calls on one API server need different stems.
	Stem string
	// Ran, if set, is told of each run as it ends: the drawn ones (shrink
	// false) and the shrinking's candidates.
	Ran func(sc *scenarios.Scenario, run reports.Run, shrink bool)
	// Strict judges every run strictly (Options.Strict), so that a
	// convention rule's failure is a finding too; otherwise it is a
	// warning, and warnings are not shrunk.
	Strict bool
}

// Finding is a drawn scenario on which the cast failed, and the smallest
// scenario shrinking found that still fails the same way.
type Finding struct {
	// Draw is the draw number that gave the failing scenario.
	Draw uint64
	// Failure is what failed: a rule's ID, or why the run stopped.
	Failure string
	// Drawn is the scenario that draw gave, as played.
	Drawn *scenarios.Scenario
	// DrawnFile and MinimalFile are the scenarios as files that replay them.
	DrawnFile []byte
	// DrawnRun is the drawn scenario's run, as its report holds it.
	DrawnRun reports.Run
	// Minimal is the smallest scenario that still fails with Failure; nil when shrinking found none.
	Minimal *scenarios.Scenario
	// MinimalFile is Minimal as a scenario file (see DrawnFile).
	MinimalFile []byte
	// MinimalRun is Minimal's run, or DrawnRun when nothing smaller failed.
	MinimalRun reports.Run
	// MinimalTL is the timeline of MinimalRun, for the report's pictures.
	MinimalTL *timeline.Timeline
	// ShrinkRuns is how many candidate runs shrinking spent.
	ShrinkRuns int
	// Point is the perturbation that failed (opcert perturb), "" for a
	// drawn scenario.
	Point string
}

// Fuzz plays o.Runs scenarios drawn by m's scenario kind (scenarios.Drawn)
// with cast, and stops at the first that fails a rule or cannot complete
// through its subjects' fault, which it shrinks (scenarios.Shrinking). It
// returns nil when every run passed, and an error when the environment or
// ctx stopped a run (nothing is judged then).
func Fuzz(ctx context.Context, api client.Client, m Mechanism, cast Cast, o FuzzOptions) (*Finding, error) {
	n, stem := 0, o.Stem
	if stem == "" {
		stem = "f"
	}
	play := func(sc *scenarios.Scenario, shrink bool) (reports.Run, *timeline.Timeline, error) {
		n++
		run, tl := Play(ctx, api, m, sc, cast, Options{Prefix: stem + strconv.FormatInt(int64(n), 36) + "-", Dir: o.Dir, Strict: o.Strict})
		if o.Ran != nil {
			o.Ran(sc, run, shrink)
		}
		switch run.Stopped {
		case reports.StopEnvironment, reports.StopInterrupted:
			return run, tl, fmt.Errorf("%s: %s", sc.Name, run.Error)
		}
		return run, tl, nil
	}
	for i := range o.Runs {
		if o.Plays != nil && !o.Plays(i) {
			continue
		}
		n = i // run i's prefix counts i+1, its shrinking's candidates on from there
		draw := o.Draw + uint64(i)
		sc, file, err := scenarios.Drawn(m.Name(), draw, o.Duration)
		if err != nil {
			return nil, err
		}
		run, tl, err := play(sc, false)
		if err != nil {
			return nil, err
		}
		failure := firstFailure(run)
		if failure == "" {
			continue
		}
		f := &Finding{Draw: draw, Failure: failure, Drawn: sc, DrawnFile: file, DrawnRun: run, MinimalRun: run, MinimalTL: tl}
		sh := &scenarios.Shrinking{Budget: o.ShrinkRuns, Fails: func(c *scenarios.Scenario) (bool, error) {
			run, tl, err := play(c, true)
			if err != nil || !failsWith(run, failure) {
				return false, err
			}
			f.MinimalRun, f.MinimalTL = run, tl
			return true, nil
		}}
		min, minFile, err := sh.Shrink(sc, fmt.Sprintf("fuzz-%s-%d-min.yaml", m.Name(), draw))
		f.Minimal, f.MinimalFile, f.ShrinkRuns = min, minFile, sh.Runs
		if min != nil {
			f.Minimal.Name = sc.Name + "-min"
			f.Minimal.Description = fmt.Sprintf("Shrunk by opcert fuzz in %d runs from the %d steps over %s that draw %d gives (%s); still fails %s.",
				sh.Runs, len(sc.Steps), sc.Duration.Duration, draw, sc.Source, failure)
			if f.MinimalFile, err = scenarios.Encode(f.Minimal); err != nil {
				return f, err
			}
			f.MinimalRun.Scenario = f.Minimal.Name
		}
		return f, err
	}
	return nil, nil
}

// firstFailure names what a run failed: the first failed case's rule (in
// rule order), or why the run stopped if it was its subjects' or its
// steps' fault; "" if nothing failed.
func firstFailure(run reports.Run) string {
	if run.Stopped == reports.StopScenario {
		return "a step was refused"
	}
	for _, c := range run.Cases {
		if c.Status == reports.Fail {
			return c.Rule
		}
	}
	if run.Stopped == reports.StopSubject {
		return "the subjects broke the run"
	}
	return ""
}

// failsWith tells whether a run failed the way failure names.
func failsWith(run reports.Run, failure string) bool {
	for _, c := range run.Cases {
		if c.Status == reports.Fail && c.Rule == failure {
			return true
		}
	}
	return firstFailure(run) == failure
}
