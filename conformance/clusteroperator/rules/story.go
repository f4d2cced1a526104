package rules

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// contract is what the contract rules (CO-001 to CO-009) read of a
// timeline, derived once for all of them (judge.Facts).
type contract struct {
	components []*component // by name
	procs      judge.Processes
}

// component is one component X's story: its ClusterOperator X, the
// operands and pods in namespace X, its rollouts and the administrator's
// blockers, in timeline order.
type component struct {
	name string
	// created: the ClusterOperator's creation is on the timeline, so its
	// first rollout is its installation.
	created bool
	writes  []coWrite // every write of the ClusterOperator, with the state after it
	steps   []step    // every change of the operands' world, with the world after it
	// rollouts are in the order they began; each ends where the next begins
	// if it was not complete by then.
	rollouts []*rollout
	// attempts are the operator's writes to operand specs, failed ones
	// included: what it tried to apply, whatever the timeline records of it.
	attempts []timeline.Event
	blockers []blocker
}

// coWrite is one write of the ClusterOperator and its status after it.
type coWrite struct {
	ev         timeline.Event
	pos        int
	conds      map[string]timeline.Condition
	version    string // versions[name=operator] after the write, "" if none
	hadVersion string // before it
	// moved: the write carries status.versions and changes the operator
	// entry (facts.go operatorVersionMoved).
	moved bool
}

func (w coWrite) mine() bool { return w.ev.Role == RoleOperator }

// step is one change of the operands' world.
type step struct {
	ev    timeline.Event
	pos   int
	world world // after it
}

// rollout is one rollout to a version: from the first operand spec write
// asking it (begin) until every operand asks it, no pod runs another
// version and every pod is ready (end), or until a rollout to another
// version begins (stop).
type rollout struct {
	to        string
	begin     timeline.Event
	beginPos  int
	end, stop *step // nil: not complete, not superseded
	// progress are the instants it moved towards its version: its spec
	// writes, and each pod write that created a pod at the version or
	// changed one's readiness, or deleted a pod of another version.
	progress []step
}

// over is where the rollout stops being the one under way: its
// completion or the next rollout's beginning; ok false while it runs at
// the end of the timeline.
func (r *rollout) over() (step, bool) {
	switch {
	case r.end != nil:
		return *r.end, true
	case r.stop != nil:
		return *r.stop, true
	}
	return step{}, false
}

// blocker is a write of the administrator's ConfigMap: what it asks to
// fix after the write ("" for nothing).
type blocker struct {
	ev   timeline.Event
	text string
}

type contractKey struct{}

func contractOf(j *judge.Judging) *contract {
	return judge.Facts(j, contractKey{}, func(events []timeline.Event) *contract {
		return judge.Fold[*contract](Online(), events)
	})
}

// noteStatus records a write of the ClusterOperator. Its conditions after
// it are shared with every write that left them alike (shared): rules only
// read them, and a status goes back and forth.
func (x *component) noteStatus(e timeline.Event, pos int, shared conditionSets) {
	w := coWrite{ev: e, pos: pos, conds: map[string]timeline.Condition{}}
	if n := len(x.writes); n > 0 && e.Verb != timeline.VerbCreate {
		last := x.writes[n-1]
		w.conds, w.version = last.conds, last.version
		if len(e.Conditions) > 0 {
			w.conds = maps.Clone(last.conds)
		}
	}
	if e.Verb == timeline.VerbCreate && !e.Listed() {
		x.created = true // a ClusterOperator a recording found was installed before it
	}
	w.hadVersion = w.version
	if e.Verb == timeline.VerbDelete {
		w.conds, w.version = map[string]timeline.Condition{}, ""
	}
	w.conds = e.ApplyConditions(w.conds)
	for _, f := range e.Fields {
		if f.Path == fieldVersions {
			w.version, _ = operatorVersionIn(f.After)
			w.moved = operatorVersionMoved(e)
		}
	}
	w.conds = shared.intern(w.conds)
	x.writes = append(x.writes, w)
}

// noteStep records a change of the operands' world. progressed tells
// whether the change moved the rollout under way towards its version.
func (x *component) noteStep(e timeline.Event, pos int, w world, progressed func(*rollout) bool) {
	s := &step{ev: e, pos: pos, world: w.clone()}
	x.steps = append(x.steps, *s)
	r := x.current()
	if r == nil || r.end != nil {
		return
	}
	if progressed(r) {
		r.progress = append(r.progress, step{ev: e, pos: pos})
	}
	if s.world.complete(r.to) {
		r.end = s
	}
}

