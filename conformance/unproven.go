package conformance

import (
	"fmt"
	"maps"
	"slices"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// A run that fails nothing has not yet passed: its subject under test may
// never have done anything the rules could see. These are the runs that
// prove nothing (reports.Run.NotJudged, verdict NOT JUDGED, exit 4):
//
//   - a subject under test never acted: its role made no write to the API
//     server (nor to a simulated node's files) in the whole run. An
//     executable that exits on a flag error, a misspelled placeholder, an
//     operator writing an object of another name all look like this, and
//     every rule about the role passes vacuously. A subject under test is
//     one opcert did not write: an executable, a Deployment, a team's
//     reconciler (library mode); opcert's own subjects are known to act
//     where their scenarios ask them to.
//   - a process of a subject under test ended without being asked (a
//     crash, an exit): what the rules judged after it is its absence.
//   - no rule could judge the run: every rule of the mechanism said "not
//     judged" (the scenario's own expectations do not count).
//
// A run that failed a rule, or that its subjects broke, is FAIL whatever
// this says; one stopped by its environment or a signal has its own
// verdict.

// unproven says why run, which completed or was broken by its subjects,
// proves nothing of them (nil: it proves something). events are its
// timeline.
func unproven(m Mechanism, cast Cast, events []timeline.Event, run reports.Run) []string {
	if run.Stopped != "" && run.Stopped != reports.StopSubject {
		return nil
	}
	var why []string
	for _, role := range slices.Sorted(maps.Keys(cast)) {
		s := cast[role]
		r := findRole(m, role)
		if r == nil || r.builtIn(s.Name) {
			continue
		}
		shown, _ := Shown(s.Name)
		if !slices.ContainsFunc(events, func(e timeline.Event) bool { return e.Role == role && acted(e) }) {
			why = append(why, fmt.Sprintf("the %s (%s) never acted: it wrote nothing in the run, so no rule saw it do anything", role, shown))
		}
		for _, p := range run.Processes {
			if p.Role == role && p.Unasked > 0 {
				why = append(why, fmt.Sprintf("%s ended without being asked (%d of its processes; see its log %s): what came after was its absence", p.Name, p.Unasked, p.Log))
			}
		}
	}
	if s := judge.NothingJudged(run.Cases); s != "" {
		why = append(why, s)
	}
	return why
}

// Unproven is unproven for a run judged again from its report (opcert
// analyze of a played run's timeline): subjects are its cast as the report
// names it (role -> subject), run its entry with the cases judged again.
func Unproven(m Mechanism, subjects map[string]string, events []timeline.Event, run reports.Run) []string {
	cast := Cast{}
	for role, name := range subjects {
		cast[role] = Subject{Name: name}
	}
	return unproven(m, cast, events, run)
}

// acted tells whether e is something a subject did that rules can see: a
// write to the API server, or to a simulated node's files.
func acted(e timeline.Event) bool {
	if e.IsWrite() {
		return true
	}
	if e.Object.Kind != timeline.KindFile {
		return false
	}
	switch e.Verb {
	case timeline.VerbWrite, timeline.VerbRename, timeline.VerbSymlink, timeline.VerbRemove, timeline.VerbLock, timeline.VerbUnlock:
		return true
	}
	return false
}

// builtIn tells whether a subject of that name is one of opcert's own
// subjects of the role (the reference, a mutant, a faithful variant, a
// profile), not one a team brought.
func (r *Role) builtIn(name string) bool {
	return slices.ContainsFunc(r.Subjects, func(s Subject) bool { return s.Name == name })
}
