package clusteroperator

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// A process is told, in its command and environment, what it owns on the
// API server (names with the run's prefix) and its world's settings, in
// the run's time.
func TestProcessPlaceholders(t *testing.T) {
	sched := sim.NewScheduler(sim.NewClock(), &timeline.Timeline{})
	sched.Prefix = "r07-"
	w := &world{st: &conformance.Stage{Sched: sched, Origin: timeline.Epoch, Scale: 0.02},
		spec: &World{Release: "4.0.0", Nodes: []string{"n0", "n1"}}}
	for _, tc := range []struct {
		comp Component
		want map[string]string
	}{
		{Component{Name: "etcd", Operands: []Operand{{Kind: "Deployment", Name: "server", Replicas: 3}}},
			map[string]string{"name": "r07-etcd", "namespace": "r07-etcd", "operatorNamespace": "r07-etcd-operator",
				"version": "4.0.1", "operands": "Deployment/server=3", "nodes": "n0,n1", "readyAfter": "600ms", "timeScale": "0.02"}},
		{Component{Name: "network", ReadyAfter: &scenarios.Duration{Duration: time.Minute},
			Operands: []Operand{{Kind: "DaemonSet", Name: "agent"}, {Kind: "Deployment", Name: "controller", Replicas: 1}}},
			map[string]string{"name": "r07-network", "namespace": "r07-network", "operatorNamespace": "r07-network-operator",
				"version": "4.0.1", "operands": "DaemonSet/agent,Deployment/controller=1", "nodes": "n0,n1", "readyAfter": "1.2s", "timeScale": "0.02"}},
	} {
		got := w.placeholders(tc.comp, "4.0.1")
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%s: {%s} is %q, want %q", tc.comp.Name, k, got[k], v)
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: placeholders %v, want %v", tc.comp.Name, got, tc.want)
		}
	}
}

// The rules' thresholds scale with the run's time: on the reference's
// golden timeline of a stuck operand, Degraded after 10 minutes without
// progress is in time for the seed's figures, and late at a scale of
// 0.01, where a stall owes it after 6s (001 §What should an operator
// report, honored by components 2). The tolerance of a real-time run
// stays on the scaled mechanism.
func TestProcessModeScalesTheRules(t *testing.T) {
	events := goldenEvents(t, "testdata/golden/co-operand-stuck.jsonl")
	end := timeline.Epoch.Add(40 * time.Minute)
	seed := Mechanism(DefaultConfig())
	for _, tc := range []struct {
		name string
		m    conformance.Mechanism
		want reports.Status
	}{
		{"seed", seed, reports.Pass},
		{"scaled", seed.(conformance.Scalable).Scaled(0.01), reports.Fail},
		{"scaled, with tolerance", seed.(conformance.Scalable).Scaled(0.01).(conformance.Tolerant).WithTolerance(conformance.RealtimeTolerance), reports.Fail},
		{"tolerance alone", seed.(conformance.Tolerant).WithTolerance(conformance.RealtimeTolerance), reports.Pass},
	} {
		_, scalable := tc.m.(conformance.Scalable)
		if _, tolerant := tc.m.(conformance.Tolerant); !scalable || !tolerant {
			t.Errorf("%s: the mechanism can no longer be scaled or given a tolerance", tc.name)
		}
		var got reports.Status
		for _, c := range judge.Judge(tc.m.Rules(), events, end) {
			if c.Rule == "CO-008" {
				got = c.Status
			}
		}
		if got != tc.want {
			t.Errorf("%s: CO-008 %q, want %s", tc.name, got, tc.want)
		}
	}
}

func goldenEvents(t *testing.T, path string) []timeline.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tl, err := timeline.ReadJSONL(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return tl.Events()
}

// The reaction bound is the rules' (30s by default), rebuilt with
// --reaction-bound (WithReaction), kept through a tolerance and scaled with
// the run's time, and the rules that judge a reaction say it.
func TestReactionBound(t *testing.T) {
	statement := func(m conformance.Mechanism) string {
		for _, r := range m.Rules() {
			if r.ID == "CO-003" {
				return r.Statement
			}
		}
		return ""
	}
	seed := Mechanism(DefaultConfig())
	for _, tc := range []struct {
		name   string
		m      conformance.Mechanism
		bound  time.Duration
		within string
	}{
		{"default", seed, 30 * time.Second, "within 30s"},
		{"--reaction-bound 5s", seed.(conformance.Reactive).WithReaction(5 * time.Second), 5 * time.Second, "within 5s"},
		{"--reaction-bound 0", seed.(conformance.Reactive).WithReaction(0), 0, "at the same instant"},
		{"with a tolerance", seed.(conformance.Reactive).WithReaction(5 * time.Second).(conformance.Tolerant).WithTolerance(time.Second), 5 * time.Second, "within 6s"},
		{"scaled", seed.(conformance.Scalable).Scaled(0.1), 3 * time.Second, "within 3s"},
	} {
		if _, reactive := tc.m.(conformance.Reactive); conformance.ReactionOf(tc.m) != tc.bound || !reactive || !strings.Contains(statement(tc.m), tc.within) {
			t.Errorf("%s: bound %s, CO-003 %q; want %s, %q", tc.name, conformance.ReactionOf(tc.m), statement(tc.m), tc.bound, tc.within)
		}
	}
}
