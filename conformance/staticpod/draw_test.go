package staticpod

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/node"
)

// These tests need no API server: they draw, encode and parse.

const drawSeeds = 500

var drawDurations = []time.Duration{time.Hour, 24 * time.Hour}

// drawKind is the registered kind, whose Draw opcert fuzz calls.
func drawKind(t *testing.T) *scenarios.Kind {
	t.Helper()
	for _, k := range scenarios.Kinds() {
		if k.Mechanism == Name {
			if k.Draw == nil {
				t.Fatal("the staticpod kind registers no Draw")
			}
			return k
		}
	}
	t.Fatal("no staticpod kind registered")
	return nil
}

// drawScenario draws the scenario of seed over d, as opcert fuzz would
// make it.
func drawScenario(k *scenarios.Kind, seed uint64, d time.Duration) *scenarios.Scenario {
	w, steps := k.Draw(rand.New(rand.NewPCG(seed, 0x5eed)), d)
	return &scenarios.Scenario{Name: fmt.Sprintf("fuzz-staticpod-%d", seed), Mechanism: Name,
		Duration: scenarios.Duration{Duration: d}, World: w, Steps: steps, Source: "drawn.yaml"}
}

// Every drawn scenario passes validation, is written by Encode as a file
// that Parse reads back to the same scenario, and stays within the
// drawer's bounds; its steps are faults in time order, with the argument
// type of their action.
func TestDrawRoundTrip(t *testing.T) {
	k := drawKind(t)
	for _, d := range drawDurations {
		steps := 0
		for seed := range uint64(drawSeeds) {
			s := drawScenario(k, seed, d)
			diff, err := scenarios.RoundTrip(s)
			if err != nil {
				t.Fatalf("seed %d, %v: %v", seed, d, err)
			}
			if diff != "" {
				t.Fatalf("seed %d, %v: %s", seed, d, diff)
			}
			if n := len(s.Steps); n > drawMaxRollouts+2*drawMaxFaults {
				t.Errorf("seed %d, %v: %d steps", seed, d, n)
			}
			steps += len(s.Steps)
			checkDrawnSteps(t, k, s)
			w := s.World.(*World)
			if n := len(w.NodeNames()); n > drawMaxNodes {
				t.Errorf("seed %d, %v: %d nodes", seed, d, n)
			}
			if n := len(w.Revisions); n < 2 || n > drawMaxRevisions {
				t.Errorf("seed %d, %v: %d revisions", seed, d, n)
			}
		}
		t.Logf("%v: %.1f steps per scenario", d, float64(steps)/drawSeeds)
	}
}

func checkDrawnSteps(t *testing.T, k *scenarios.Kind, s *scenarios.Scenario) {
	t.Helper()
	for i, st := range s.Steps {
		if st.Expect != nil || st.Create != nil || st.At != nil || st.Advance != nil {
			t.Errorf("%s steps[%d]: %+v is not a drawn action", s.Name, i, st)
		}
		if st.Time < 0 || st.Time >= s.Duration.Duration || st.Time%time.Second != 0 {
			t.Errorf("%s steps[%d]: at %v, outside [0, %v) or not whole seconds", s.Name, i, st.Time, s.Duration)
		}
		if i > 0 && st.Time < s.Steps[i-1].Time {
			t.Errorf("%s steps[%d]: at %v, before steps[%d] at %v", s.Name, i, st.Time, i-1, s.Steps[i-1].Time)
		}
		want := reflect.Type(nil)
		for _, a := range k.Actions.Declared() {
			if a.Name == st.Action {
				want = a.Type
			}
		}
		if want == nil {
			t.Fatalf("%s steps[%d]: unknown action %q", s.Name, i, st.Action)
		}
		if want.Kind() == reflect.Struct {
			want = reflect.PointerTo(want)
		}
		if got := reflect.TypeOf(st.Arg); got != want {
			t.Errorf("%s steps[%d]: %s takes %v, drawn %v", s.Name, i, st.Action, want, got)
		}
	}
}

// Short and long durations draw valid scenarios too (fuzz takes any).
func TestDrawAnyDuration(t *testing.T) {
	k := drawKind(t)
	for _, d := range []time.Duration{time.Second, 2 * time.Second, time.Minute, 10 * time.Minute, 7 * 24 * time.Hour, scenarios.MaxDuration} {
		for seed := range uint64(50) {
			s := drawScenario(k, seed, d)
			if diff, err := scenarios.RoundTrip(s); err != nil || diff != "" {
				t.Fatalf("seed %d, %v: %v%s", seed, d, err, diff)
			}
			checkDrawnSteps(t, k, s)
		}
	}
}

