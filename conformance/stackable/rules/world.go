package rules

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// The seed-004 world as the rules read it off the timeline (doc.go,
// Timeline contract), one SampleCluster at a time: the cluster with its
// annotations, spec and conditions, the workloads it owns and their pods.
// Each cluster's events are replayed apart (story.go), the scene after
// each of them kept while a rule may still read it; a scene shares with
// the one before it every map its event did not change, so a thousand
// clusters cost a thousand small replays, not one large one.

// cluster is a SampleCluster.
type cluster struct {
	annotations map[string]string
	spec        clusterSpec
	// conds are its conditions from the condition diffs.
	conds map[string]timeline.Condition
	// list is status.conditions as last recorded, for lastProbeTime; nil
	// when the timeline does not record it.
	list []condition
}

type clusterSpec struct {
	Roles            []role           `json:"roles"`
	ClusterOperation clusterOperation `json:"clusterOperation"`
	Broken           string           `json:"broken"`
}

// role is one of the workloads a cluster asks for.
type role struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Replicas int    `json:"replicas"`
}

// clusterOperation is operator-rs's switches (docs/upstream.md;
// commons/cluster_operation.rs).
type clusterOperation struct {
	ReconciliationPaused bool `json:"reconciliationPaused"`
	Stopped              bool `json:"stopped"`
}

// condition is one entry of a recorded status.conditions.
type condition struct {
	Type               string     `json:"type"`
	Status             string     `json:"status"`
	Reason             string     `json:"reason"`
	Message            string     `json:"message"`
	LastProbeTime      *time.Time `json:"lastProbeTime"`
	LastTransitionTime *time.Time `json:"lastTransitionTime"`
}

func (c cluster) command() string { return c.annotations[annotationCommand] }

// workload is an owned StatefulSet, Deployment or DaemonSet.
type workload struct {
	spec   *int              // spec.replicas; nil when not recorded
	labels map[string]string // its pod template's labels: its pods' selector
	status workloadStatus
}

// pod is a workload's pod.
type pod struct {
	labels map[string]string
	phase  string
}

// scene is one cluster's world after an event.
type scene struct {
	cluster   *cluster // nil while the cluster does not exist
	workloads map[timeline.ObjectRef]workload
	pods      map[timeline.ObjectRef]pod
}

func isCluster(o timeline.ObjectRef) bool { return o.Kind == kindCluster && o.Group == groupSamples }

func isWorkload(o timeline.ObjectRef) bool {
	return o.Group == groupApps && (o.Kind == kindStatefulSet || o.Kind == kindDeployment || o.Kind == kindDaemonSet)
}

func isPod(o timeline.ObjectRef) bool { return o.Kind == kindPod && o.Group == "" }

// ownerName is the cluster among names that the instance label names:
// the one it equals, or else the longest it ends with after a "-" (the
// run prefix, which a subject that sees the API server's names puts in
// its labels: names inside objects keep it); "" for none.
func ownerName(names []string, instance string) string {
	if instance == "" {
		return ""
	}
	best := ""
	for _, n := range names {
		switch {
		case n == instance:
			return n
		case strings.HasSuffix(instance, "-"+n) && len(n) > len(best):
			best = n
		}
	}
	return best
}

func (c cluster) with(e timeline.Event) cluster {
	timeline.Set(e, fieldAnnotations, &c.annotations)
	timeline.Set(e, fieldSpec, &c.spec)
	if f, ok := e.Field(fieldConditions); ok {
		c.list = []condition{}
		f.Decode(&c.list)
	}
	c.conds = e.ApplyConditions(maps.Clone(c.conds))
	return c
}

func (w workload) with(e timeline.Event) workload {
	if e.Verb == timeline.VerbCreate {
		w = workload{}
	}
	timeline.SetPointer(e, fieldReplicas, &w.spec)
	timeline.Set(e, fieldTemplateLabels, &w.labels)
	timeline.Set(e, fieldStatus, &w.status)
	return w
}

func (p pod) with(e timeline.Event) pod {
	if e.Verb == timeline.VerbCreate {
		p = pod{}
	}
	timeline.Set(e, fieldLabels, &p.labels)
	timeline.Set(e, fieldPhase, &p.phase)
	return p
}

// member is a role of a cluster as the table reads it: its workload, or
// the workload it should have while that does not exist (absent).
type member struct {
	ref timeline.ObjectRef
	counts
	absent bool
}

// labelled are the scene's workloads, those labelled with its cluster's
// name, in ref order, each with what the table reads of it, what it asks
// for being its own spec.replicas (a DaemonSet's desiredNumberScheduled):
// its pods are those of its namespace whose labels hold every label of its
// pod template (the selector, as conformance/stackable/README.md, "As
// implemented", describes the world).
func (sc scene) labelled() []member {
	refs := slices.SortedFunc(maps.Keys(sc.workloads), func(a, b timeline.ObjectRef) int { return strings.Compare(a.String(), b.String()) })
	out := make([]member, 0, len(refs))
	for _, ref := range refs {
		w := sc.workloads[ref]
		c := counts{kind: ref.Kind, spec: w.spec, status: w.status, podPhase: map[string]string{}, wantKnown: true}
		switch {
		case ref.Kind == kindDaemonSet:
			c.want = w.status.DesiredNumberScheduled
		case w.spec == nil:
			c.want = 1 // the API server's default
		default:
			c.want = *w.spec
		}
		for pr, p := range sc.pods {
			if pr.Namespace == ref.Namespace && len(w.labels) > 0 && selects(w.labels, p.labels) {
				c.podPhase[pr.Name] = p.phase
			}
		}
		out = append(out, member{ref: ref, counts: c})
	}
	return out
}

// members are the roles the table reads for the scene's cluster: one per
// role of its spec, asking for the role's replicas (the cluster's spec
// says what is desired, not the workload, which the operator may have
// scaled to 0 or not yet scaled; a DaemonSet the pods its controller
// wants), with the labelled workload of the role's kind named
// <cluster>-<role> or whose pod template's component label is the role,
// or, when there is none (not yet created, stopped, or not while paused),
// none of its replicas available. A spec that lists no role (or is not
// recorded) reads the labelled workloads, each asking for its own
// spec.replicas.
func (sc scene) members(cluster timeline.ObjectRef) []member {
	have := sc.labelled()
	roles := sc.cluster.spec.Roles
	if len(roles) == 0 {
		return have
	}
	out := make([]member, 0, len(roles))
	for _, r := range roles {
		i := slices.IndexFunc(have, func(m member) bool {
			return m.ref.Kind == r.Kind && (m.ref.Name == cluster.Name+"-"+r.Name || sc.workloads[m.ref].labels[labelComponent] == r.Name)
		})
		if i >= 0 {
			m := have[i]
			if r.Kind != kindDaemonSet {
				m.want = r.Replicas
			}
			out = append(out, m)
			continue
		}
		m := member{ref: timeline.ObjectRef{Kind: r.Kind, Group: groupApps, Namespace: cluster.Namespace, Name: cluster.Name + "-" + r.Name},
			counts: counts{kind: r.Kind}, absent: true}
		if r.Kind != kindDaemonSet {
			m.want, m.wantKnown, m.spec = r.Replicas, true, &r.Replicas
		}
		out = append(out, m)
	}
	return out
}

// podsOf are the phases of the pods of every workload of the cluster, by
// name: the table's "any_pod" ranges over them all.
func podsOf(ms []member) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		maps.Copy(out, m.podPhase)
	}
	return out
}

// selects tells whether labels hold every label of selector.
func selects(selector, labels map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}
