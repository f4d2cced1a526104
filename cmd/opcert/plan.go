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
	m    *conformance.Mechanism
	cast conformance.Cast
}

// perCall is the wall time one API call costs here: the median measured by
// the stale-fleet-24h benchmark (35 s for 9,854 calls, README Performance).
const perCall = 3500 * time.Microsecond

// longRun is when opcert says, before starting, that a run will be long.
const longRun = 5 * time.Minute

func (p plan) calls() int {
	if p.m.Estimate == nil {
		return 0
	}
	return p.m.Estimate(p.sc)
}

// estimate is the API calls and wall time the plans should take, start-up aside.
func estimate(plans []plan) (int, time.Duration) {
	n := 0
	for _, p := range plans {
		n += p.calls()
	}
	return n, time.Duration(n) * perCall
}

func printPlan(w io.Writer, plans []plan, out string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tSCENARIO\tMECHANISM\tSUBJECTS\tVIRTUAL\tAPI CALLS (EST.)\tWALL (EST.)")
	for i, p := range plans {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%s\n", i+1, p.sc.Name, p.m.Name, reports.SubjectList(p.cast.Names()),
			p.sc.Duration.Duration, p.calls(), (time.Duration(p.calls()) * perCall).Round(time.Millisecond))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	calls, wall := estimate(plans)
	_, err := fmt.Fprintf(w, "\n%d runs, about %d API calls and %s of wall time after a start-up of about 5s; reports to %s\n",
		len(plans), calls, wall.Round(time.Second), out)
	return err
}
