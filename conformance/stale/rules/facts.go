package rules

import (
	"sort"
	"strings"
	"time"

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

// fact is one classified write to a ClusterOperator. A timeline held for
// the rules to judge at the end keeps one per write that moved a watched
// condition, so a fact keeps its write compactly (reader.go): what
// repeats (who wrote, the conditions before and after, the change) is
// shared between facts.
type fact struct {
	kind          kind
	w             write
	before, after map[string]timeline.Condition // watched conditions only; shared, never changed
}

func (f fact) at() time.Time { return f.w.time }

// ev is the fact's write as the timeline recorded it, for evidence.
func (f fact) ev() timeline.Event { return f.w.event() }

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
