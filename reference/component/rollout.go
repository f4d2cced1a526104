package component

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// rollout is one operand measured against the level it must reach.
type rollout struct {
	Operand
	target Level
	total  int // replicas, or nodes: the pods it runs when complete
	want   int // ready at the target to count as rolled out
	ready  int // ready at the target: pods of a Deployment, nodes of a DaemonSet
	// moved is its last progress: the spec's write or a change of a pod at
	// the target.
	moved time.Time
}

func (p Params) survey(o Operand, config string) rollout {
	r := rollout{Operand: o, target: Level{Version: p.operandVersion(o.Name), Config: config}, moved: o.Updated}
	readyNodes := map[string]bool{}
	for _, pod := range o.Pods {
		if pod.Level != r.target {
			continue
		}
		if pod.Since.After(r.moved) {
			r.moved = pod.Since
		}
		if pod.Ready {
			r.ready++
			readyNodes[pod.Node] = true
		}
	}
	switch o.Kind {
	case DaemonSet:
		r.total, r.ready = len(o.Nodes), 0
		for _, n := range o.Nodes {
			if readyNodes[n] {
				r.ready++
			}
		}
		// "within some reasonable percentage if the component must be
		// installed to all nodes" (001 §What should an operator report,
		// honored by components 1): rounded up, so 100% is every node.
		r.want = (r.total*p.NodePercent + 99) / 100
	default:
		r.total, r.want = o.Replicas, o.Replicas
	}
	return r
}

// applied: the spec asks for the target.
func (r rollout) applied() bool { return r.Spec == r.target }

// old: a pod runs another level, so the previous version can still run
// (001 §Version reporting during an upgrade: a mixed version state).
func (r rollout) old() bool {
	return slices.ContainsFunc(r.Pods, func(p Pod) bool { return p.Level != r.target })
}

// complete: nothing but the target can run and enough of it is ready.
func (r rollout) complete() bool { return r.applied() && !r.old() && r.ready >= r.want }

// serves: the operand is functional, whatever its version (001 §Conditions,
// Available). An operand asked to run nothing serves.
func (r rollout) serves() bool {
	return r.total == 0 || slices.ContainsFunc(r.Pods, func(p Pod) bool { return p.Ready })
}

// stuckAt is when the operand counts as stuck if it does not move; zero
// when it cannot be: complete, its spec not yet written (the apply is
// judged by its error), or no progress instant known.
func (r rollout) stuckAt(after time.Duration) time.Time {
	if r.complete() || !r.applied() || r.moved.IsZero() {
		return time.Time{}
	}
	return r.moved.Add(after)
}

// noun names the operand in the middle of a sentence.
func (r rollout) noun() string { return strings.ToLower(string(r.Kind)) + " " + r.Name }

// maxListed bounds the pods or nodes a Degraded message names, so it stays
// "a few sentences at most" (001 §Conditions).
const maxListed = 4

// describeStuck says, for Degraded, which pods or nodes are not ready at
// the target and why (001 §Conditions: "sufficient for an engineer or
// support person to triage").
func (r rollout) describeStuck(after time.Duration) string {
	unit, units := "replica", "replicas"
	if r.Kind == DaemonSet {
		unit, units = "node", "nodes"
	}
	var items []string
	if r.Kind == DaemonSet {
		items = r.nodeItems()
	} else {
		items = r.podItems()
	}
	if len(items) > maxListed {
		items = append(items[:maxListed], fmt.Sprintf("and %d more", len(items)-maxListed))
	}
	s := fmt.Sprintf("%s %s has made no progress towards %s in %s, with %d of %d %s updated and ready",
		r.Kind, r.Name, r.target, after, r.ready, r.want, plural(r.want, unit, units))
	if len(items) > 0 {
		s += "; " + strings.Join(items, ", ")
	}
	return s + "."
}

// podItems: a Deployment's pods not ready at the target, then the
// replicas that have no pod at it.
func (r rollout) podItems() []string {
	var items []string
	atTarget := 0
	for _, pod := range r.Pods {
		switch {
		case pod.Level != r.target:
			items = append(items, fmt.Sprintf("pod %s runs %s", pod.Name, r.differs(pod.Level)))
		case !pod.Ready:
			atTarget++
			items = append(items, fmt.Sprintf("pod %s is not ready", pod.Name))
		default:
			atTarget++
		}
	}
	if missing := r.want - atTarget; missing > 0 {
		items = append(items, fmt.Sprintf("%d %s no updated pod", missing, plural(missing, "replica has", "replicas have")))
	}
	return items
}

// nodeItems: a DaemonSet's nodes without a ready pod at the target, then
// old pods on nodes it no longer runs on.
func (r rollout) nodeItems() []string {
	var items []string
	for _, n := range r.Nodes {
		var here []Pod
		for _, pod := range r.Pods {
			if pod.Node == n {
				here = append(here, pod)
			}
		}
		if slices.ContainsFunc(here, func(p Pod) bool { return p.Level == r.target && p.Ready }) {
			continue
		}
		switch i := slices.IndexFunc(here, func(p Pod) bool { return p.Level != r.target }); {
		case i >= 0:
			items = append(items, fmt.Sprintf("node %s runs %s", n, r.differs(here[i].Level)))
		case len(here) > 0:
			items = append(items, fmt.Sprintf("node %s is not ready", n))
		default:
			items = append(items, fmt.Sprintf("node %s has no pod", n))
		}
	}
	for _, pod := range r.Pods {
		if pod.Level != r.target && !slices.Contains(r.Nodes, pod.Node) {
			items = append(items, fmt.Sprintf("pod %s on node %s runs %s", pod.Name, pod.Node, r.differs(pod.Level)))
		}
	}
	return items
}

// differs names what of l is not the target: its version, else its
// configuration.
func (r rollout) differs(l Level) string {
	switch {
	case l.Version != r.target.Version:
		return l.Version
	case l.Config == "":
		return "without configuration " + r.target.Config
	default:
		return "configuration " + l.Config
	}
}

// String is the level in a message: its version, and its configuration
// when it has one.
func (l Level) String() string {
	if l.Config == "" {
		return l.Version
	}
	return l.Version + " with configuration " + l.Config
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
