package rules

import (
	"maps"
	"slices"
	"strings"
)

// The table's oracle (004 §Implementation details), written from the ADR and
// decision 004, conformance/stackable/README.md: the rows are read one by one
// over the cluster, its replicas against what its spec asks and "any_pod" over
// all of its pods; where rows overlap both of their statuses are accepted,
// where none matches any status is. The oracle gives statuses only: the ADR
// names no reasons and gives its messages as examples (STACKABLE-009 looks at
// messages). operator-rs's reading of the same workloads is here too
// (docs/upstream.md).

// statuses is a set of condition statuses: what a rule accepts.
type statuses uint8

const (
	sTrue statuses = 1 << iota
	sFalse
	sUnknown

	anyStatus = sTrue | sFalse | sUnknown
)

// has tells whether status is in the set.
func (s statuses) has(status string) bool {
	switch status {
	case statusTrue:
		return s&sTrue != 0
	case statusFalse:
		return s&sFalse != 0
	case statusUnknown:
		return s&sUnknown != 0
	}
	return false
}

// String writes the set as a rule quotes it: "True", "True or False".
func (s statuses) String() string {
	var out []string
	for _, x := range []struct {
		bit  statuses
		name string
	}{{sTrue, statusTrue}, {sFalse, statusFalse}, {sUnknown, statusUnknown}} {
		if s&x.bit != 0 {
			out = append(out, x.name)
		}
	}
	return strings.Join(out, " or ")
}

// statusOf is the set of one status.
func statusOf(status string) statuses {
	for _, s := range []statuses{sTrue, sFalse, sUnknown} {
		if s.has(status) {
			return s
		}
	}
	return 0
}

// workloadStatus holds the status counts of the three kinds of workloads:
// StatefulSet and Deployment (availableReplicas), DaemonSet (the number*
// fields).
type workloadStatus struct {
	AvailableReplicas      int `json:"availableReplicas"`
	DesiredNumberScheduled int `json:"desiredNumberScheduled"`
	NumberAvailable        int `json:"numberAvailable"`
	NumberReady            int `json:"numberReady"`
}

// counts is what the table reads of one role of a cluster: its kind, the
// replicas the cluster's spec asks for it (want; a DaemonSet, which the
// spec cannot count, its status.desiredNumberScheduled; wantKnown false
// for a DaemonSet not created, whose nodes the timeline does not show),
// the workload's spec.replicas (nil: not recorded or no workload; what
// operator-rs reads) and status, and the phases of its pods by name.
type counts struct {
	kind      string
	want      int
	wantKnown bool
	spec      *int
	status    workloadStatus
	podPhase  map[string]string
}

// available is the table's "availableReplicas" of the role.
func (c counts) available() int {
	if c.kind == kindDaemonSet {
		return c.status.NumberAvailable
	}
	return c.status.AvailableReplicas
}

// reading is one faithful reading of the cluster's replicas: every role
// has as many available as its spec asks (equal), some role has fewer
// (fewer).
type reading struct{ equal, fewer bool }

// facts is what the table reads of a cluster at one moment: the readings
// its roles allow (one, or two while a DaemonSet's wanted pods are
// unknown), its pods by phase, and the operator-command.
type facts struct {
	readings []reading
	// unknown and failed are the pods of phase Unknown and Failed, sorted;
	// live tells whether some pod's phase is not Failed.
	unknown, failed []string
	live            bool
	stopped         bool
}

// factsOf reads the rows' inputs off a cluster's roles, with pods all of
// its pods (by name, their phase).
func factsOf(ms []member, pods map[string]string, stopped bool) facts {
	f := facts{stopped: stopped}
	sure := reading{equal: true}
	unsure := false
	for _, m := range ms {
		switch {
		case !m.wantKnown:
			unsure = true // 0 of an unknown number: equal if it wants none, fewer otherwise
		case m.available() < m.want:
			sure.equal, sure.fewer = false, true
		case m.available() > m.want:
			sure.equal = false
		}
	}
	f.readings = []reading{sure}
	if unsure {
		f.readings = append(f.readings, reading{fewer: true})
	}
	for _, name := range slices.Sorted(maps.Keys(pods)) {
		switch pods[name] {
		case phaseUnknown:
			f.unknown = append(f.unknown, name)
		case phaseFailed:
			f.failed = append(f.failed, name)
		}
		f.live = f.live || pods[name] != phaseFailed
	}
	return f
}

