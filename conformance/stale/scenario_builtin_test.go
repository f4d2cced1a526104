package stale

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/scenarios"
)

func TestBuiltin(t *testing.T) {
	all, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var sources, names []string
	for _, s := range all {
		sources = append(sources, s.Source)
		names = append(names, s.Name)
		if s.Description == "" || s.Mechanism != "stale" {
			t.Errorf("%s: want a description and mechanism stale", s.Source)
		}
	}
	want := []string{"builtin:01-healthy-answer.yaml", "builtin:02-operator-death.yaml", "builtin:03-restart-after-unknown.yaml",
		"builtin:04-hang.yaml", "builtin:05-condition-moves.yaml", "builtin:06-fleet-24h.yaml", "builtin:07-operator-slows-down.yaml",
		"builtin:08-failing-condition.yaml", "builtin:09-detector-returns.yaml", "builtin:10-api-errors.yaml"}
	if !slices.Equal(sources, want) {
		t.Errorf("sources = %v, want %v", sources, want)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(names)))) != len(names) {
		t.Errorf("names are not unique: %v", names)
	}
}

func TestBuiltinTimes(t *testing.T) {
	for name, want := range map[string]string{
		"stale-healthy-answer":        "10m1s 10m3s 20m3s 20m5s",
		"stale-operator-death":        "1m0s 10m1s 20m1s 20m1s",
		"stale-restart-after-unknown": "1m0s 10m1s 20m1s 20m1s 25m0s 25m3s 25m3s",
		"stale-hang":                  "1m0s 20m1s 30m0s 30m3s",
		"stale-condition-moves":       "8m0s 8m1s 10m1s 18m1s",
		"stale-operator-slows-down":   "10m3s 15m0s 20m21s 20m23s",
		"stale-failing-condition":     "10m1s 10m3s 11m0s 30m3s 30m3s",
		"stale-api-errors":            "9m0s 13m0s 15m30s 35m0s 38m0s 41m0s",
	} {
		s, err := scenarios.BuiltinNamed(name)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, st := range s.Steps {
			got = append(got, st.Time.String())
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%s: step times %v, want %s", name, got, want)
		}
	}
}

func TestBuiltinNamedByFile(t *testing.T) {
	for _, name := range []string{"stale-operator-death", "02-operator-death", "02-operator-death.yaml"} {
		if s, err := scenarios.BuiltinNamed(name); err != nil || s.Name != "stale-operator-death" {
			t.Errorf("scenarios.BuiltinNamed(%q) = %v, %v", name, s, err)
		}
	}
}

func TestBuiltinNamedUnknown(t *testing.T) {
	_, err := scenarios.BuiltinNamed("nope")
	if err == nil || !strings.Contains(err.Error(), "available: stale-healthy-answer, stale-operator-death") {
		t.Errorf("want an error listing the names, got %v", err)
	}
}

func TestFleetExpandsBuiltin(t *testing.T) {
	s, err := scenarios.BuiltinNamed("stale-fleet-24h")
	if err != nil {
		t.Fatal(err)
	}
	fleet := scenarioWorld(s).Fleet()
	var names []string
	for i, o := range fleet {
		names = append(names, o.Name)
		if want := fmt.Sprintf("op-%02d", i+1); o.Name != want || o.Count != 0 || o.AnswerDelay.Duration != 2*time.Second || len(o.Conditions) != 4 {
			t.Errorf("member %d = %+v, want %s with count 0, answerDelay 2s and 4 conditions", i, o, want)
		}
	}
	if len(fleet) != 35 || names[0] != "op-01" || names[34] != "op-35" {
		t.Fatalf("fleet = %v, want op-01..op-35", names)
	}
	fleet[0].Conditions[0].Status = "False"
	if fleet[1].Conditions[0].Status != "True" || scenarioWorld(s).Operators[0].Conditions[0].Status != "True" {
		t.Error("fleet members share their conditions")
	}
}

// Every built-in reads back from Encode as it was: what opcert fuzz writes
// replays what it ran.
func TestBuiltinRoundTrip(t *testing.T) {
	all, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		if s.Mechanism != "stale" {
			continue
		}
		if diff, err := scenarios.RoundTrip(s); err != nil || diff != "" {
			t.Errorf("%s: %v %s", s.Source, err, diff)
		}
	}
}
