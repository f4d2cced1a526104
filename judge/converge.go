package judge

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// Convergence is the oracle of a perturbed run (a scenario's perturb
// steps): the role's reconciliation is eventually stable. Once the
// perturbations are over, the objects the role writes conditions to reach
// the conditions an unperturbed run of the same scenario ends with (their
// types and statuses: reasons and messages may carry times, a restarted
// operator's own words), and stay there. They are owed by the reaction
// bound after the perturbations are over, or after the unperturbed run's
// last change moved by the perturbation's span (a timer the perturbation
// held back, a deadline counted from a write it delayed), whichever is
// later; a run that ends sooner is not judged, nor one whose role the
// scenario killed or cut off after the perturbation and ended unlike the
// unperturbed run: it could not converge. It judges what the seeds leave
// to every operator: whatever it writes, a faithful one ends where it
// would have ended unperturbed.
type Convergence struct {
	// Role is the perturbed role.
	Role string
	// Unperturbed and Perturbed are the two runs' events.
	Unperturbed, Perturbed []timeline.Event
	// Over is when the last perturbation was over (a window's end and
	// the retry after it, a crashed actor's restart), End the runs' end
	// (Perturbations).
	Over, End time.Time
	// Span is how long the longest perturbation delayed a write.
	Span time.Duration
	// Bound is the reaction bound the rules judge with.
	Bound time.Duration
	// Origin is the runs' time zero, for messages.
	Origin time.Time
}

// ConvergeRule is the ID of Convergence's case, which a perturbed run has
// besides its mechanism's rules and EXPECT.
const ConvergeRule = "CONVERGE"

// ConvergeCase is the case of Convergence, before it is judged.
func ConvergeCase(role string) reports.Case {
	return reports.Case{Rule: ConvergeRule, Section: "perturbation", Role: role,
		Statement: "after the perturbations, the role's objects reach the unperturbed run's conditions within the reaction bound and stay there"}
}

// settling is what one run's events leave of the role's objects: their
// conditions at the end and the last instant they changed.
type settling struct {
	final  map[timeline.ObjectRef]map[string]string // type -> status
	last   time.Time
	lastOf map[timeline.ObjectRef]timeline.Event
}

func settle(events []timeline.Event, objects map[timeline.ObjectRef]bool) settling {
	st := timeline.State{}
	s := settling{final: map[timeline.ObjectRef]map[string]string{}, lastOf: map[timeline.ObjectRef]timeline.Event{}}
	for _, e := range events {
		if !e.IsWrite() || !objects[e.Object] {
			continue
		}
		before := statuses(st[e.Object])
		st.Apply(e)
		if after := statuses(st[e.Object]); !maps.Equal(before, after) {
			s.last, s.lastOf[e.Object] = e.Time, e
		}
	}
	for o := range objects {
		s.final[o] = statuses(st[o])
	}
	return s
}

func statuses(conds map[string]timeline.Condition) map[string]string {
	out := map[string]string{}
	for t, c := range conds {
		out[t] = c.Status
	}
	return out
}

// written are the objects the role's actors wrote conditions to.
func (c Convergence) written(events ...[]timeline.Event) map[timeline.ObjectRef]bool {
	out := map[timeline.ObjectRef]bool{}
	for _, evs := range events {
		for _, e := range evs {
			if e.IsWrite() && e.Role == c.Role && len(e.Conditions) > 0 {
				out[e.Object] = true
			}
		}
	}
	return out
}

