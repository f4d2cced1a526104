package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
)

type plan struct {
	sc   *scenarios.Scenario
	m    conformance.Mechanism
	cast conformance.Cast
	// realTime says the run plays on the wall clock: an executable or a
	// Deployment plays a role, or the run is on a cluster; processes that
	// executables do, not on a cluster (process mode).
	realTime, processes bool
}

// perCall is the wall time one API call costs here: the median measured by
// the stale-fleet-24h benchmark (35 s for 9,854 calls, README Performance).
const perCall = 3500 * time.Microsecond

// realTimeStart is what a real-time run costs besides its scenario's
// scaled time: starting its processes (a user, a proxy, a kubeconfig
// each) or reaching its Deployments, and stopping what still runs at the
// end (SIGTERM, which a manager honours in milliseconds). Measured here: a
// 30m and a 40m stale scenario at 0.01 took 18s and 24s, 42.1s together.
const realTimeStart = time.Second

// longRun is when opcert says, before starting, that a run in virtual
// time will be long; longRealTime when a run in real time will: it takes
// all of it, and a team runs it on a laptop.
const (
	longRun      = 5 * time.Minute
	longRealTime = 2 * time.Minute
)

func (p plan) calls() int {
	e, ok := p.m.(conformance.Estimating)
	if !ok {
		return 0
	}
	return e.Estimate(p.sc)
}

// wall is the time the run should take, start-up of the API server aside:
// in virtual time its API calls; in real time its scenario's duration
// scaled, and the start and stop of what plays it.
func (p plan) wall(scale float64) time.Duration {
	if p.realTime {
		return time.Duration(float64(p.sc.Duration.Duration)*scale) + realTimeStart
	}
	return time.Duration(p.calls()) * perCall
}

// played says how the run plays its scenario's time.
func (p plan) played(scale float64) string {
	if p.realTime {
		return fmt.Sprintf("real time x%g", scale)
	}
	return "virtual"
}

// estimate is the API calls and wall time the plans should take, start-up
// aside, and of that wall time how much is spent in real time.
func estimate(plans []plan, scale float64) (calls int, wall, real time.Duration) {
	for _, p := range plans {
		calls += p.calls()
		wall += p.wall(scale)
		if p.realTime {
			real += p.wall(scale)
		}
	}
	return calls, wall, real
}

func printPlan(w io.Writer, plans []plan, skipped []reports.Skipped, out string, scale float64) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tSCENARIO\tMECHANISM\tSUBJECTS\tDURATION\tPLAYED IN\tAPI CALLS (EST.)\tWALL (EST.)")
	for i, p := range plans {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", i+1, p.sc.Name, p.m.Name(), reports.SubjectList(p.cast.Names()),
			p.sc.Duration.Duration, p.played(scale), p.calls(), p.wall(scale).Round(time.Millisecond))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, line := range reports.SkippedLines(skipped) {
		fmt.Fprintf(w, "not played: %s\n", line)
	}
	calls, wall, _ := estimate(plans, scale)
	_, err := fmt.Fprintf(w, "\n%d runs, about %d API calls and %s of wall time after a start-up of about 5s; reports to %s\n",
		len(plans), calls, wall.Round(time.Second), out)
	return err
}

// warnLong says on w, before anything starts, that the run will be long,
// and how to make it shorter.
func warnLong(w io.Writer, plans []plan, scale float64) {
	calls, wall, real := estimate(plans, scale)
	switch {
	case real > longRealTime:
		shorter := " or --time-scale 0.01 (a 10m challenge after 6s)"
		switch {
		case scale <= minTimeScale:
			shorter = ""
		case scale < 1:
			shorter = fmt.Sprintf(" or a smaller --time-scale than %g", scale)
		}
		fmt.Fprintf(w, "opcert: a long run: about %s of wall time, %s of it in real time (each scenario's duration x --time-scale %g); "+
			"to shorten it, run fewer scenarios (--scenario, --mechanism)%s (see --dry-run)\n",
			wall.Round(time.Second), real.Round(time.Second), scale, shorter)
	case wall > longRun:
		fmt.Fprintf(w, "opcert: a long run: about %d API calls, about %s of wall time (see --dry-run)\n", calls, wall.Round(time.Minute))
	}
}
