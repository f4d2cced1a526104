package stackableoperator

import (
	"testing"
	"time"
)

func TestConditionsFollowTheTable(t *testing.T) {
	running := &productCluster{name: "simple"}
	for _, tc := range []struct {
		name string
		pc   *productCluster
		ob   observation
		want [5]string // Available, Progressing, Degraded, Paused, Stopped
	}{
		{"all there", running, observation{roles: []roleState{{"server", 3, 3}}},
			[5]string{"True", "False", "False", "False", "False"}},
		{"starting", running, observation{roles: []roleState{{"server", 3, 1}}},
			[5]string{"False", "True", "False", "False", "False"}},
		{"a pod failed", running, observation{roles: []roleState{{"server", 3, 2}}, failed: []string{"simple-server-1"}},
			[5]string{"False", "False", "True", "False", "False"}},
		{"a pod unknown", running, observation{roles: []roleState{{"server", 3, 2}}, unknown: []string{"simple-server-2"}},
			[5]string{"Unknown", "True", "True", "False", "False"}},
		{"more than asked", running, observation{roles: []roleState{{"web", 1, 4}}},
			[5]string{"False", "True", "False", "False", "False"}},
		{"paused", &productCluster{name: "simple", command: commandPaused}, observation{roles: []roleState{{"server", 2, 2}}},
			[5]string{"True", "False", "False", "True", "False"}},
		{"stopped", &productCluster{name: "simple", command: commandStopped}, observation{roles: []roleState{{"server", 2, 0}}},
			[5]string{"False", "False", "False", "False", "True"}},
	} {
		got := conditions(tc.pc, tc.ob)
		for i, typ := range []string{"Available", "Progressing", "Degraded", "Paused", "Stopped"} {
			if got[i].Type != typ || got[i].Status != tc.want[i] || got[i].Reason == "" || got[i].Message == "" {
				t.Errorf("%s: %s is %+v, want status %s with a reason and a message", tc.name, typ, got[i], tc.want[i])
			}
		}
	}
}

func TestMergeMovesTransitionsOnly(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pc := &productCluster{name: "simple"}
	first, changed := merge(nil, conditions(pc, observation{roles: []roleState{{"server", 2, 1}}}), t0)
	if !changed {
		t.Fatal("a first status is a write")
	}
	if _, changed := merge(first, conditions(pc, observation{roles: []roleState{{"server", 2, 1}}}), t0.Add(time.Minute)); changed {
		t.Error("the same conditions again are a write")
	}
	second, changed := merge(first, conditions(pc, observation{roles: []roleState{{"server", 2, 2}}}), t0.Add(time.Minute))
	if !changed {
		t.Fatal("a new status is a write")
	}
	for i, c := range second {
		moved := !c.LastTransitionTime.Equal(first[i].LastTransitionTime)
		if moved != (c.Status != first[i].Status) || !c.LastProbeTime.Time.Equal(t0.Add(time.Minute)) {
			t.Errorf("%s %s -> %s: lastTransitionTime %s -> %s, lastProbeTime %s", c.Type, first[i].Status, c.Status,
				first[i].LastTransitionTime, c.LastTransitionTime, c.LastProbeTime)
		}
	}
}
