package rules

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/opcert/opcert/sim/timeline"
)

// The operands of a component as the contract rules read them off the
// timeline (doc.go, Timeline contract): the operand specs its operator
// writes in the component's namespace and the pods the workload
// controller runs for them.

// The objects, labels and fields of the seed-001 world.
const (
	appsGroup      = "apps"
	kindDeployment = "Deployment"
	kindDaemonSet  = "DaemonSet"
	kindPod        = "Pod"
	kindConfigMap  = "ConfigMap"

	// labelVersion, on an operand's pod template and so on its pods, is
	// the version the operator asks the operand to run.
	labelVersion = "opcert.io/version"
	// labelApp is the selector label of a pod template that names its
	// workload.
	labelApp = "app"
	// labelWorkload names a pod's operand.
	labelWorkload = "opcert.io/workload"

	fieldLabels         = "metadata.labels"
	fieldTemplateLabels = "spec.template.metadata.labels"
	fieldReplicas       = "spec.replicas"
	fieldNodeName       = "spec.nodeName"
	fieldStatus         = "status"
	fieldData           = "data"

	condReady = "Ready"

	// adminSuffix and keyBlocker name the ConfigMap "X-admin" whose
	// upgradeBlocker says what the administrator must fix for component
	// X (001 §What should an operator report, honored by components 4).
	adminSuffix = "-admin"
	keyBlocker  = "upgradeBlocker"
)

// operand is one operand spec: the version its operator asks of it.
type operand struct {
	kind, version string
	ev            timeline.Event // the write that asked for version
}

// pod is one pod of a component as its last write left it.
type pod struct {
	workload, version, node string
	ready                   bool
	ev                      timeline.Event
}

// world is a component's operands and pods at one point of the
// timeline. Replicas, desired pods and nodes are kept by workload name
// whether or not its spec has been seen with a version.
type world struct {
	operands map[string]operand
	pods     map[string]pod
	replicas map[string]int             // a Deployment's spec.replicas
	desired  map[string]int             // a DaemonSet's status.desiredNumberScheduled
	nodes    map[string]map[string]bool // the nodes a workload's pods ran on
}

func newWorld() world {
	return world{operands: map[string]operand{}, pods: map[string]pod{}, replicas: map[string]int{},
		desired: map[string]int{}, nodes: map[string]map[string]bool{}}
}

// clone copies w so that later changes leave it as it is. The node sets
// are copied on write (note), so sharing them is safe.
func (w world) clone() world {
	return world{operands: maps.Clone(w.operands), pods: maps.Clone(w.pods), replicas: maps.Clone(w.replicas),
		desired: maps.Clone(w.desired), nodes: maps.Clone(w.nodes)}
}

// want is how many pods of operand name must be ready at its version for
// it to be rolled out: a Deployment's replicas (1 when unset, as the API
// defaults it); a DaemonSet's pod per node (001 §What should an operator
// report, honored by components 1: "installed to all nodes"), the nodes
// being those its status wants or its pods ran on, at least one.
func (w world) want(name string) int {
	if w.operands[name].kind == kindDaemonSet {
		return max(w.desired[name], len(w.nodes[name]), 1)
	}
	if n, ok := w.replicas[name]; ok {
		return n
	}
	return 1
}

// complete tells whether a rollout to v is done: every operand asks v, no
// pod runs another version, every pod is ready and each operand has the
// pods it wants ready at v.
func (w world) complete(v string) bool {
	if len(w.operands) == 0 {
		return false
	}
	ready := map[string]int{}
	for _, p := range w.pods {
		if p.version != v || !p.ready {
			return false
		}
		ready[p.workload]++
	}
	for name, o := range w.operands {
		if o.version != v || ready[name] < w.want(name) {
			return false
		}
	}
	return true
}

// rolledOut tells whether an installation at v counts as rolled out for
// honored by components 1 and 5: complete, or a DaemonSet's ready pods at
// v on more than half of its nodes, its other pods at v still starting
// ("or within some reasonable percentage if the component must be
// installed to all nodes"; doc.go, Readings).
func (w world) rolledOut(v string) bool {
	if len(w.operands) == 0 {
		return false
	}
	ready := map[string]int{}
	for _, p := range w.pods {
		switch {
		case p.version != v:
			return false
		case p.ready:
			ready[p.workload]++
		case w.operands[p.workload].kind != kindDaemonSet:
			return false
		}
	}
	for name, o := range w.operands {
		n := w.want(name)
		if o.version != v || o.kind == kindDaemonSet && ready[name]*100 <= n*minNodeShare || o.kind != kindDaemonSet && ready[name] < n {
			return false
		}
	}
	return true
}

// serving tells whether every operand runs at full strength, whatever
// the version: a Deployment its replicas ready, a DaemonSet a ready pod
// on each of its nodes (CO-010: nothing there is an outage).
func (w world) serving() bool {
	if len(w.operands) == 0 {
		return false
	}
	ready := map[string]int{}
	nodes := map[string]map[string]bool{}
	for _, p := range w.pods {
		if !p.ready {
			continue
		}
		ready[p.workload]++
		if nodes[p.workload] == nil {
			nodes[p.workload] = map[string]bool{}
		}
		nodes[p.workload][p.node] = true
	}
	for name, o := range w.operands {
		have := ready[name]
		if o.kind == kindDaemonSet {
			have = len(nodes[name])
		}
		if have < w.want(name) {
			return false
		}
	}
	return true
}