// Judge is the CONVERGE case.
func (c Convergence) Judge() reports.Case {
	out := ConvergeCase(c.Role)
	objects := c.written(c.Unperturbed, c.Perturbed)
	if len(objects) == 0 {
		out.Status, out.Message = reports.Skip, "not judged: the "+c.Role+" wrote no conditions in either run"
		return out
	}
	base, pert := settle(c.Unperturbed, objects), settle(c.Perturbed, objects)
	due := c.Over
	if moved := base.last.Add(c.Span); moved.After(due) {
		due = moved
	}
	due = due.Add(c.Bound)
	at := func(t time.Time) string { return "+" + t.Sub(c.Origin).String() }
	if due.After(c.End) {
		out.Status = reports.Skip
		out.Message = fmt.Sprintf("not judged: the run ends at %s, before %s, the reaction bound (%v) after the perturbations or the unperturbed run's last change moved by their span (%v)", at(c.End), at(due), c.Bound, c.Span)
		return out
	}
	var diffs []string
	var evidence []timeline.Event
	for _, o := range slices.SortedFunc(maps.Keys(objects), func(a, b timeline.ObjectRef) int { return strings.Compare(a.String(), b.String()) }) {
		if d := differ(base.final[o], pert.final[o]); d != "" {
			diffs = append(diffs, o.String()+" "+d)
			if e, ok := pert.lastOf[o]; ok {
				evidence = append(evidence, e)
			}
		}
	}
	switch {
	case len(diffs) > 0 && c.downAfter():
		out.Status = reports.Skip
		out.Message = fmt.Sprintf("not judged: the %s's objects end unlike the unperturbed run's (%s), but the scenario stopped the %s after the perturbations: it could not converge", c.Role, strings.Join(diffs, "; "), c.Role)
	case len(diffs) > 0:
		out.Status = reports.Fail
		out.Message = fmt.Sprintf("after the perturbations (over by %s) the %s's objects end unlike the unperturbed run's: %s", at(c.Over), c.Role, strings.Join(diffs, "; "))
		out.Evidence = append(c.perturbations(), evidence...)
	case pert.last.After(due):
		out.Status = reports.Fail
		out.Message = fmt.Sprintf("the %s's objects reached the unperturbed run's conditions only at %s, after %s (the reaction bound %v after the perturbations or the unperturbed run's last change, moved by their span %v)", c.Role, at(pert.last), at(due), c.Bound, c.Span)
		for _, e := range pert.lastOf {
			if e.Time.After(due) {
				evidence = append(evidence, e)
			}
		}
		slices.SortFunc(evidence, func(a, b timeline.Event) int { return a.Time.Compare(b.Time) })
		out.Evidence = append(c.perturbations(), evidence...)
	default:
		out.Status = reports.Pass
		out.Message = fmt.Sprintf("%d object(s) of the %s reached the unperturbed run's conditions by %s and stayed", len(objects), c.Role, at(c.End))
	}
	return out
}

// perturbations are the perturbed run's perturbation events, as evidence.
func (c Convergence) perturbations() []timeline.Event {
	var out []timeline.Event
	for _, e := range c.Perturbed {
		if strings.HasPrefix(e.Detail, timeline.PerturbationDetail) && e.Verb != timeline.VerbClear {
			out = append(out, e)
		}
	}
	return out
}

// differ says how the perturbed conditions differ from the unperturbed
// ones, "" if they do not.
func differ(base, pert map[string]string) string {
	if maps.Equal(base, pert) {
		return ""
	}
	var out []string
	types := maps.Clone(base)
	maps.Copy(types, pert)
	for _, t := range slices.Sorted(maps.Keys(types)) {
		if base[t] != pert[t] {
			out = append(out, fmt.Sprintf("%s %s (unperturbed %s)", t, orNone(pert[t]), orNone(base[t])))
		}
	}
	return strings.Join(out, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "absent"
	}
	return s
}

// downAfter tells whether an actor of the role was down after the
// perturbations for another reason than one of them (a step killed or
// hung it).
func (c Convergence) downAfter() bool {
	procs, actors := Processes{}, map[string]bool{}
	for i, e := range c.Perturbed {
		if e.Object.Kind == timeline.KindProcess {
			procs.Note(e, i)
			if e.Role == c.Role {
				actors[e.Object.Name] = true
			}
		}
	}
	for a := range actors {
		if procs.DownDuring(a, c.Over, c.End) {
			return true
		}
	}
	return false
}

// Perturbations are when a perturbed run's perturbations were over by its
// events (the last window's clear and the retry that follows it as long
// after, or a crashed actor's next start; from, when later: the scenario's
// last perturbation step) and how long the longest delayed a write (a
// window and its retry, a crash to the restart).
func Perturbations(events []timeline.Event, from time.Time) (over time.Time, span time.Duration) {
	over = from
	began := map[string]time.Time{} // by actor: a crash's kill, a window's start
	for _, e := range events {
		if e.Object.Kind != timeline.KindProcess {
			continue
		}
		perturbation := strings.HasPrefix(e.Detail, timeline.PerturbationDetail)
		start, ok := began[e.Object.Name]
		switch {
		case perturbation && (e.Verb == timeline.VerbKill || e.Verb == timeline.VerbFault):
			began[e.Object.Name] = e.Time
			continue
		case ok && (e.Verb == timeline.VerbStart || e.Verb == timeline.VerbClear):
			delete(began, e.Object.Name)
		default:
			continue
		}
		d, end := e.Time.Sub(start), e.Time
		if e.Verb == timeline.VerbClear {
			// The calls a window failed are retried as long after it
			// (Processes.Owed's retried): its writes come that much later.
			end = end.Add(d)
			d *= 2
		}
		span = max(span, d)
		if end.After(over) {
			over = end
		}
	}
	return over, span
}
