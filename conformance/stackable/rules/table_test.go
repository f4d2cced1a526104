package rules

import (
	"strings"
	"testing"
)

func replicas(n int) *int { return &n }

// sts is a StatefulSet wanting want replicas with got available, its pods
// by name and phase.
func sts(want, got int, pods map[string]string) counts {
	return roleOf(kindStatefulSet, want, got, pods).counts
}

// role is a role asking for want replicas with got available, its pods
// by name and phase.
func roleOf(kind string, want, got int, pods map[string]string) member {
	c := counts{kind: kind, want: want, wantKnown: true, spec: replicas(want), podPhase: pods}
	if kind == kindDaemonSet {
		c.status.DesiredNumberScheduled, c.status.NumberAvailable = want, got
	} else {
		c.status.AvailableReplicas = got
	}
	return member{counts: c}
}

// The table of 004 §Implementation details, row by row over the cluster
// (decision 004, conformance/stackable/README.md): its roles' replicas against
// its spec, "any_pod" over all of its pods; both statuses where rows overlap,
// any where none holds.
func TestFacts(t *testing.T) {
	running := map[string]string{"s-0": "Running", "s-1": "Running"}
	for _, tc := range []struct {
		name                             string
		ms                               []member
		stopped                          bool
		available, progressing, degraded string
	}{
		{name: "every role available: Available True, Progressing and Degraded False",
			ms:        []member{roleOf(kindStatefulSet, 2, 2, running), roleOf(kindDaemonSet, 3, 3, nil)},
			available: "True", progressing: "False", degraded: "False"},
		{name: "fewer available, no pod Unknown or Failed: Degraded open",
			ms:        []member{roleOf(kindStatefulSet, 3, 1, map[string]string{"s-0": "Running", "s-1": "Pending"})},
			available: "False", progressing: "True", degraded: "True or False or Unknown"},
		{name: "a pod Failed, another running: the Progressing rows overlap",
			ms:        []member{roleOf(kindStatefulSet, 2, 1, map[string]string{"s-0": "Failed", "s-1": "Running"})},
			available: "False", progressing: "True or False", degraded: "True"},
		{name: "every pod Failed: Progressing False",
			ms:        []member{roleOf(kindStatefulSet, 1, 0, map[string]string{"s-0": "Failed"})},
			available: "False", progressing: "False", degraded: "True"},
		{name: "no pod at all yet: Progressing open",
			ms:        []member{roleOf(kindStatefulSet, 2, 0, nil)},
			available: "False", progressing: "True or False or Unknown", degraded: "True or False or Unknown"},
		{name: "any_pod over the cluster: Unknown in one role, Failed in another",
			ms: []member{roleOf(kindDaemonSet, 2, 1, map[string]string{"a-x": "Unknown", "a-y": "Running"}),
				roleOf(kindDeployment, 2, 1, map[string]string{"w-0": "Failed", "w-1": "Running"})},
			available: "Unknown", progressing: "True or False", degraded: "True"},
		{name: "more available than the spec asks (a scale-down not yet done): not the desired amount, Degraded open",
			ms:        []member{roleOf(kindDeployment, 1, 4, running)},
			available: "False", progressing: "True", degraded: "True or False or Unknown"},
		{name: "one role short, another over: not the desired amount",
			ms:        []member{roleOf(kindDeployment, 1, 2, running), roleOf(kindStatefulSet, 3, 2, nil)},
			available: "False", progressing: "True", degraded: "True or False or Unknown"},
		{name: "a leftover Failed pod with every replica available: the == rows",
			ms:        []member{roleOf(kindStatefulSet, 2, 2, map[string]string{"s-0": "Running", "s-1": "Running", "s-old": "Failed"})},
			available: "True", progressing: "False", degraded: "False"},
		{name: "a DaemonSet not created: its pods unknown, both readings",
			ms:        []member{{counts: counts{kind: kindDaemonSet}, absent: true}},
			available: "True or False", progressing: "False or True or Unknown", degraded: "False or True or Unknown"},
		{name: "stopped: False accepted beside the rows",
			ms: []member{roleOf(kindStatefulSet, 2, 0, map[string]string{"s-0": "Running"})}, stopped: true,
			available: "False", progressing: "True or False", degraded: "True or False or Unknown"},
		{name: "stopped with a pod Unknown: Unknown by the rows, False by the ADR's example",
			ms: []member{roleOf(kindStatefulSet, 2, 0, map[string]string{"s-0": "Unknown"})}, stopped: true,
			available: "False or Unknown", progressing: "True or False", degraded: "True or False"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := factsOf(tc.ms, podsOf(tc.ms), tc.stopped)
			for _, x := range []struct {
				name string
				got  statuses
				want string
			}{
				{condAvailable, f.available(), tc.available},
				{condProgressing, f.progressing(), tc.progressing},
				{condDegraded, f.degraded(), tc.degraded},
			} {
				if want := setOf(x.want); x.got != want {
					t.Errorf("%s: %s, want %s", x.name, x.got, want)
				}
			}
		})
	}
}

// setOf reads "True or False" as a set.
func setOf(s string) statuses {
	var out statuses
	for _, x := range strings.Split(s, " or ") {
		out |= statusOf(x)
	}
	return out
}

// The Paused and Stopped rows (004 §Implementation details).
func TestCommandRows(t *testing.T) {
	for _, tc := range []struct{ command, paused, stopped string }{
		{"", statusFalse, statusFalse},
		{commandPaused, statusTrue, statusFalse},
		{commandStopped, statusFalse, statusTrue},
		{"paused", statusFalse, statusFalse},
	} {
		p, s := commandRows(tc.command)
		if p != statusOf(tc.paused) || s != statusOf(tc.stopped) {
			t.Errorf("operator-command %q: Paused %s, Stopped %s; want %s, %s", tc.command, p, s, tc.paused, tc.stopped)
		}
	}
}

// operator-rs (docs/upstream.md): Available from counts only, merged True < False
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
		if p != statusOf(tc.paused) || s != statusOf(tc.stopped) {
			t.Errorf("%+v: ReconciliationPaused %s, Stopped %s; want %s, %s", tc.op, p, s, tc.paused, tc.stopped)
		}
	}
}
