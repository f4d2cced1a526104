package componentoperator

import (
	"fmt"
	"slices"
	"strings"
)

// snapshot is one look at what the operator manages: its operands, their
// pods, and the administrator's blocker.
type snapshot struct {
	operands []*operandState
	blocker  string // what the administrator must fix first; "" for nothing
}

// operandState is an operand as looked at.
type operandState struct {
	Operand
	exists bool
	asks   string   // the version its pod template asks for
	nodes  []string // a DaemonSet's: where it must run, if told
	// scheduled is, for a DaemonSet not told its nodes, on how many its
	// controller schedules a pod for the current spec; -1 until the
	// controller has seen that spec.
	scheduled int
	pods      []podState
}

type podState struct {
	name, node, version string
	ready               bool
}

// want is how many ready pods the operand runs when rolled out; -1 for a
// DaemonSet whose controller has not said yet.
func (o *operandState) want() int {
	switch {
	case o.Kind != KindDaemonSet:
		return o.Replicas
	case len(o.nodes) > 0:
		return len(o.nodes)
	}
	return o.scheduled
}

// readyOn counts what is ready at version v ("" for any): pods of a
// Deployment, nodes of a DaemonSet.
func (o *operandState) readyOn(v string) int {
	pods, nodes := 0, map[string]bool{}
	for _, p := range o.pods {
		if p.ready && (v == "" || p.version == v) {
			pods++
			nodes[p.node] = true
		}
	}
	if o.Kind == KindDaemonSet && len(o.nodes) > 0 {
		n := 0
		for _, node := range o.nodes {
			if nodes[node] {
				n++
			}
		}
		return n
	}
	if o.Kind == KindDaemonSet {
		return len(nodes)
	}
	return pods
}

// rolledOut tells whether the operand runs v and nothing else: its spec
// asks for v, every pod runs v and is ready, and there are as many as it
// wants (a DaemonSet: one on every node).
func (o *operandState) rolledOut(v string) bool {
	if !o.exists || o.asks != v {
		return false
	}
	for _, p := range o.pods {
		if p.version != v || !p.ready {
			return false
		}
	}
	want := o.want()
	return want >= 0 && o.readyOn(v) >= want
}

// rolledOut tells whether every operand is rolled out to v.
func (s snapshot) rolledOut(v string) bool {
	for _, o := range s.operands {
		if !o.rolledOut(v) {
			return false
		}
	}
	return true
}

// specsAsk tells whether every operand's spec asks for v.
func (s snapshot) specsAsk(v string) bool {
	return !slices.ContainsFunc(s.operands, func(o *operandState) bool { return !o.exists || o.asks != v })
}

// down is the first operand with no ready pod at all, nil when each
// serves.
func (s snapshot) down() *operandState {
	for _, o := range s.operands {
		if o.want() > 0 && o.readyOn("") == 0 {
			return o
		}
	}
	return nil
}

// counts is how many of the pods wanted are ready at v, and of how many.
func (s snapshot) counts(v string) (ready, of int) {
	for _, o := range s.operands {
		want := max(o.want(), 0)
		ready += min(o.readyOn(v), want)
		of += want
	}
	return ready, of
}

// waitingFor names what a rollout to v still waits for, at most three
// things.
func (s snapshot) waitingFor(v string) string {
	var what []string
	for _, o := range s.operands {
		if !o.exists || o.asks != v {
			what = append(what, fmt.Sprintf("%s %s to be updated", o.Kind, o.Name))
			continue
		}
		for _, p := range o.pods {
			switch {
			case p.version != v:
				what = append(what, fmt.Sprintf("pod %s (still on %s) to go", p.name, p.version))
			case !p.ready:
				what = append(what, fmt.Sprintf("pod %s to become ready", p.name))
			}
		}
		if o.Kind == KindDaemonSet {
			for _, node := range o.nodes {
				if !slices.ContainsFunc(o.pods, func(p podState) bool { return p.node == node && p.version == v }) {
					what = append(what, "a pod on node "+node)
				}
			}
			if len(o.nodes) == 0 && o.scheduled < 0 {
				what = append(what, fmt.Sprintf("the DaemonSet controller to schedule %s", o.Name))
			}
		}
	}
	switch {
	case len(what) == 0:
		return "pods that were not created"
	case len(what) > 3:
		return fmt.Sprintf("%s and %d more", strings.Join(what[:3], ", "), len(what)-3)
	}
	return strings.Join(what, ", ")
}
