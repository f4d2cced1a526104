package rules

import "testing"

func replicas(n int) *int { return &n }

// sts is a StatefulSet wanting want replicas with got available, its pods
// by name and phase.
func sts(want, got int, pods map[string]string) counts {
	return counts{kind: kindStatefulSet, spec: replicas(want), status: workloadStatus{AvailableReplicas: got}, podPhase: pods}
}

// The table of 004 §Implementation details, row by row, and the shared
// design's decisions where rows overlap or leave a case open (DESIGN 004).
func TestSeedRows(t *testing.T) {
	for _, tc := range []struct {
		name                             string
		w                                counts
		available, progressing, degraded string // status/reason "message"
	}{
		{name: "Available True, Progressing False, Degraded False: availableReplicas == replicas",
			w:         sts(3, 3, map[string]string{"s-0": "Running", "s-1": "Running", "s-2": "Running"}),
			available: `True/Available "The cluster has the desired amount of replicas."`, progressing: `False/ReplicasAvailable "The cluster has the desired amount of replicas."`,
			degraded: `False/NotDegraded "The cluster has the desired amount of replicas."`},
		{name: "Available False, Progressing True: fewer available, no pod Unknown or Failed",
			w:           sts(3, 1, map[string]string{"s-0": "Running", "s-1": "Pending", "s-2": "Running"}),
			available:   `False/ReplicasUnavailable "The cluster does not have the desired amount of replicas."`,
			progressing: `True/ReplicasStarting "The cluster does not have the desired amount of replicas. No Pod has phase Unknown."`,
			// open row: fewer available and no pod Unknown or Failed is progress, not degradation
			degraded: `False/NotDegraded "The cluster has the desired amount of replicas."`},
		{name: "Available Unknown, Degraded True: a pod Unknown",
			w:           sts(3, 2, map[string]string{"s-0": "Running", "s-1": "Unknown", "s-2": "Running"}),
			available:   `Unknown/PodPhaseUnknown "The cluster has not the desired amount of replicas. At least one Pod [s-1] has phase Unknown."`,
			progressing: `True/ReplicasStarting "The cluster does not have the desired amount of replicas. No Pod has phase Unknown."`,
			degraded:    `True/PodsUnhealthy "The cluster has less than the desired amount of replicas. At least one Pod [s-1] has Phase [Unknown]."`},
		{name: "Progressing False, Degraded True: a pod Failed (the third row wins over the first)",
			w:           sts(3, 2, map[string]string{"s-0": "Running", "s-1": "Running", "s-2": "Failed"}),
			available:   `False/ReplicasUnavailable "The cluster does not have the desired amount of replicas."`,
			progressing: `False/PodFailed "The cluster does not have the desired amount of replicas. At least one Pod [s-2] has Phase Failed."`,
			degraded:    `True/PodsUnhealthy "The cluster has less than the desired amount of replicas. At least one Pod [s-2] has Phase [Failed]."`},
		{name: "pods Unknown and Failed, named sorted, phases in the table's order",
			w:           sts(4, 1, map[string]string{"s-3": "Failed", "s-0": "Running", "s-10": "Unknown", "s-2": "Unknown"}),
			available:   `Unknown/PodPhaseUnknown "The cluster has not the desired amount of replicas. At least one Pod [s-10,s-2] has phase Unknown."`,
			progressing: `False/PodFailed "The cluster does not have the desired amount of replicas. At least one Pod [s-3] has Phase Failed."`,
			degraded:    `True/PodsUnhealthy "The cluster has less than the desired amount of replicas. At least one Pod [s-10,s-2,s-3] has Phase [Unknown,Failed]."`},
		{name: "no pod yet: progress",
			w:           sts(2, 0, map[string]string{}),
			available:   `False/ReplicasUnavailable "The cluster does not have the desired amount of replicas."`,
			progressing: `True/ReplicasStarting "The cluster does not have the desired amount of replicas. No Pod has phase Unknown."`,
			degraded:    `False/NotDegraded "The cluster has the desired amount of replicas."`},
		{name: "open row: more available than wanted, a scale-down in flight, with a failed pod: not degraded",
			w:           sts(1, 2, map[string]string{"s-0": "Running", "s-1": "Running", "s-2": "Failed"}),
			available:   `False/ReplicasUnavailable "The cluster does not have the desired amount of replicas."`,
			progressing: `False/PodFailed "The cluster does not have the desired amount of replicas. At least one Pod [s-2] has Phase Failed."`,
			degraded:    `False/NotDegraded "The cluster has the desired amount of replicas."`},
		{name: "a failed pod left over while every replica is available: the first rows win",
			w:         sts(2, 2, map[string]string{"s-0": "Running", "s-1": "Running", "s-9": "Failed"}),
			available: `True/Available "The cluster has the desired amount of replicas."`, progressing: `False/ReplicasAvailable "The cluster has the desired amount of replicas."`,
			degraded: `False/NotDegraded "The cluster has the desired amount of replicas."`},
		{name: "a DaemonSet counts desiredNumberScheduled and numberAvailable",
			w: counts{kind: kindDaemonSet, status: workloadStatus{DesiredNumberScheduled: 2, NumberAvailable: 1, AvailableReplicas: 2},
				podPhase: map[string]string{"a-x": "Running", "a-y": "Failed"}},
			available:   `False/ReplicasUnavailable "The cluster does not have the desired amount of replicas."`,
			progressing: `False/PodFailed "The cluster does not have the desired amount of replicas. At least one Pod [a-y] has Phase Failed."`,
			degraded:    `True/PodsUnhealthy "The cluster has less than the desired amount of replicas. At least one Pod [a-y] has Phase [Failed]."`},
		{name: "spec.replicas not recorded is the API server's default, 1",
			w:         counts{kind: kindDeployment, status: workloadStatus{AvailableReplicas: 1}},
			available: `True/Available "The cluster has the desired amount of replicas."`, progressing: `False/ReplicasAvailable "The cluster has the desired amount of replicas."`,
			degraded: `False/NotDegraded "The cluster has the desired amount of replicas."`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := seedRows(tc.w)
			for _, x := range []struct{ name, got, want string }{
				{condAvailable, got.available.String(), tc.available},
				{condProgressing, got.progressing.String(), tc.progressing},
				{condDegraded, got.degraded.String(), tc.degraded},
			} {
				if x.got != x.want {
					t.Errorf("%s: %s, want %s", x.name, x.got, x.want)
				}
			}
		})
	}
}