// A seed gives the same bytes every time; different seeds give different
// scenarios.
func TestDrawDeterministic(t *testing.T) {
	k := drawKind(t)
	for _, d := range drawDurations {
		seen := map[string]uint64{}
		for seed := range uint64(drawSeeds) {
			a, err := scenarios.Encode(drawScenario(k, seed, d))
			if err != nil {
				t.Fatal(err)
			}
			b, err := scenarios.Encode(drawScenario(k, seed, d))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Fatalf("seed %d, %v: two draws differ:\n%s\n---\n%s", seed, d, a, b)
			}
			// The name carries the seed; compare what was drawn.
			body := string(a[bytes.IndexByte(a, '\n'):])
			if other, dup := seen[body]; dup {
				t.Errorf("%v: seeds %d and %d draw the same scenario:\n%s", d, other, seed, body)
			}
			seen[body] = seed
		}
	}
}

// Across the seeds, every action is drawn, and every operand model and
// kind of world.
func TestDrawCoverage(t *testing.T) {
	k := drawKind(t)
	actions := map[string]int{}
	models := map[string]int{}
	world := map[string]int{}
	for _, d := range drawDurations {
		for seed := range uint64(drawSeeds) {
			s := drawScenario(k, seed, d)
			for _, st := range s.Steps {
				a := st.Action
				if e, ok := st.Arg.(*Etcd); ok {
					a = fmt.Sprintf("%s down=%v", a, e.Down)
				}
				actions[a]++
			}
			w := s.World.(*World)
			for _, r := range w.Revisions {
				models[r.Operand]++
			}
			for feature, ok := range map[string]bool{
				"bootstrap":          w.Installed == 0,
				"installed":          w.Installed != 0,
				"no last-known-good": w.LastKnownGood != nil && !*w.LastKnownGood,
				"leftover monitor":   w.LeftoverMonitor != 0,
				"keep":               w.Keep != 0,
				"write time":         w.WriteTime != nil,
				"default node":       len(w.Nodes) == 0,
				"named node":         len(w.Nodes) == 1,
				"three nodes":        len(w.Nodes) == 3,
				"no rollout":         !slices.ContainsFunc(s.Steps, func(st scenarios.Step) bool { return st.Action == actRollout }),
				"no step":            len(s.Steps) == 0,
				"unpaired kill":      unpaired(s.Steps, actKillOperator, actRestartOperator),
				"lone restart":       lone(s.Steps, actRestartMonitor, actKillMonitor),
			} {
				if ok {
					world[feature]++
				}
			}
		}
	}
	for _, a := range k.Actions.Declared() {
		want := []string{a.Name}
		if a.Name == actEtcd {
			want = []string{actEtcd + " down=true", actEtcd + " down=false"}
		}
		for _, w := range want {
			if actions[w] == 0 {
				t.Errorf("action %s is never drawn", w)
			}
		}
	}
	for _, m := range node.Kinds {
		if models[string(m)] == 0 {
			t.Errorf("operand model %s is never drawn", m)
		}
	}
	for _, f := range []string{"bootstrap", "installed", "no last-known-good", "leftover monitor", "keep", "write time",
		"default node", "named node", "three nodes", "no rollout", "unpaired kill", "lone restart"} {
		if world[f] == 0 {
			t.Errorf("never drawn: %s", f)
		}
	}
	t.Logf("actions %v", actions)
	t.Logf("models %v", models)
	t.Logf("worlds %v", world)
}

// unpaired tells whether some step does first with no later then.
func unpaired(steps []scenarios.Step, first, then string) bool {
	for i, st := range steps {
		if st.Action == first && !slices.ContainsFunc(steps[i+1:], func(s scenarios.Step) bool { return s.Action == then }) {
			return true
		}
	}
	return false
}

// lone tells whether some step does undo with no step before it doing
// fault.
func lone(steps []scenarios.Step, undo, fault string) bool {
	for i, st := range steps {
		if st.Action == undo && !slices.ContainsFunc(steps[:i], func(s scenarios.Step) bool { return s.Action == fault }) {
			return true
		}
	}
	return false
}

// Every staticpod built-in is written back by Encode to a file that reads
// back the same (the fuzz command's replay files rely on it).
func TestDrawBuiltinsRoundTrip(t *testing.T) {
	all, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range all {
		if s.Mechanism != Name {
			continue
		}
		n++
		diff, err := scenarios.RoundTrip(s)
		if err != nil {
			t.Errorf("%s: %v", s.Name, err)
		} else if diff != "" {
			t.Errorf("%s: %s", s.Name, diff)
		}
	}
	if n == 0 {
		t.Fatal("no staticpod built-ins")
	}
}