// available is what Available may be (004 §Implementation details,
// Available rows): True iff availableReplicas == replicas; otherwise
// Unknown if any pod has phase Unknown, False if none has. Once stopped,
// False too: the ADR's stopped cluster "is not available" (§Set Status
// Conditions Only), whatever a pod's phase.
func (f facts) available() statuses {
	var out statuses
	for _, r := range f.readings {
		switch {
		case r.equal:
			out |= sTrue
		case len(f.unknown) > 0:
			out |= sUnknown
		default:
			out |= sFalse
		}
	}
	return f.orStopped(out)
}

// progressing is what Progressing may be (Progressing rows): True if the
// replicas differ and a pod's phase is not Failed; False if they are
// equal, or differ and a pod is Failed. Both where the rows overlap (a
// pod Failed, another not); any status where none matches (the replicas
// differ and there is no pod at all).
func (f facts) progressing() statuses {
	var out statuses
	for _, r := range f.readings {
		var s statuses
		if !r.equal && f.live {
			s |= sTrue
		}
		if r.equal || len(f.failed) > 0 {
			s |= sFalse
		}
		out |= open(s)
	}
	return f.orStopped(out)
}

// degraded is what Degraded may be (Degraded rows): True if fewer replicas
// are available than asked and a pod has phase Unknown or Failed; False
// if they are equal; any status where no row matches (fewer with no such
// pod, or more than asked).
func (f facts) degraded() statuses {
	var out statuses
	for _, r := range f.readings {
		var s statuses
		if r.fewer && len(f.unknown)+len(f.failed) > 0 {
			s |= sTrue
		}
		if r.equal {
			s |= sFalse
		}
		out |= open(s)
	}
	return f.orStopped(out)
}

// open is s, or any status when no row gave one: the ADR leaves the case
// open.
func open(s statuses) statuses {
	if s == 0 {
		return anyStatus
	}
	return s
}

// orStopped adds False once the cluster is stopped: the ADR does not say how
// its Stopped row meets the others, and an operator may report the stopped
// cluster as neither progressing nor degraded (decision 004,
// conformance/stackable/README.md).
func (f facts) orStopped(s statuses) statuses {
	if f.stopped {
		return s | sFalse
	}
	return s
}

// operatorRSAvailable is Available as operator-rs builds it for one
// workload (status/condition/statefulset.rs and deployment.rs: True iff
// spec.replicas == status.availableReplicas and replicas != 0;
// daemonset.rs: True iff status.numberReady > 0), never Unknown.
func operatorRSAvailable(c counts) string {
	if c.kind == kindDaemonSet {
		if c.status.NumberReady > 0 {
			return statusTrue
		}
		return statusFalse
	}
	spec := 0 // operator-rs reads an absent spec.replicas as 0
	if c.spec != nil {
		spec = *c.spec
	}
	if spec == c.status.AvailableReplicas && spec != 0 {
		return statusTrue
	}
	return statusFalse
}

// mergeOperatorRS keeps the highest status in operator-rs's order True <
// False < Unknown (status/condition/mod.rs: the builders' conditions are
// merged by update_message, which keeps the greater status).
func mergeOperatorRS(statuses []string) string {
	rank := map[string]int{statusTrue: 0, statusFalse: 1, statusUnknown: 2}
	out := statusTrue
	for _, s := range statuses {
		if rank[s] > rank[out] {
			out = s
		}
	}
	return out
}

// commandRows are Paused and Stopped as the annotation says (004
// §Implementation details, Paused and Stopped rows).
func commandRows(command string) (paused, stopped statuses) {
	paused, stopped = sFalse, sFalse
	if command == commandPaused {
		paused = sTrue
	}
	if command == commandStopped {
		stopped = sTrue
	}
	return paused, stopped
}

// operationRows are ReconciliationPaused and Stopped as operator-rs builds
// them from spec.clusterOperation (status/condition/operations.rs): paused
// True iff reconciliationPaused; Stopped Unknown when both are set (the
// pause takes precedence, cluster_resources.rs), True when stopped alone.
func operationRows(op clusterOperation) (paused, stopped statuses) {
	paused, stopped = sFalse, sFalse
	if op.ReconciliationPaused {
		paused = sTrue
	}
	switch {
	case op.Stopped && op.ReconciliationPaused:
		stopped = sUnknown
	case op.Stopped:
		stopped = sTrue
	}
	return paused, stopped
}