// Merged over a cluster's workloads (the shared design): Available False
// over Unknown over True, Progressing and Degraded True if any is; a
// merged row names the offending pods of every workload it comes from.
func TestMergeSeed(t *testing.T) {
	ok := sts(2, 2, map[string]string{"a-0": "Running", "a-1": "Running"})
	starting := sts(2, 1, map[string]string{"b-0": "Running", "b-1": "Pending"})
	lost := sts(2, 1, map[string]string{"c-0": "Running", "c-1": "Unknown"})
	lost2 := sts(2, 1, map[string]string{"d-0": "Unknown", "d-1": "Running"})
	failed := sts(2, 1, map[string]string{"e-0": "Failed", "e-1": "Running"})
	for _, tc := range []struct {
		name                             string
		ws                               []counts
		available, progressing, degraded string
	}{
		{name: "all available", ws: []counts{ok, ok},
			available: `True/Available "The cluster has the desired amount of replicas."`, progressing: `False/ReplicasAvailable "The cluster has the desired amount of replicas."`,
			degraded: `False/NotDegraded "The cluster has the desired amount of replicas."`},
		{name: "False wins over Unknown; Progressing True if any is", ws: []counts{lost, starting, ok},
			available:   `False/ReplicasUnavailable "The cluster does not have the desired amount of replicas."`,
			progressing: `True/ReplicasStarting "The cluster does not have the desired amount of replicas. No Pod has phase Unknown."`,
			degraded:    `True/PodsUnhealthy "The cluster has less than the desired amount of replicas. At least one Pod [c-1] has Phase [Unknown]."`},
		{name: "Unknown wins over True, naming the Unknown pods of every workload", ws: []counts{lost2, ok, lost},
			available:   `Unknown/PodPhaseUnknown "The cluster has not the desired amount of replicas. At least one Pod [c-1,d-0] has phase Unknown."`,
			progressing: `True/ReplicasStarting "The cluster does not have the desired amount of replicas. No Pod has phase Unknown."`,
			degraded:    `True/PodsUnhealthy "The cluster has less than the desired amount of replicas. At least one Pod [c-1,d-0] has Phase [Unknown]."`},
		{name: "Progressing True over a failed pod elsewhere; Degraded names the phases of all", ws: []counts{ok, failed, lost},
			available:   `False/ReplicasUnavailable "The cluster does not have the desired amount of replicas."`,
			progressing: `True/ReplicasStarting "The cluster does not have the desired amount of replicas. No Pod has phase Unknown."`,
			degraded:    `True/PodsUnhealthy "The cluster has less than the desired amount of replicas. At least one Pod [c-1,e-0] has Phase [Unknown,Failed]."`},
		{name: "PodFailed over ReplicasAvailable", ws: []counts{ok, failed},
			available:   `False/ReplicasUnavailable "The cluster does not have the desired amount of replicas."`,
			progressing: `False/PodFailed "The cluster does not have the desired amount of replicas. At least one Pod [e-0] has Phase Failed."`,
			degraded:    `True/PodsUnhealthy "The cluster has less than the desired amount of replicas. At least one Pod [e-0] has Phase [Failed]."`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ts []table
			for _, w := range tc.ws {
				ts = append(ts, seedRows(w))
			}
			got := mergeSeed(ts)
			for _, x := range []struct{ name, got, want string }{
				{condAvailable, got.available.String(), tc.available},
				{condProgressing, got.progressing.String(), tc.progressing},
				{condDegraded, got.degraded.String(), tc.degraded},
			} {
				if x.got != x.want {
					t.Errorf("%s: %s, want %s", x.name, x.got, x.want)
				}
			}
		})
	}
}

