package workload

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Kind is a kind of workload the controller runs.
type Kind string

// The kinds of workload, as their API kinds are spelled.
const (
	Deployment  Kind = "Deployment"
	DaemonSet   Kind = "DaemonSet"
	StatefulSet Kind = "StatefulSet"
)

// Pod is one of a workload's pods as the planner sees it.
type Pod struct {
	// Name is the pod's name.
	Name string
	// Node is the node it is bound to.
	Node string
	// Hash is the template hash it was made from (LabelTemplateHash).
	Hash string
	// Phase is its status.phase.
	Phase corev1.PodPhase
	// Ready is its Ready condition being True.
	Ready bool
}

// Spec is what a workload asks for, and where its pods may go.
type Spec struct {
	// Kind is the workload's kind.
	Kind Kind
	// Name is the workload's name.
	Name string
	// Replicas is a Deployment's or StatefulSet's spec.replicas.
	Replicas int
	// Hash is the template's (TemplateHash).
	Hash string
	// Parallel is a StatefulSet's podManagementPolicy Parallel: pods are
	// created and deleted without waiting for each other.
	Parallel bool
	// Nodes are the cluster's nodes, in order.
	Nodes []string
	// Held are the nodes of Nodes that take no new pod and whose pods
	// are never replaced (Controller.HoldNode).
	Held map[string]bool
}

// Action is one pod to delete (Delete), or to create (Create) on Node
// from the current template.
type Action struct {
	// Delete names the pod to delete; empty for a creation.
	Delete string
	// Create names the pod to create; empty for a deletion.
	Create string
	// Node is where the created pod goes.
	Node string
}

// String is the action as the timeline shows it: delete pod, or create
// on node.
func (a Action) String() string {
	if a.Delete != "" {
		return "delete " + a.Delete
	}
	return "create " + a.Create + " on " + a.Node
}

// Rolling update bounds. Deployment: one pod over the replicas, none
// unavailable; DaemonSet: one node unavailable at a time (the defaults of
// a DaemonSet, and of the operands a version operator rolls).
const (
	maxSurge            = 1
	maxUnavailableNodes = 1
)

// Plan is what the workload's controller does now with pods (sorted by
// name): the pods to create and delete at this instant, in order, before
// it waits for a pod to change. The caller applies them and asks again
// until there is nothing to do, as the controller's next sync would.
func Plan(s Spec, pods []Pod) []Action {
	switch s.Kind {
	case Deployment:
		return planDeployment(s, pods)
	case DaemonSet:
		return planDaemonSet(s, pods)
	case StatefulSet:
		return planStatefulSet(s, pods)
	}
	return nil
}

// planDeployment is the deployment controller's rolling update
// (rolloutRolling) over one new and several old sets of pods, with
// maxSurge 1 and maxUnavailable 0: scale the new pods up to what the surge
// allows (or down to the replicas), else delete old pods, unready ones
// first, as long as as many pods as the replicas stay ready. Old pods on a
// held node are never deleted, and no new pod goes there.
func planDeployment(s Spec, pods []Pod) []Action {
	var fresh, old []Pod
	for _, p := range pods {
		if p.Hash == s.Hash {
			fresh = append(fresh, p)
		} else {
			old = append(old, p)
		}
	}
	if n := min(s.Replicas+maxSurge-len(pods), s.Replicas-len(fresh)); n > 0 {
		return createDeploymentPods(s, pods, n)
	}
	if len(fresh) > s.Replicas {
		return deleteAll(scaleDownOrder(fresh)[:len(fresh)-s.Replicas])
	}
	readyFresh := count(fresh, func(p Pod) bool { return p.Ready })
	budget := len(pods) - s.Replicas - (len(fresh) - readyFresh)
	if budget <= 0 {
		return nil
	}
	var acts []Action
	deletable := slices.DeleteFunc(slices.Clone(old), func(p Pod) bool { return s.Held[p.Node] })
	// cleanupUnhealthyReplicas: unready old pods cost no availability.
	for _, p := range deletable {
		if !p.Ready && budget > 0 {
			acts = append(acts, Action{Delete: p.Name})
			budget--
		}
	}
	// scaleDownOldReplicaSetsForRollingUpdate: ready ones while enough are.
	extra := count(pods, func(p Pod) bool { return p.Ready }) - s.Replicas
	load := nodeLoad(pods)
	ready := slices.DeleteFunc(deletable, func(p Pod) bool { return !p.Ready })
	slices.SortStableFunc(ready, func(a, b Pod) int {
		return cmp.Or(cmp.Compare(load[b.Node], load[a.Node]), strings.Compare(b.Name, a.Name))
	})
	for _, p := range ready[:max(0, min(extra, len(ready)))] {
		acts = append(acts, Action{Delete: p.Name})
	}
	return acts
}

// createDeploymentPods names n new pods <name>-<hash>-<i>, the lowest free
// i first, each on the node (not held) with the fewest of the workload's
// pods, then the fewest new ones, then first in order: the spread of a
// scheduler, deterministic.
func createDeploymentPods(s Spec, pods []Pod, n int) []Action {
	used := map[string]bool{}
	for _, p := range pods {
		used[p.Name] = true
	}
	pods = slices.Clone(pods)
	var acts []Action
	for i := 0; len(acts) < n; i++ {
		name := fmt.Sprintf("%s-%s-%d", s.Name, s.Hash, i)
		if used[name] {
			continue
		}
		node, ok := spread(s, pods)
		if !ok {
			break
		}
		acts = append(acts, Action{Create: name, Node: node})
		pods = append(pods, Pod{Name: name, Node: node, Hash: s.Hash})
	}
	return acts
}

