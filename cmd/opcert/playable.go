package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/reports"
)

// Some scenarios cannot be played the way a run plays: a mechanism that
// cannot scale its times under --time-scale, API errors in real time
// (conformance.RealTimeFaults), a mechanism no executable or Deployment can
// play a role of in a run that gives one. Each is known from the flags and
// the files alone, so it is settled before the API server starts: a
// scenario the user named (a FILE, --scenario, or its mechanism with
// --mechanism for what is the mechanism's) is refused (exit 2); a built-in
// the run only came to by default is left out, and the plan, the summary
// and the report say which and why. It never counts as passed.

// unplayable says why p cannot be played the way the run plays it ("" if
// it can), what to do about it when the reason is its mechanism's, and
// whether it is (rather than its scenario's). external says a subject outside opcert (an
// executable, a Deployment) plays a role in the run.
func (o *runOptions) unplayable(p plan, external bool) (why, fix string, mechanisms bool) {
	_, scalable := p.m.(conformance.Scalable)
	switch {
	case o.timeScale != 1 && !scalable:
		return fmt.Sprintf("mechanism %s cannot scale its times, so --time-scale %g cannot play it", p.m.Name(), o.timeScale),
			"run it without --time-scale, or leave it out (--mechanism, --scenario)", true
	case external && !realTimeRoles(p.m):
		return fmt.Sprintf("mechanism %s has no role an executable or a Deployment can play, so its runs would judge only opcert's own subjects", p.m.Name()),
			"run it without exec: or deployment: subjects, or leave it out (--mechanism, --scenario)", true
	case p.realTime && conformance.RealTimeFaults(p.sc, p.processes) != nil:
		// Refused with RealTimeFaults' own words: the step's line, the fix.
		// (Built-ins, which a run leaves out this way, have no perturb steps.)
		return "its apiErrors steps are injected in virtual time only, and this run plays in real time (an executable or a Deployment plays a role, or the run is on a cluster)", "", false
	}
	return "", "", false
}

// realTimeRoles tells whether a subject outside opcert can play any of
// the mechanism's roles.
func realTimeRoles(m conformance.Mechanism) bool {
	return slices.ContainsFunc(m.Roles(), func(r conformance.Role) bool {
		return r.Takes(conformance.FormProcess) || r.Takes(conformance.FormCluster)
	})
}

// playable splits the plans into those the run plays and the built-ins it
// leaves out, or refuses a named scenario that cannot be played. named
// says the scenarios were named (FILEs, --scenario).
func (o *runOptions) playable(plans []plan, named bool) ([]plan, []reports.Skipped, error) {
	external := slices.ContainsFunc(o.subjects, func(s string) bool {
		_, subject, _ := strings.Cut(s, "=")
		return conformance.External(subject)
	})
	var play []plan
	var skipped []reports.Skipped
	for _, p := range plans {
		why, fix, mechanisms := o.unplayable(p, external)
		refuse := named || mechanisms && len(o.only) > 0
		switch {
		case why == "":
			play = append(play, p)
		case !refuse:
			skipped = append(skipped, reports.Skipped{Scenario: p.sc.Name, Mechanism: p.m.Name(), Why: why})
		case mechanisms:
			return nil, nil, fmt.Errorf("%s: %s; %s", p.sc.Source, why, fix)
		default:
			return nil, nil, conformance.RealTimeFaults(p.sc, p.processes)
		}
	}
	if len(play) == 0 && len(skipped) > 0 {
		return nil, nil, fmt.Errorf("no scenario can be played this way: %s: %s", skipped[0].Scenario, skipped[0].Why)
	}
	return play, skipped, nil
}
