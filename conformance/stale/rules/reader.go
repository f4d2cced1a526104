package rules

import (
	"sort"

	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// reader classifies a timeline's writes to ClusterOperators as they come,
// object by object, and collects process outages and when the detector
// was up. It keeps, per ClusterOperator, one fact per write that moved a
// watched condition (the rules look back and forth along them), with the
// strings of a long recording shared rather than copied (the same
// messages come back cycle after cycle) and each fact's "before" the
// previous fact's "after".
type reader struct {
	state      timeline.State
	watched    map[timeline.ObjectRef]map[string]timeline.Condition // watched(state[o]), as last computed
	byName     map[string]*history
	challenged map[string]bool // a challenge since the last movement
	procs      processes
	detector   life
	strings    map[string]string
}

func newReader() *reader {
	return &reader{state: timeline.State{}, watched: map[timeline.ObjectRef]map[string]timeline.Condition{},
		byName: map[string]*history{}, challenged: map[string]bool{}, procs: processes{}, strings: map[string]string{}}
}

// Read takes the next event.
func (r *reader) Read(e timeline.Event) {
	if e.Object.Kind == sim.ProcessKind {
		r.procs.note(e)
		if e.Role == RoleDetector {
			r.detector = r.detector.noteDetector(e)
		}
		return
	}
	if e.Object.Kind != clusterOperatorKind || !e.IsWrite() {
		return
	}
	before, ok := r.watched[e.Object]
	if !ok {
		before = watched(r.state[e.Object])
	}
	r.state.Apply(e)
	after := watched(r.state[e.Object])
	if e.Verb == timeline.VerbDelete {
		delete(r.watched, e.Object)
	} else {
		r.watched[e.Object] = after
	}
	h := r.byName[e.Object.Name]
	if h == nil {
		h = &history{name: e.Object.Name}
		r.byName[e.Object.Name] = h
	}
	f := fact{before: before, after: after, kind: classify(e, before, after, r.challenged[e.Object.Name])}
	if f.kind == move && sameConditions(before, after) {
		return // a write that moved nothing watched
	}
	f.ev = r.share(e)
	r.challenged[e.Object.Name] = f.kind == challenge || (f.kind != move && r.challenged[e.Object.Name])
	h.facts = append(h.facts, f)
}

// Facts is what the rules read, once every event is in.
func (r *reader) Facts() any {
	out := make([]*history, 0, len(r.byName))
	for _, h := range r.byName {
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return facts{histories: out, procs: r.procs, detector: r.detector.orAlways()}
}

// share keeps an event's strings in one copy each (a recording's
// messages come back cycle after cycle).
func (r *reader) share(e timeline.Event) timeline.Event {
	e.Actor, e.Role, e.Verb, e.Detail = r.str(e.Actor), r.str(e.Role), r.str(e.Verb), r.str(e.Detail)
	e.Object = timeline.ObjectRef{Kind: r.str(e.Object.Kind), Group: r.str(e.Object.Group), Namespace: r.str(e.Object.Namespace), Name: r.str(e.Object.Name)}
	if e.Conditions != nil {
		conds := make([]timeline.ConditionChange, len(e.Conditions))
		for i, c := range e.Conditions {
			conds[i] = timeline.ConditionChange{Type: r.str(c.Type), Before: r.cond(c.Before), After: r.cond(c.After)}
		}
		e.Conditions = conds
	}
	return e
}

func (r *reader) cond(c *timeline.Condition) *timeline.Condition {
	if c == nil {
		return nil
	}
	return &timeline.Condition{Type: r.str(c.Type), Status: r.str(c.Status), Reason: r.str(c.Reason), Message: r.str(c.Message), LastTransitionTime: c.LastTransitionTime}
}

func (r *reader) str(s string) string {
	if v, ok := r.strings[s]; ok {
		return v
	}
	r.strings[s] = s
	return s
}