// The Paused and Stopped rows (004 §Implementation details) and the
// override once stopped (DESIGN 004).
func TestCommandRows(t *testing.T) {
	for _, tc := range []struct{ command, paused, stopped string }{
		{"", `False/Reconciling "The cluster is currently reconciled by the operator."`, `False/Running "The cluster is currently not stopped."`},
		{commandPaused, `True/Paused "The cluster is currently not reconciled by the operator."`, `False/Running "The cluster is currently not stopped."`},
		{commandStopped, `False/Reconciling "The cluster is currently reconciled by the operator."`, `True/Stopped "The cluster is currently stopped. All replicas are set to 0."`},
		{"paused", `False/Reconciling "The cluster is currently reconciled by the operator."`, `False/Running "The cluster is currently not stopped."`},
	} {
		p, s := commandRows(tc.command)
		if p.String() != tc.paused || s.String() != tc.stopped {
			t.Errorf("operator-command %q: Paused %s, Stopped %s; want %s, %s", tc.command, p, s, tc.paused, tc.stopped)
		}
	}
	if got := stoppedRows(); got.available.String() != `False/Stopped "No Pods running."` || got.progressing.String() != statusFalse || got.degraded.String() != statusFalse {
		t.Errorf("stopped: %s, %s, %s", got.available, got.progressing, got.degraded)
	}
}

// operator-rs (UPSTREAM): Available from counts only, merged True < False
// < Unknown; ReconciliationPaused and Stopped from spec.clusterOperation.
func TestOperatorRS(t *testing.T) {
	for _, tc := range []struct {
		name string
		w    counts
		want string
	}{
		{"replicas all available", sts(3, 3, nil), statusTrue},
		{"fewer available", sts(3, 2, nil), statusFalse},
		{"more available", sts(3, 4, nil), statusFalse},
		{"no replicas wanted", sts(0, 0, nil), statusFalse},
		{"a pod Unknown is no Unknown", sts(3, 2, map[string]string{"s-0": "Unknown"}), statusFalse},
		{"spec.replicas not recorded reads as 0", counts{kind: kindDeployment, status: workloadStatus{AvailableReplicas: 0}}, statusFalse},
		{"a DaemonSet with a ready pod", counts{kind: kindDaemonSet, status: workloadStatus{DesiredNumberScheduled: 3, NumberReady: 1}}, statusTrue},
		{"a DaemonSet with none ready", counts{kind: kindDaemonSet, status: workloadStatus{DesiredNumberScheduled: 3, NumberAvailable: 3}}, statusFalse},
	} {
		if got := operatorRSAvailable(tc.w); got != tc.want {
			t.Errorf("%s: Available %s, want %s", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, statusTrue},
		{[]string{statusTrue, statusFalse, statusTrue}, statusFalse},
		{[]string{statusFalse, statusUnknown}, statusUnknown},
	} {
		if got := mergeOperatorRS(tc.in); got != tc.want {
			t.Errorf("merge %v: %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct {
		op              clusterOperation
		paused, stopped string
	}{
		{clusterOperation{}, statusFalse, statusFalse},
		{clusterOperation{ReconciliationPaused: true}, statusTrue, statusFalse},
		{clusterOperation{Stopped: true}, statusFalse, statusTrue},
		{clusterOperation{ReconciliationPaused: true, Stopped: true}, statusTrue, statusUnknown},
	} {
		p, s := operationRows(tc.op)
		if p.status != tc.paused || s.status != tc.stopped || p.fixed() || s.fixed() {
			t.Errorf("%+v: ReconciliationPaused %s, Stopped %s; want %s, %s, status only", tc.op, p, s, tc.paused, tc.stopped)
		}
	}
}
