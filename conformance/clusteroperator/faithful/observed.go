package faithful

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// observed is one look at the operands.
type observed struct {
	workloads []*seen
	// refused are the operand writes the API server refused at this look
	// ("DaemonSet agent (the error)").
	refused []string
	nodes   []string
	blocker string // what the administrator must fix, "" for nothing
}

// seen is an operand as looked at: the version its spec asks and its pods.
type seen struct {
	Operand
	asks string
	pods []podSeen
}

type podSeen struct {
	name, node, version string
	ready               bool
}

// readyAt counts an operand's ready pods at v: pods of a Deployment,
// nodes of a DaemonSet.
func (w *seen) readyAt(v string) int {
	nodes := map[string]bool{}
	n := 0
	for _, p := range w.pods {
		if p.ready && (v == "" || p.version == v) {
			n++
			nodes[p.node] = true
		}
	}
	if w.Kind == "DaemonSet" {
		return len(nodes)
	}
	return n
}

// wants is how many it runs when rolled out: replicas, or one per node.
func (w *seen) wants(nodes []string) int {
	if w.Kind == "DaemonSet" {
		return len(nodes)
	}
	return w.Replicas
}

// old tells whether a pod runs another version than v, or the spec asks
// another.
func (w *seen) old(v string) bool {
	return w.asks != v || slices.ContainsFunc(w.pods, func(p podSeen) bool { return p.version != v })
}

// share tells whether every operand is rolled out to v on at least
// num/den of what it wants (its replicas always all), no old pod left and
// no pod of a Deployment unready.
func (o observed) share(v string, num, den int) bool {
	for _, w := range o.workloads {
		want := w.wants(o.nodes)
		if w.old(v) {
			return false
		}
		if w.Kind != "DaemonSet" {
			if w.readyAt(v) < want || slices.ContainsFunc(w.pods, func(p podSeen) bool { return !p.ready }) {
				return false
			}
			continue
		}
		if w.readyAt(v)*den < want*num {
			return false
		}
	}
	return len(o.workloads) > 0
}

// complete: rolled out to v on everything, every pod ready.
func (o observed) complete(v string) bool {
	if !o.share(v, 1, 1) {
		return false
	}
	for _, w := range o.workloads {
		if slices.ContainsFunc(w.pods, func(p podSeen) bool { return !p.ready }) {
			return false
		}
	}
	return true
}

// noOld: every spec asks v and no pod runs another version.
func (o observed) noOld(v string) bool {
	return !slices.ContainsFunc(o.workloads, func(w *seen) bool { return w.old(v) })
}

// functional tells whether the operands serve: each with more than half
// of what it wants ready (quorum), or each with a ready pod.
func (o observed) functional(quorum bool) bool {
	for _, w := range o.workloads {
		n, want := w.readyAt(""), w.wants(o.nodes)
		if quorum && n*2 <= want || !quorum && n == 0 && want > 0 {
			return false
		}
	}
	return true
}

// progress is how many of the pods wanted are ready at v, and of how many.
func (o observed) progress(v string) (int, int) {
	n, of := 0, 0
	for _, w := range o.workloads {
		n += min(w.readyAt(v), w.wants(o.nodes))
		of += w.wants(o.nodes)
	}
	return n, of
}

// waiting names what a stalled rollout to v waits for, at most three.
func (o observed) waiting(v string) string {
	var names []string
	for _, w := range o.workloads {
		for _, p := range w.pods {
			if p.version != v || !p.ready {
				names = append(names, p.name)
			}
		}
		if w.Kind == "DaemonSet" {
			have := map[string]bool{}
			for _, p := range w.pods {
				have[p.node] = true
			}
			for _, n := range o.nodes {
				if !have[n] {
					names = append(names, "a pod on node "+n)
				}
			}
		}
	}
	switch {
	case len(names) == 0:
		return "pods that were never created"
	case len(names) > 3:
		return fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
	}
	return strings.Join(names, ", ")
}

// memory is what the operator keeps between looks, lost with its
// process: what it saw of the pods, and when its rollout last moved.
type memory struct {
	target   string
	pods     map[string]podSeen
	progress time.Time // zero before the first look
}

// note remembers a look at target v: the rollout moved if its specs were
// written, a pod at v came or changed readiness, or a pod of another
// version went. A new instance whose status says the rollout to v stalled
// at stalled (not zero) takes the stall up from there, the pods as they
// are: it was no progress that the operator restarted.
func (m *memory) note(o observed, v string, applied bool, now, stalled time.Time) {
	pods := map[string]podSeen{}
	for _, w := range o.workloads {
		for _, p := range w.pods {
			pods[p.name] = p
		}
	}
	if m.progress.IsZero() && !stalled.IsZero() && !applied {
		m.progress, m.target, m.pods = stalled.Add(-stuckAfter), v, pods
		return
	}
	moved := m.progress.IsZero() || applied || m.target != v
	for name, p := range pods {
		if was, ok := m.pods[name]; p.version == v && (!ok || was.ready != p.ready || was.version != v) {
			moved = true
		}
	}
	for name, was := range m.pods {
		if _, ok := pods[name]; !ok && was.version != v {
			moved = true
		}
	}
	if moved {
		m.progress = now
	}
	m.target, m.pods = v, pods
}
