package rules

import (
	"fmt"
	"slices"
	"strings"
)

// The table's oracle (004 §Implementation details), written from the ADR
// and the shared design's decisions on overlapping and open rows (DESIGN
// 004), per workload and then merged over a cluster's workloads; and
// operator-rs's reading of the same counts (UPSTREAM).

// counts is what the table reads of one owned workload: its kind, its
// spec.replicas (nil: not recorded, the API server's default 1), the
// counts of its status, and the phases of its pods by name.
type counts struct {
	kind     string
	spec     *int
	status   workloadStatus
	podPhase map[string]string
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

// replicas is the table's "replicas": spec.replicas, or for a DaemonSet,
// which has none, the pods it wants (status.desiredNumberScheduled).
func (c counts) replicas() int {
	switch {
	case c.kind == kindDaemonSet:
		return c.status.DesiredNumberScheduled
	case c.spec == nil:
		return 1
	}
	return *c.spec
}

// available is the table's "availableReplicas".
func (c counts) available() int {
	if c.kind == kindDaemonSet {
		return c.status.NumberAvailable
	}
	return c.status.AvailableReplicas
}

// podsIn are the workload's pods whose phase is one of phases, sorted.
func (c counts) podsIn(phases ...string) []string {
	var out []string
	for name, p := range c.podPhase {
		if slices.Contains(phases, p) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// row is a condition the table asks for: its status and, where the table
// and the shared design fix them, its reason and message (text, with the
// offending pods and their phases filled in). A row without a reason is
// judged on its status alone.
type row struct {
	status, reason, text string
	pods                 []string
	phases               []string
}

// message is the row's text with "[Pod1,Pod2]" the offending pods, sorted,
// and "[Unknown,Failed]" the phases seen among them in that order.
func (r row) message() string {
	if !strings.Contains(r.text, "%s") {
		return r.text
	}
	pods := "[" + strings.Join(r.pods, ",") + "]"
	if strings.Count(r.text, "%s") == 2 {
		return fmt.Sprintf(r.text, pods, "["+strings.Join(r.phases, ",")+"]")
	}
	return fmt.Sprintf(r.text, pods)
}

// fixed tells whether the row fixes a reason and a message.
func (r row) fixed() bool { return r.reason != "" }

// String is how a rule names what it wanted: "False/PodFailed \"...\"".
func (r row) String() string {
	if !r.fixed() {
		return r.status
	}
	return fmt.Sprintf("%s/%s %q", r.status, r.reason, r.message())
}

// table is what the three workload rows of the table ask for.
type table struct{ available, progressing, degraded row }

// seedRows is the table for one workload (004 §Implementation details,
// DESIGN 004):
//   - Available: True iff availableReplicas == replicas; otherwise Unknown
//     if any pod has phase Unknown, else False.
//   - Progressing: False iff availableReplicas == replicas; otherwise
//     False if any pod has phase Failed (the third row wins where it
//     overlaps the first: a failed pod stops progress), else True, also
//     with no pod at all yet.
//   - Degraded: True iff availableReplicas < replicas and a pod has phase
//     Unknown or Failed; otherwise False (fewer available with no such
//     pod is progress, not degradation; more available than wanted is a
//     scale-down in flight).
func seedRows(c counts) table {
	var t table
	want, got := c.replicas(), c.available()
	unknown, failed, unhealthy := c.podsIn(phaseUnknown), c.podsIn(phaseFailed), c.podsIn(phaseUnknown, phaseFailed)
	switch {
	case got == want:
		t.available = row{status: statusTrue, reason: reasonAvailable, text: msgDesired}
		t.progressing = row{status: statusFalse, reason: reasonReplicasReady, text: msgDesired}
	default:
		t.available = row{status: statusFalse, reason: reasonUnavailable, text: msgNotDesired}
		if len(unknown) > 0 {
			t.available = row{status: statusUnknown, reason: reasonPhaseUnknown, text: msgAvailableUnknown, pods: unknown}
		}
		t.progressing = row{status: statusTrue, reason: reasonStarting, text: msgStarting}
		if len(failed) > 0 {
			t.progressing = row{status: statusFalse, reason: reasonPodFailed, text: msgPodFailed, pods: failed}
		}
	}
	t.degraded = row{status: statusFalse, reason: reasonNotDegraded, text: msgDesired}
	if got < want && len(unhealthy) > 0 {
		t.degraded = row{status: statusTrue, reason: reasonPodsUnhealthy, text: msgDegraded, pods: unhealthy, phases: phasesOf(c, unhealthy)}
	}
	return t
}

// phasesOf are the phases among pods, Unknown before Failed.
func phasesOf(c counts, pods []string) []string {
	var out []string
	for _, p := range []string{phaseUnknown, phaseFailed} {
		if slices.ContainsFunc(pods, func(name string) bool { return c.podPhase[name] == p }) {
			out = append(out, p)
		}
	}
	return out
}

// mergeSeed merges the rows of a cluster's workloads (the shared design):
// Available False if any is False, else Unknown if any is Unknown, else
// True; Progressing True if any is True; Degraded True if any is True.
func mergeSeed(ts []table) table {
	rows := func(get func(table) row) []row {
		out := make([]row, 0, len(ts))
		for _, t := range ts {
			out = append(out, get(t))
		}
		return out
	}
	return table{
		available:   mergeRows(rows(func(t table) row { return t.available }), statusFalse, statusUnknown, statusTrue),
		progressing: mergeRows(rows(func(t table) row { return t.progressing }), statusTrue, statusFalse),
		degraded:    mergeRows(rows(func(t table) row { return t.degraded }), statusTrue, statusFalse),
	}
}

// mergeRows is the row of the first status in order that one of rows has.
// Among the rows of that status, one that names pods wins (a False
// Progressing is PodFailed if any workload has a failed pod), and the
// merged row names the pods and phases of every row of its reason.
func mergeRows(rows []row, order ...string) row {
	for _, want := range order {
		var out row
		for _, r := range rows {
			switch {
			case r.status != want:
			case out.status == "" || len(out.pods) == 0 && len(r.pods) > 0:
				out = r
				out.pods = slices.Clone(r.pods)
			case r.reason == out.reason:
				out.pods = append(out.pods, r.pods...)
				out.phases = unionPhases(out.phases, r.phases)
			}
		}
		if out.status != "" {
			slices.Sort(out.pods)
			return out
		}
	}
	return row{}
}

// unionPhases are the phases of a and b, Unknown before Failed.
func unionPhases(a, b []string) []string {
	var out []string
	for _, p := range []string{phaseUnknown, phaseFailed} {
		if slices.Contains(a, p) || slices.Contains(b, p) {
			out = append(out, p)
		}
	}
	return out
}

// stoppedRows is the table once the cluster is stopped (004
// §Implementation details, Stopped row; DESIGN 004): Available False with
// the ADR's "No Pods running.", Progressing and Degraded False.
func stoppedRows() table {
	return table{
		available:   row{status: statusFalse, reason: reasonStopped, text: msgNoPods},
		progressing: row{status: statusFalse},
		degraded:    row{status: statusFalse},
	}
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
func commandRows(command string) (paused, stopped row) {
	paused = row{status: statusFalse, reason: reasonReconciling, text: msgNotPaused}
	if command == commandPaused {
		paused = row{status: statusTrue, reason: reasonPaused, text: msgPaused}
	}
	stopped = row{status: statusFalse, reason: reasonRunning, text: msgNotStopped}
	if command == commandStopped {
		stopped = row{status: statusTrue, reason: reasonStopped, text: msgStopped}
	}
	return paused, stopped
}

// operationRows are ReconciliationPaused and Stopped as operator-rs builds
// them from spec.clusterOperation (status/condition/operations.rs): paused
// True iff reconciliationPaused; Stopped Unknown when both are set (the
// pause takes precedence, cluster_resources.rs), True when stopped alone.
func operationRows(op clusterOperation) (paused, stopped row) {
	paused, stopped = row{status: statusFalse}, row{status: statusFalse}
	if op.ReconciliationPaused {
		paused.status = statusTrue
	}
	switch {
	case op.Stopped && op.ReconciliationPaused:
		stopped.status = statusUnknown
	case op.Stopped:
		stopped.status = statusTrue
	}
	return paused, stopped
}
