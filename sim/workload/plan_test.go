package workload

import (
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

var nodes = []string{"m0", "m1", "m2"}

// pods reads "name@node hash R|-" (R: ready) into pods.
func pods(specs ...string) []Pod {
	var out []Pod
	for _, s := range specs {
		f := strings.Fields(s)
		name, node, _ := strings.Cut(f[0], "@")
		out = append(out, Pod{Name: name, Node: node, Hash: f[1], Phase: corev1.PodRunning, Ready: f[2] == "R"})
	}
	return out
}

func held(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

func TestPlan(t *testing.T) {
	dep := Spec{Kind: Deployment, Name: "web", Replicas: 3, Hash: "b", Nodes: nodes}
	ds := Spec{Kind: DaemonSet, Name: "agent", Hash: "b", Nodes: nodes}
	sts := Spec{Kind: StatefulSet, Name: "db", Replicas: 3, Hash: "b", Nodes: nodes}
	with := func(s Spec, f func(*Spec)) Spec { f(&s); return s }
	oldDep := []string{"web-a-0@m0 a R", "web-a-1@m1 a R", "web-a-2@m2 a R"}
	tests := []struct {
		name string
		spec Spec
		pods []Pod
		want []string
	}{
		{"deployment: created at once, spread", dep, nil,
			[]string{"create web-b-0 on m0", "create web-b-1 on m1", "create web-b-2 on m2"}},
		{"deployment: a template change surges one pod", dep, pods(oldDep...),
			[]string{"create web-b-0 on m0"}},
		{"deployment: the surged pod not ready, nothing goes", dep, pods(append(oldDep, "web-b-0@m0 b -")...), nil},
		{"deployment: the surged pod ready, the old pod of the fullest node goes", dep, pods(append(oldDep, "web-b-0@m0 b R")...),
			[]string{"delete web-a-0"}},
		{"deployment: the next new pod goes where fewest new pods are", dep,
			pods("web-a-1@m1 a R", "web-a-2@m2 a R", "web-b-0@m0 b R"), []string{"create web-b-1 on m1"}},
		{"deployment: an unready old pod goes first, and costs no availability", dep,
			pods("web-a-0@m0 a R", "web-a-1@m1 a -", "web-a-2@m2 a R", "web-b-0@m0 b R"),
			[]string{"delete web-a-1"}},
		{"deployment: an old pod on a held node stays", with(dep, func(s *Spec) { s.Held = held("m2") }),
			pods("web-a-2@m2 a R", "web-b-0@m0 b R", "web-b-1@m1 b R", "web-b-2@m0 b R"), nil},
		{"deployment: no new pod on a held node", with(dep, func(s *Spec) { s.Held = held("m0", "m1") }), nil,
			[]string{"create web-b-0 on m2", "create web-b-1 on m2", "create web-b-2 on m2"}},
		{"deployment: every node held, no pod", with(dep, func(s *Spec) { s.Held = held(nodes...) }), nil, nil},
		{"deployment: scaled down, the unready then the newest go", with(dep, func(s *Spec) { s.Replicas = 1 }),
			pods("web-b-0@m0 b R", "web-b-1@m1 b -", "web-b-2@m2 b R"), []string{"delete web-b-1", "delete web-b-2"}},
		{"deployment: scaled up during a rollout, within the surge", with(dep, func(s *Spec) { s.Replicas = 4 }),
			pods(append(oldDep, "web-b-0@m0 b -")...), []string{"create web-b-1 on m1"}},

		{"daemonset: a pod per node", ds, nil,
			[]string{"create agent-m0 on m0", "create agent-m1 on m1", "create agent-m2 on m2"}},
		{"daemonset: the first node's old pod goes", ds, pods("agent-m0@m0 a R", "agent-m1@m1 a R", "agent-m2@m2 a R"),
			[]string{"delete agent-m0"}},
		{"daemonset: its node emptied, the new pod comes", ds, pods("agent-m1@m1 a R", "agent-m2@m2 a R"),
			[]string{"create agent-m0 on m0"}},
		{"daemonset: one node unavailable, the next waits", ds, pods("agent-m0@m0 b -", "agent-m1@m1 a R", "agent-m2@m2 a R"), nil},
		{"daemonset: an unready old pod goes at once", ds, pods("agent-m0@m0 b -", "agent-m1@m1 a R", "agent-m2@m2 a -"),
			[]string{"delete agent-m2"}},
		{"daemonset: a held node is skipped", with(ds, func(s *Spec) { s.Held = held("m1") }),
			pods("agent-m0@m0 b R", "agent-m1@m1 a R", "agent-m2@m2 a R"), []string{"delete agent-m2"}},
		{"daemonset: a held node gets no pod, and counts unavailable", with(ds, func(s *Spec) { s.Held = held("m1") }),
			pods("agent-m0@m0 a R", "agent-m2@m2 a R"), nil},

		{"statefulset: the first ordinal alone", sts, nil, []string{"create db-0 on m0"}},
		{"statefulset: the next once the one before is ready", sts, pods("db-0@m0 b R"), []string{"create db-1 on m1"}},
		{"statefulset: waits for the one before", sts, pods("db-0@m0 b -"), nil},
		{"statefulset: parallel, all at once", with(sts, func(s *Spec) { s.Parallel = true }), nil,
			[]string{"create db-0 on m0", "create db-1 on m1", "create db-2 on m2"}},
		{"statefulset: an update takes the highest ordinal first", sts, pods("db-0@m0 a R", "db-1@m1 a R", "db-2@m2 a R"),
			[]string{"delete db-2"}},
		{"statefulset: the deleted ordinal comes back new", sts, pods("db-0@m0 a R", "db-1@m1 a R"),
			[]string{"create db-2 on m2"}},
		{"statefulset: the update waits for the new pod", sts, pods("db-0@m0 a R", "db-1@m1 a R", "db-2@m2 b -"), nil},
		{"statefulset: then the next lower", sts, pods("db-0@m0 a R", "db-1@m1 a R", "db-2@m2 b R"),
			[]string{"delete db-1"}},
		{"statefulset: a pod on a held node stops the update", with(sts, func(s *Spec) { s.Held = held("m1") }),
			pods("db-0@m0 a R", "db-1@m1 a R", "db-2@m2 b R"), nil},
		{"statefulset: scaled down from the highest, one at a time", with(sts, func(s *Spec) { s.Replicas = 1 }),
			pods("db-0@m0 b R", "db-1@m1 b R", "db-2@m2 b R"), []string{"delete db-2"}},
		{"no nodes, no pods", with(sts, func(s *Spec) { s.Nodes = nil }), nil, nil},
		{"statefulset: an ordinal whose node is held waits", with(sts, func(s *Spec) { s.Held = held("m1") }),
			pods("db-0@m0 b R"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, a := range Plan(tt.spec, tt.pods) {
				got = append(got, a.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Plan = %q, want %q", got, tt.want)
			}
		})
	}
}

// A rollout played to its end by the planner alone, every pod getting
// ready between two looks, ends with every pod at the new template, one
// pod per replica (or node), whatever the kind.
func TestPlanConverges(t *testing.T) {
	for _, tt := range []struct {
		spec Spec
		pods int
	}{
		{Spec{Kind: Deployment, Name: "web", Replicas: 5, Hash: "b", Nodes: nodes}, 5},
		{Spec{Kind: DaemonSet, Name: "agent", Hash: "b", Nodes: nodes}, 3},
		{Spec{Kind: StatefulSet, Name: "db", Replicas: 4, Hash: "b", Nodes: nodes}, 4},
	} {
		t.Run(string(tt.spec.Kind), func(t *testing.T) {
			cur := map[string]Pod{}
			old := tt.spec
			old.Hash = "a"
			for round := range 100 {
				spec := old
				if round > 20 {
					spec = tt.spec
				}
				var view []Pod
				for _, name := range slices.Sorted(maps.Keys(cur)) {
					p := cur[name]
					p.Ready = true // ready by the next look
					cur[name] = p
					view = append(view, p)
				}
				for _, a := range Plan(spec, view) {
					if a.Delete != "" {
						delete(cur, a.Delete)
					} else {
						cur[a.Create] = Pod{Name: a.Create, Node: a.Node, Hash: spec.Hash, Phase: corev1.PodRunning}
					}
				}
			}
			if len(cur) != tt.pods {
				t.Errorf("%d pods, want %d: %v", len(cur), tt.pods, cur)
			}
			for _, p := range cur {
				if p.Hash != "b" {
					t.Errorf("pod %s at %s, want b", p.Name, p.Hash)
				}
			}
		})
	}
}

func TestOrdinal(t *testing.T) {
	for pod, want := range map[string]int{"db-0": 0, "db-12": 12, "db-01": -1, "db-x": -1, "other-1": -1, "db-": -1, "db--1": -1} {
		if got := ordinal("db", pod); got != want {
			t.Errorf("ordinal(db, %s) = %d, want %d", pod, got, want)
		}
	}
}
