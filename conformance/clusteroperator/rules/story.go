package rules

import (
	"maps"
	"strings"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// component is one component X as the rules read it so far: its
// ClusterOperator X as the last write left it, the operands and pods of
// namespace X as they stand, the rollout under way, the administrator's
// blocker, and each rule's open deadlines (the rules' files). Nothing of
// the events before is kept but what an open deadline still reads: the
// writes of the last Tolerance (recent), which a rollout's beginning and
// end look back along.
type component struct {
	name string
	// created: the ClusterOperator's creation is on the timeline, so its
	// first rollout is its installation.
	created bool
	st      *coWrite // the last write of the ClusterOperator, nil before the first
	recent  []*coWrite
	// Since when what the status reports has held, for the reactions
	// measured to the write from which it holds.
	avail, fail, upFalse run[bool]
	ver                  run[string]

	world   world
	serving bool
	servedB timeline.Event // the change that brought the operands to full strength

	// first is the first rollout, the installation; cur the last one to
	// begin; lastOver when the last one over was over.
	first, cur *rollout
	lastOver   *time.Time
	// targets are the versions rollouts began towards (CO-006).
	targets map[string]bool
	// tried is when the operator last wrote, or tried to write, an operand
	// spec (CO-005); rest when Progressing last came to rest.
	tried, rest *time.Time
	blocker     *blocker
	// installed: its installation complete or Available=True reported
	// (CO-010).
	installed bool

	co001 *firstAvailable
	co002 []*versionMove
	// undecided are CO-002's findings on moves made before any operand
	// spec was on the timeline (nil: it found nothing wrong).
	undecided []*judge.Problem
	co003     *completion
	co004     *reporting
	co005     []*turn
	co006     *restAfter
	co006b    []*atRestWrite
	co008     *stall
	co009     *blocking
	co010     *window
	// tally is what each contract rule found of x, by ID (CO-006 in two
	// parts: its rollouts, then its writes at rest).
	tally map[string]*judge.Tally
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
	// split: CO-006 found it the write at rest after a rollout, carrying
	// another version.
	split bool
}

// mine tells whether w is the operator's, and not a deletion: the writes
// the rules hold the operator to.
func (w *coWrite) mine() bool { return w.ev.Role == RoleOperator && w.ev.Verb != timeline.VerbDelete }

// run is a value a status reports and the time of the first write of the
// run of writes, up to the last, that reported it: a reaction is measured
// to that write.
type run[T comparable] struct {
	val  T
	from time.Time
	ok   bool
}

func (r *run[T]) note(v T, t time.Time) {
	if !r.ok || r.val != v {
		r.val, r.from, r.ok = v, t, true
	}
}

// rollout is one rollout to a version: from the first operand spec write
// asking it (begin) until every operand asks it, no pod runs another
// version and every pod is ready (end), or until a rollout to another
// version begins (stop): either is where it is over.
type rollout struct {
	to       string
	begin    timeline.Event
	beginPos int
	ended    bool // complete
	over     *step
}

// step is an event that changed the operands' world.
type step struct {
	ev  timeline.Event
	pos int
}

// blocker is a write of the administrator's ConfigMap: what it asks to
// fix after the write ("" for nothing).
type blocker struct {
	ev   timeline.Event
	text string
}

func newComponent(name string) *component {
	return &component{name: name, world: newWorld(), targets: map[string]bool{}, tally: map[string]*judge.Tally{}}
}

// t is what contract rule id found of x.
func (x *component) t(id string) *judge.Tally {
	if x.tally[id] == nil {
		x.tally[id] = &judge.Tally{}
	}
	return x.tally[id]
}

// operator is the actor of component x's operator.
func (x *component) operator() string { return RoleOperator + "/" + x.name }

// hasOperands tells whether the timeline has shown an operand spec of x so
// far.
func (x *component) hasOperands() bool { return x.first != nil }

// noteStatus moves x past a write of its ClusterOperator and returns it.
func (x *component) noteStatus(e timeline.Event, pos int, tol time.Duration) *coWrite {
	w := &coWrite{ev: e, pos: pos, conds: map[string]timeline.Condition{}}
	if x.st != nil && e.Verb != timeline.VerbCreate {
		w.conds, w.version = x.st.conds, x.st.version
		if len(e.Conditions) > 0 {
			w.conds = maps.Clone(x.st.conds)
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
	x.st = w
	x.avail.note(availableIn(w), e.Time)
	x.fail.note(failing(w), e.Time)
	x.upFalse.note(upgradeableFalse(w), e.Time)
	x.ver.note(w.version, e.Time)
	x.recent = append(x.recent, w)
	cut := e.Time.Add(-tol)
	for len(x.recent) > 1 && x.recent[1].ev.Time.Before(cut) {
		x.recent[0] = nil
		x.recent = x.recent[1:]
	}
	return w
}

// statusBefore is the ClusterOperator as it stood just before t, t no
// more than Tolerance before the last event.
func (x *component) statusBefore(t time.Time) *coWrite {
	var last *coWrite
	for _, w := range x.recent {
		if !w.ev.Time.Before(t) {
			break
		}
		last = w
	}
	return last
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

// blockerAfter is what the administrator's ConfigMap asks to fix after e,
// and whether that changed.
func (x *component) blockerAfter(e timeline.Event) (string, bool) {
	text := ""
	if e.Verb != timeline.VerbDelete {
		for _, f := range e.Fields {
			if f.Path == fieldData {
				text = strings.TrimSpace(labelsIn(f.After)[keyBlocker])
			}
		}
		if x.blocker != nil && !hasField(e, fieldData) {
			text = x.blocker.text
		}
	}
	return text, x.blocker == nil || x.blocker.text != text
}

func hasField(e timeline.Event, path string) bool {
	for _, f := range e.Fields {
		if f.Path == path {
			return true
		}
	}
	return false
}
