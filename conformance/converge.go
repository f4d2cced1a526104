package conformance

import (
	"context"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// playPerturbed plays a scenario with perturb steps: first without them,
// under basePrefix, then with them; the perturbed run is judged
// by the rules and, for each perturbed role, by convergence to where the
// unperturbed run ended (judge.Convergence). Its report entry is the
// perturbed run's, its wall time both runs'.
func playPerturbed(ctx context.Context, api client.Client, m Mechanism, sc *scenarios.Scenario, cast Cast, opts Options, basePrefix string) (reports.Run, *timeline.Timeline) {
	bopts := opts
	bopts.Prefix, bopts.Progress = basePrefix, nil
	base, btl := play(ctx, api, m, sc.Unperturbed(), cast, bopts)
	run, tl := playAgainst(ctx, api, m, sc, cast, opts, base, btl)
	run.Wall += base.Wall
	return run, tl
}

// unperturbedPrefix keeps the unperturbed run's objects apart from the
// perturbed run's on one API server: "r01-" becomes "r01u-" (Play's
// callers number their runs in prefixes that never end so).
func unperturbedPrefix(prefix string) string {
	return strings.TrimSuffix(prefix, "-") + "u-"
}

// perturbedRoles are the roles the scenario perturbs, sorted, each once.
func perturbedRoles(sc *scenarios.Scenario) []string {
	var roles []string
	for _, st := range sc.Steps {
		if st.Perturb != nil {
			roles = append(roles, st.Perturb.Role)
		}
	}
	slices.Sort(roles)
	return slices.Compact(roles)
}

// converges is the CONVERGE case of one perturbed role. The unperturbed
// run's events are moved to the perturbed run's origin (in real time each
// run has its own).
func converges(sc *scenarios.Scenario, role string, base reports.Run, baseEvents []timeline.Event, run reports.Run, events []timeline.Event) reports.Case {
	c := judge.ConvergeCase(role)
	switch {
	case base.Error != "":
		c.Status, c.Message = reports.Skip, "not judged: the unperturbed run did not complete: "+base.Error
		return c
	case run.Error != "" && run.Stopped == reports.StopSubject:
		c.Status, c.Message = reports.Fail, "the perturbed run did not complete: "+run.Error
		return c
	case run.Error != "":
		c.Status, c.Message = reports.Skip, "not judged: the perturbed run did not complete: "+run.Error
		return c
	}
	origin, baseOrigin := runOrigin(run), runOrigin(base)
	shift := origin.Sub(baseOrigin)
	moved := make([]timeline.Event, len(baseEvents))
	for i, e := range baseEvents {
		e.Time = e.Time.Add(shift)
		moved[i] = e
	}
	end, _ := sc.PerturbEnd()
	scale := run.TimeScale
	if scale == 0 {
		scale = 1
	}
	over, span := judge.Perturbations(events, origin.Add(scaled(end, scale)))
	return judge.Convergence{Role: role, Unperturbed: moved, Perturbed: events, Origin: origin, Over: over, Span: span,
		End: origin.Add(scaled(sc.Duration.Duration, scale)), Bound: run.Reaction + run.Tolerance}.Judge()
}

// runOrigin is a run's time zero: its start in real time, else the epoch.
func runOrigin(run reports.Run) time.Time {
	if !run.Start.IsZero() {
		return run.Start
	}
	return timeline.Epoch
}
