package rules

import (
	"fmt"
	"hash"
	"hash/fnv"
	"maps"
	"slices"
	"strings"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// Online reads the contract one event at a time (judge.Stream), so
// that a timeline is judged without its events being held; the batch
// rules fold every event through the same reader (contractOf).
func Online() judge.Online {
	return judge.Online{Key: contractKey{}, New: func() judge.Reader { return newContractReader() },
		Grows: "each ClusterOperator, operand or pod write"}
}

// contractReader derives the contract event by event. It keeps no event
// that the rules do not read: per component, the ClusterOperator's writes
// (each with its conditions after it), the changes of the operands' world
// (each with the world after it: operands, pods and their nodes), the
// rollouts, the operator's spec writes and the administrator's blockers;
// and each process's down spans. Reads, and the writes of kinds and
// objects the rules do not read, cost nothing but the count that gives
// the next event its position. What grows is the changes of what the
// rules read, not the events: a recording of ClusterOperators (the only
// kind opcert watch records of seed 001) keeps one coWrite per write, its
// conditions shared with every write that left them alike.
type contractReader struct {
	k      *contract
	byName map[string]*component
	worlds map[string]*world
	shared conditionSets
	pos    int
}

func newContractReader() *contractReader {
	return &contractReader{k: &contract{procs: judge.Processes{}}, byName: map[string]*component{}, worlds: map[string]*world{}, shared: newConditionSets()}
}

// conditionSets keeps one copy of each condition, and of each set of
// conditions a write left, found by a hash of their content: what a write
// keeps of them is pointers, as a status goes back and forth.
type conditionSets struct {
	sets  map[uint64][]map[string]timeline.Condition
	conds map[uint64][]*timeline.Condition
}

func newConditionSets() conditionSets {
	return conditionSets{sets: map[uint64][]map[string]timeline.Condition{}, conds: map[uint64][]*timeline.Condition{}}
}

// hashCondition adds c's content to h.
func hashCondition(h hash.Hash64, c timeline.Condition) {
	for _, f := range []string{c.Type, c.Status, c.Reason, c.Message} {
		_, _ = fmt.Fprintf(h, "%d:%s", len(f), f)
	}
	_, _ = fmt.Fprintf(h, "%d", c.LastTransitionTime.UnixNano())
}

func (s conditionSets) intern(conds map[string]timeline.Condition) map[string]timeline.Condition {
	h := fnv.New64a()
	for _, t := range slices.Sorted(maps.Keys(conds)) {
		hashCondition(h, conds[t])
	}
	k := h.Sum64()
	for _, m := range s.sets[k] {
		if maps.EqualFunc(m, conds, sameCondition) {
			return m
		}
	}
	s.sets[k] = append(s.sets[k], conds)
	return conds
}

// changes is cs with each side the shared copy of its condition, in a
// slice of its own (the event's is its reader's).
func (s conditionSets) changes(cs []timeline.ConditionChange) []timeline.ConditionChange {
	if cs == nil {
		return nil
	}
	out := make([]timeline.ConditionChange, len(cs))
	for i, ch := range cs {
		out[i] = timeline.ConditionChange{Type: ch.Type, Before: s.condition(ch.Before), After: s.condition(ch.After)}
	}
	return out
}

func (s conditionSets) condition(c *timeline.Condition) *timeline.Condition {
	if c == nil {
		return nil
	}
	h := fnv.New64a()
	hashCondition(h, *c)
	k := h.Sum64()
	for _, p := range s.conds[k] {
		if sameCondition(*p, *c) {
			return p
		}
	}
	p := new(timeline.Condition)
	*p = *c
	s.conds[k] = append(s.conds[k], p)
	return p
}

// sameCondition tells whether two conditions say the same, their times to
// the location (a shared copy is shown as the write's own).
func sameCondition(a, b timeline.Condition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message &&
		a.LastTransitionTime.Equal(b.LastTransitionTime) && a.LastTransitionTime.Location() == b.LastTransitionTime.Location()
}

func (r *contractReader) get(name string) (*component, *world) {
	if r.byName[name] == nil {
		w := newWorld()
		r.byName[name], r.worlds[name] = &component{name: name}, &w
	}
	return r.byName[name], r.worlds[name]
}

// Read takes the next event.
func (r *contractReader) Read(e timeline.Event) {
	pos := r.pos
	r.pos++
	o := e.Object
	if o.Kind == timeline.KindProcess && o.Group == "" {
		r.k.procs.Note(e, pos)
		return
	}
	switch {
	case o.Kind == kindClusterOperator && o.Group == configGroup && e.IsWrite():
		x, _ := r.get(o.Name)
		e.Conditions = r.shared.changes(e.Conditions)
		x.noteStatus(e, pos, r.shared)
	case (o.Kind == kindDeployment || o.Kind == kindDaemonSet) && o.Group == appsGroup && o.Namespace != "":
		x, w := r.get(o.Namespace)
		if e.Role == RoleOperator && e.Verb != timeline.VerbDelete && e.Verb != timeline.VerbUpdateStatus {
			x.attempts = append(x.attempts, e)
		}
		if !e.IsWrite() {
			return
		}
		v, asked := w.noteWorkload(e)
		if cur := x.current(); asked && (cur == nil || cur.end != nil || cur.to != v) {
			x.begin(v, e, pos)
		}
		x.noteStep(e, pos, *w, func(ro *rollout) bool { return v != "" && v == ro.to })
	case o.Kind == kindPod && o.Group == "" && o.Namespace != "" && e.IsWrite():
		x, w := r.get(o.Namespace)
		ch := w.notePod(e)
		x.noteStep(e, pos, *w, func(ro *rollout) bool { return ch.towards(ro.to) })
	case o.Kind == kindConfigMap && o.Group == "" && strings.HasSuffix(o.Name, adminSuffix) &&
		o.Namespace == strings.TrimSuffix(o.Name, adminSuffix) && e.IsWrite():
		x, _ := r.get(o.Namespace)
		x.noteBlocker(e)
	}
}

// Facts is the contract, its components by name.
func (r *contractReader) Facts() any {
	r.k.components = r.k.components[:0]
	for _, name := range slices.Sorted(maps.Keys(r.byName)) {
		r.k.components = append(r.k.components, r.byName[name])
	}
	return r.k
}