// spread picks the node of a Deployment's next pod; false if every node
// is held.
func spread(s Spec, pods []Pod) (string, bool) {
	load := nodeLoad(pods)
	fresh := nodeLoad(slices.DeleteFunc(slices.Clone(pods), func(p Pod) bool { return p.Hash != s.Hash }))
	best, found := "", false
	for _, n := range s.Nodes {
		if s.Held[n] {
			continue
		}
		if !found || load[n] < load[best] || load[n] == load[best] && fresh[n] < fresh[best] {
			best, found = n, true
		}
	}
	return best, found
}

// scaleDownOrder sorts pods as the replica set controller chooses whom to
// delete first: unready before ready, then the newest (highest name).
func scaleDownOrder(pods []Pod) []Pod {
	out := slices.Clone(pods)
	slices.SortStableFunc(out, func(a, b Pod) int {
		return cmp.Or(cmpBool(a.Ready, b.Ready), strings.Compare(b.Name, a.Name))
	})
	return out
}

// planDaemonSet is the daemon set controller with its RollingUpdate
// strategy (maxUnavailable 1, no surge): a pod <name>-<node> on every node
// that has none, then old pods deleted, the unready at once and the ready
// node by node in order while no node is unavailable; the next sync puts
// the new pod on the emptied node. A held node gets no pod and keeps the
// one it has.
func planDaemonSet(s Spec, pods []Pod) []Action {
	byNode := map[string]Pod{}
	for _, p := range pods {
		byNode[p.Node] = p
	}
	var acts []Action
	for _, n := range s.Nodes {
		if _, ok := byNode[n]; !ok && !s.Held[n] {
			acts = append(acts, Action{Create: s.Name + "-" + n, Node: n})
		}
	}
	if len(acts) > 0 {
		return acts
	}
	unavailable := 0
	for _, n := range s.Nodes {
		if p, ok := byNode[n]; !ok || !p.Ready {
			unavailable++
		}
	}
	for _, n := range s.Nodes {
		if p, ok := byNode[n]; ok && p.Hash != s.Hash && !p.Ready && !s.Held[n] {
			acts = append(acts, Action{Delete: p.Name})
		}
	}
	for _, n := range s.Nodes {
		if unavailable >= maxUnavailableNodes {
			break
		}
		if p, ok := byNode[n]; ok && p.Hash != s.Hash && p.Ready && !s.Held[n] {
			acts = append(acts, Action{Delete: p.Name})
			unavailable++
		}
	}
	return acts
}

// planStatefulSet is the stateful set controller with its RollingUpdate
// strategy (partition 0): pods <name>-<ordinal> on node ordinal mod the
// nodes; under OrderedReady one at a time, each created once every lower
// ordinal is ready, the extra ones deleted from the highest, one at a
// time once all are ready; under Parallel all at once. An update deletes
// the highest old pod once every higher one is ready at the new template
// (the next sync creates it again); a pod on a held node is not replaced,
// so the update stops there, and an ordinal whose node is held waits.
func planStatefulSet(s Spec, pods []Pod) []Action {
	ordered := !s.Parallel
	replicas := make([]*Pod, s.Replicas)
	var condemned []Pod
	for i := range pods {
		o := ordinal(s.Name, pods[i].Name)
		switch {
		case o >= 0 && o < s.Replicas:
			replicas[o] = &pods[i]
		default:
			condemned = append(condemned, pods[i])
		}
	}
	var acts []Action
	for i, p := range replicas {
		if p == nil {
			if len(s.Nodes) == 0 {
				return acts
			}
			node := s.Nodes[i%len(s.Nodes)]
			if !s.Held[node] {
				acts = append(acts, Action{Create: s.Name + "-" + strconv.Itoa(i), Node: node})
			}
			if ordered {
				return acts
			}
			continue
		}
		if ordered && !p.Ready {
			return acts
		}
	}
	slices.SortFunc(condemned, func(a, b Pod) int { return cmp.Compare(ordinal(s.Name, b.Name), ordinal(s.Name, a.Name)) })
	for _, p := range condemned {
		acts = append(acts, Action{Delete: p.Name})
		if ordered {
			return acts
		}
	}
	if len(acts) > 0 {
		return acts
	}
	for i := len(replicas) - 1; i >= 0; i-- {
		p := replicas[i]
		switch {
		case p == nil:
			return nil
		case p.Hash != s.Hash && s.Held[p.Node]:
			return nil
		case p.Hash != s.Hash:
			return []Action{{Delete: p.Name}}
		case !p.Ready:
			return nil
		}
	}
	return nil
}

// ordinal is a StatefulSet pod's ordinal from its name, -1 if it has none.
func ordinal(set, pod string) int {
	rest, ok := strings.CutPrefix(pod, set+"-")
	if !ok {
		return -1
	}
	o, err := strconv.Atoi(rest)
	if err != nil || o < 0 || strconv.Itoa(o) != rest {
		return -1
	}
	return o
}

func nodeLoad(pods []Pod) map[string]int {
	load := map[string]int{}
	for _, p := range pods {
		load[p.Node]++
	}
	return load
}

func deleteAll(pods []Pod) []Action {
	acts := make([]Action, 0, len(pods))
	for _, p := range pods {
		acts = append(acts, Action{Delete: p.Name})
	}
	return acts
}

func count(pods []Pod, f func(Pod) bool) int {
	n := 0
	for _, p := range pods {
		if f(p) {
			n++
		}
	}
	return n
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}
