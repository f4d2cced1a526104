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
// perturbations are over, the objects the role writes conditions to end
// with the conditions an unperturbed run of the same scenario ends with
// (their types and statuses: reasons and messages may carry times, a
// restarted operator's own words). The run must go on long enough for
// that to be owed: the reaction bound after the perturbations are over,
// or after the unperturbed run's last change moved by the perturbation's
// span and one reaction (a timer the perturbation held back, a deadline
// counted from a write it delayed until the subject's next look),
// whichever is later; a run that ends sooner is not judged, nor one whose
// role the scenario killed or cut off after the perturbation and that
// ends unlike the unperturbed run: it could not converge. When it gets
// there is not judged beyond that: a faithful operator backs off its
// retries after API errors (controller-runtime's back-off grows to 1000s),
// which the mechanism's rules, not convergence, hold to the seed. It
// judges what the seeds leave to every operator: whatever it writes, a
// faithful one ends where it would have ended unperturbed.
type Convergence struct {
	// Role is the perturbed role.
	Role string
	// Unperturbed is the unperturbed run's events.
	Unperturbed []timeline.Event
	// Perturbed is the perturbed run's events.
	Perturbed []timeline.Event
	// Over is when the last perturbation was over (a window's end and the
	// retry after it, a crashed actor's restart; Perturbations).
	Over time.Time
	// End is the runs' end.
	End time.Time
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
		Statement: "after the perturbations, the role's objects end with the conditions the unperturbed run ends with"}
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
	over, span := c.Over, c.Span
	if back := c.backAfter(); back.After(over) {
		// What the perturbations kept from the role it learns only once
		// back: they are over for it then.
		over, span = back, span+back.Sub(over)
	}
	due := over
	if moved := base.last.Add(span + c.Bound); moved.After(due) {
		due = moved
	}
	due = due.Add(c.Bound)
	at := func(t time.Time) string { return "+" + t.Sub(c.Origin).String() }
	if due.After(c.End) {
		out.Status = reports.Skip
		out.Message = fmt.Sprintf("not judged: the run ends at %s, before %s, the reaction bound (%v) after the perturbations, or after the unperturbed run's last change moved by their span (%v) and one reaction", at(c.End), at(due), c.Bound, span)
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
		out.Message = fmt.Sprintf("after the perturbations (over by %s) the %s's objects end unlike the unperturbed run's: %s", at(over), c.Role, strings.Join(diffs, "; "))
		out.Evidence = append(c.perturbations(), evidence...)
	default:
		out.Status = reports.Pass
		out.Message = fmt.Sprintf("%d object(s) of the %s end with the unperturbed run's conditions (their last change at %s)", len(objects), c.Role, at(pert.last))
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

// backAfter is when the role's actors down at the perturbations' end (a
// step killed or hung one as they ended) were all back, zero if none was
// down then.
func (c Convergence) backAfter() time.Time {
	procs := c.processes()
	var back time.Time
	for a := range procs {
		for _, s := range procs.Downs(a) {
			if !s.From.After(c.Over) && !s.To.IsZero() && s.To.After(c.Over) && s.To.After(back) {
				back = s.To
			}
		}
	}
	return back
}

// downAfter tells whether an actor of the role was down after the
// perturbations for another reason than one of them (a step killed or
// hung it).
func (c Convergence) downAfter() bool {
	procs := c.processes()
	for a := range procs {
		if procs.DownDuring(a, c.Over, c.End) {
			return true
		}
	}
	return false
}

// processes is the process record of the role's actors in the perturbed run.
func (c Convergence) processes() Processes {
	procs, out := Processes{}, Processes{}
	for i, e := range c.Perturbed {
		if e.Object.Kind == timeline.KindProcess {
			procs.Note(e, i)
			if e.Role == c.Role {
				out[e.Object.Name] = nil
			}
		}
	}
	for a := range out {
		out[a] = procs[a]
	}
	return out
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
