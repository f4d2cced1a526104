package rules

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// Roles of seed 000.
const (
	RoleDetector = "detector"
	RoleOperator = "operator"
)

// OperatorActor is the actor name of the operator that owns a ClusterOperator;
// rules use it to find when that operator was down.
func OperatorActor(clusterOperator string) string { return "operator/" + clusterOperator }

const clusterOperatorKind = "ClusterOperator"

type kind int

const (
	move      kind = iota // a write by anyone but the detector changed a watched condition
	challenge             // a detector write that changed watched messages and set nothing Unknown
	mark                  // a detector write that set a watched condition Unknown
	other                 // any other detector write
)

// fact is one classified write to a ClusterOperator. A long recording
// holds a great many, so a fact keeps its write compactly (reader.go):
// what repeats (who wrote, the conditions before and after, the change)
// is shared between facts.
type fact struct {
	kind          kind
	w             write
	before, after map[string]timeline.Condition // watched conditions only; shared, never changed
}

func (f fact) at() time.Time { return f.w.time }

// ev is the fact's write as the timeline recorded it, for evidence.
func (f fact) ev() timeline.Event { return f.w.event() }

// history is what the timeline says about one ClusterOperator.
type history struct {
	name  string
	facts []fact
	// operated tells whether an actor in the operator role ever wrote the
	// ClusterOperator, and operatedFrom from which fact on: only then are
	// its challenges the operator's to answer (operatedAt).
	operated     bool
	operatedFrom int
}

// operatedAt tells whether the operator role had written the
// ClusterOperator before fact i. One that only the scenario wrote (a
// create step's object, status and all) has no operator under test: the
// operator rules do not blame the subject for a challenge to what the
// scenario wrote, which no operator was there to answer. In a recording
// every writer but the detector is the operator, so every ClusterOperator
// there is operated.
func (h *history) operatedAt(i int) bool { return h.operated && i >= h.operatedFrom }

// processes holds when each simulated process was down (killed or cut off)
// or could not call the API server (an API fault, scenario apiErrors): the
// process runs through a fault, but an operator whose writes (or reads)
// fail cannot answer, so its challenges then are not held against it, as
// those to a dead one are not. Faults are kept apart (faultKey), so that a
// kill and a start inside a fault's window do not end it.
type processes map[string][]span

// faultKey is appended to an actor's name for its fault windows.
const faultKey = "\x00fault"

type span struct{ from, to time.Time } // to is zero while still down

// downDuring tells whether actor was down, or under an API fault, at any
// instant of [from, to].
func (p processes) downDuring(actor string, from, to time.Time) bool {
	for _, s := range slices.Concat(p[actor], p[actor+faultKey]) {
		if !s.from.After(to) && (s.to.IsZero() || s.to.After(from)) {
			return true
		}
	}
	return false
}

// facts is what the STALE rules read of a timeline, derived once per
// timeline for all of them (judge.Facts).
type facts struct {
	histories []*history
	procs     processes
	detector  life
	// online, when set, has judged the timeline as it streamed: the
	// histories hold no facts, and the rules take its verdicts.
	online *online
}

type factsKey struct{}

func factsOf(j *judge.Judging) facts {
	return judge.Facts(j, factsKey{}, func(events []timeline.Event) facts {
		r := newReader()
		for _, e := range events {
			r.Read(e)
		}
		return r.Facts().(facts)
	})
}

// Online reads the STALE facts one event at a time, for a timeline judged
// as it streams past (opcert analyze): what is kept is one fact per write
// that moved a watched condition, its strings shared (reader.go).
func Online(cfg Config) judge.Online {
	return judge.Online{Key: factsKey{}, New: func() judge.Reader { return newStreamReader(cfg) }}
}

func (p processes) note(e timeline.Event) {
	key := e.Actor
	if e.Verb == timeline.VerbFault || e.Verb == timeline.VerbClear {
		key += faultKey
	}
	spans := p[key]
	open := len(spans) > 0 && spans[len(spans)-1].to.IsZero()
	switch e.Verb {
	case timeline.VerbKill, timeline.VerbHang, timeline.VerbFault:
		if !open {
			p[key] = append(spans, span{from: e.Time})
		}
	case timeline.VerbStart, timeline.VerbReconnect, timeline.VerbClear:
		if open {
			spans[len(spans)-1].to = e.Time
		}
	}
}

func watched(conds map[string]timeline.Condition) map[string]timeline.Condition {
	out := map[string]timeline.Condition{}
	for t, c := range conds {
		if isWatched(t) {
			out[t] = c
		}
	}
	return out
}

// classify names a write. A detector write that sets a watched condition
// Unknown is a mark; so is one that rewrites the messages of conditions
// already all Unknown after a challenge (there is no status left to change).
func classify(e timeline.Event, before, after map[string]timeline.Condition, challenged bool) kind {
	if e.Role != RoleDetector {
		return move
	}
	messages, allUnknown := false, len(after) > 0
	for t, a := range after {
		b, ok := before[t]
		if a.Status == "Unknown" && (!ok || b.Status != "Unknown") {
			return mark
		}
		messages = messages || !ok || a.Message != b.Message
		allUnknown = allUnknown && a.Status == "Unknown"
	}
	switch {
	case messages && allUnknown && challenged:
		return mark
	case messages:
		return challenge
	}
	return other
}

func sameConditions(a, b map[string]timeline.Condition) bool {
	if len(a) != len(b) {
		return false
	}
	for t, c := range a {
		if d, ok := b[t]; !ok || !c.Same(d) {
			return false
		}
	}
	return true
}

// answers tells whether move m answers challenge c: every message the
// challenge changed is reset, no longer the challenged text and without the
// seed's text ("the active operators should reset this message back to the
// original message, removing the 'checking' part", 000 §Proposal ¶3). The
// message may be any the operator wants to report now, not only the
// original; a condition it removed is reset too.
func answers(c, m fact) bool {
	if m.kind != move {
		return false
	}
	for t, a := range c.after {
		b := c.before[t]
		if b.Message == a.Message {
			continue
		}
		now, ok := m.after[t]
		if ok && (now.Message == a.Message || strings.Contains(now.Message, challengePrefix) && !strings.Contains(b.Message, challengePrefix)) {
			return false
		}
	}
	return true
}

// conditionTypes returns the condition types of a fact's side in a stable order, so
// that verdicts do not depend on map iteration.
func conditionTypes(conds map[string]timeline.Condition) []string {
	out := make([]string, 0, len(conds))
	for t := range conds {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