// oldPods are the pods running another version than v, by name.
func (w world) oldPods(v string) []string {
	var out []string
	for name, p := range w.pods {
		if p.version != v {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// behind are the operands whose spec asks another version than v.
func (w world) behind(v string) []string {
	var out []string
	for name, o := range w.operands {
		if o.version != v {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// lagging says what keeps a rollout to v from being complete, and the
// events that show it: operands asking another version, pods at another
// version or not ready, operands short of ready pods.
func (w world) lagging(v string) (string, []timeline.Event) {
	var says []string
	var evs []timeline.Event
	for _, name := range w.behind(v) {
		o := w.operands[name]
		says = append(says, fmt.Sprintf("%s %s asks %s", o.kind, name, orNone(o.version)))
		evs = append(evs, o.ev)
	}
	ready := map[string]int{}
	for _, name := range slices.Sorted(maps.Keys(w.pods)) {
		p := w.pods[name]
		switch {
		case p.version != v:
			says = append(says, fmt.Sprintf("pod %s runs %s", name, orNone(p.version)))
		case !p.ready:
			says = append(says, fmt.Sprintf("pod %s is not ready", name))
		default:
			ready[p.workload]++
			continue
		}
		evs = append(evs, p.ev)
	}
	for _, name := range slices.Sorted(maps.Keys(w.operands)) {
		if n := w.want(name); w.operands[name].version == v && ready[name] < n {
			says = append(says, fmt.Sprintf("%s %s has %d of %d pods ready at %s", w.operands[name].kind, name, ready[name], n, v))
		}
	}
	if len(says) == 0 {
		return "no operand spec asks it yet", nil
	}
	return strings.Join(says, ", "), evs
}

func orNone(v string) string {
	if v == "" {
		return "no version"
	}
	return v
}

// podChange is what a pod write did, for the rollout's progress.
type podChange struct {
	before, after *pod // nil: absent
}

// notePod moves w past a write of a pod (not a failed one).
func (w *world) notePod(e timeline.Event) podChange {
	name := e.Object.Name
	var ch podChange
	if p, ok := w.pods[name]; ok {
		ch.before = &p
	}
	if e.Verb == timeline.VerbDelete {
		delete(w.pods, name)
		return ch
	}
	p := pod{}
	if ch.before != nil {
		p = *ch.before
	}
	p.ev = e
	for _, f := range e.Fields {
		switch f.Path {
		case fieldLabels:
			l := labelsIn(f.After)
			p.workload, p.version = PodOperand(l), l[labelVersion]
		case fieldNodeName:
			p.node = jsonString(f.After)
		}
	}
	for _, c := range e.Conditions {
		if c.Type == condReady {
			p.ready = c.After != nil && c.After.Status == statusTrue
		}
	}
	if p.workload != "" && p.node != "" && !w.nodes[p.workload][p.node] {
		seen := maps.Clone(w.nodes[p.workload])
		if seen == nil {
			seen = map[string]bool{}
		}
		seen[p.node] = true
		w.nodes[p.workload] = seen
	}
	w.pods[name] = p
	ch.after = &p
	return ch
}

// PodOperand is the operand a pod of labels belongs to: its
// opcert.io/workload label, else its app label, the selector label of its
// template: a real cluster's pods carry their template's labels only
// (cluster mode, conformance/clusteroperator/README.md).
func PodOperand(labels map[string]string) string {
	if operand := labels[labelWorkload]; operand != "" {
		return operand
	}
	return labels[labelApp]
}

// noteWorkload moves w past a write of a Deployment or DaemonSet and
// returns the version its spec now asks if the write asked a new one (an
// operand's spec is the operator's: spec writes of other roles are not
// the operator asking).
func (w *world) noteWorkload(e timeline.Event) (string, bool) {
	name := e.Object.Name
	if e.Verb == timeline.VerbDelete {
		delete(w.operands, name)
		return "", false
	}
	asked, changed := "", false
	for _, f := range e.Fields {
		switch f.Path {
		case fieldReplicas:
			var n int
			if json.Unmarshal(f.After, &n) == nil {
				w.replicas[name] = n
			} else {
				delete(w.replicas, name)
			}
		case fieldStatus:
			var s struct {
				Desired int `json:"desiredNumberScheduled"`
			}
			if json.Unmarshal(f.After, &s) == nil {
				w.desired[name] = s.Desired
			}
		case fieldTemplateLabels:
			v, ok := labelsIn(f.After)[labelVersion]
			if !ok || e.Role != RoleOperator {
				continue
			}
			if old, had := w.operands[name]; !had || old.version != v {
				changed = true
			}
			w.operands[name] = operand{kind: e.Object.Kind, version: v, ev: e}
			asked = v
		}
	}
	return asked, changed
}

// labelsIn reads a recorded map of labels (or of ConfigMap data).
func labelsIn(raw json.RawMessage) map[string]string {
	var m map[string]string
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return map[string]string{}
	}
	return m
}

// jsonString reads a recorded string, "" if it is none.
func jsonString(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}