// begin starts a rollout to v at e, stopping the one under way.
func (x *component) begin(v string, e timeline.Event, pos int) {
	if r := x.current(); r != nil && r.end == nil {
		r.stop = &step{ev: e, pos: pos}
	}
	x.rollouts = append(x.rollouts, &rollout{to: v, begin: e, beginPos: pos})
}

// current is the last rollout to begin, nil if none.
func (x *component) current() *rollout {
	if len(x.rollouts) == 0 {
		return nil
	}
	return x.rollouts[len(x.rollouts)-1]
}

// towards tells whether a pod write moved a rollout to v: a pod at v
// created, its readiness changed, or a pod of another version gone. A pod
// at v turning unready counts too: it is a change the operator sees, and a
// rollout whose pods still change is not one that made no progress
// (doc.go, Readings).
func (ch podChange) towards(v string) bool {
	b, a := ch.before, ch.after
	switch {
	case a == nil:
		return b != nil && b.version != v
	case b == nil || b.version != a.version:
		return a.version == v
	}
	return a.version == v && a.ready != b.ready
}

func (x *component) noteBlocker(e timeline.Event) {
	text := ""
	if e.Verb != timeline.VerbDelete {
		for _, f := range e.Fields {
			if f.Path == fieldData {
				text = strings.TrimSpace(labelsIn(f.After)[keyBlocker])
			}
		}
		if n := len(x.blockers); n > 0 && !hasField(e, fieldData) {
			text = x.blockers[n-1].text
		}
	}
	if n := len(x.blockers); n > 0 && x.blockers[n-1].text == text {
		return
	}
	x.blockers = append(x.blockers, blocker{ev: e, text: text})
}

func hasField(e timeline.Event, path string) bool {
	return slices.ContainsFunc(e.Fields, func(f timeline.FieldChange) bool { return f.Path == path })
}

// Queries the rules share.

// operator is the actor of component x's operator.
func (x *component) operator() string { return RoleOperator + "/" + x.name }

// mine are the operator's writes of the ClusterOperator.
func (x *component) mine() []coWrite {
	var out []coWrite
	for _, w := range x.writes {
		if w.mine() && w.ev.Verb != timeline.VerbDelete {
			out = append(out, w)
		}
	}
	return out
}

// hasOperands tells whether the timeline shows any operand spec of x.
func (x *component) hasOperands() bool { return len(x.rollouts) > 0 }

// worldBefore is the operands' world just before the event at pos.
func (x *component) worldBefore(pos int) world {
	i, _ := slices.BinarySearchFunc(x.steps, pos, func(s step, p int) int { return s.pos - p })
	if i == 0 {
		return newWorld()
	}
	return x.steps[i-1].world
}

// worldLate is the world as it stands just before t, or just before the
// event at pos if that is later: what a write at pos is judged against
// when Tolerance lets changes up to t count as its own instant.
func (x *component) worldLate(pos int, t time.Time) world {
	w := x.worldBefore(pos)
	for _, s := range x.steps {
		if s.pos > pos && s.ev.Time.Before(t) {
			w = s.world
		}
	}
	return w
}

// statusAt is the ClusterOperator as the last write at or before t left
// it (nil before the first).
func (x *component) statusAt(t time.Time) *coWrite {
	var last *coWrite
	for i := range x.writes {
		if x.writes[i].ev.Time.After(t) {
			break
		}
		last = &x.writes[i]
	}
	return last
}

// since is the write from which what st reports holds: the first of the
// run of x's writes ending at st for which holds is true (st itself if
// holds is false for the one before). A reaction is measured to it.
func (x *component) since(st *coWrite, holds func(*coWrite) bool) *coWrite {
	first := st
	for i := len(x.writes) - 1; i >= 0; i-- {
		w := &x.writes[i]
		if w.pos > st.pos {
			continue
		}
		if !holds(w) {
			break
		}
		first = w
	}
	return first
}

// next is the rollout after r, nil if none.
func (x *component) next(r *rollout) *rollout {
	i := slices.Index(x.rollouts, r)
	if i+1 < len(x.rollouts) {
		return x.rollouts[i+1]
	}
	return nil
}
