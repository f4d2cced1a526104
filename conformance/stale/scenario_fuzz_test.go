package stale

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/opcert/opcert/scenarios"
)

var positioned = regexp.MustCompile(`^fuzz\.yaml:\d+: `)

func FuzzParseStale(f *testing.F) {
	entries, err := builtinFiles.ReadDir("scenarios")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		data, err := builtinFiles.ReadFile("scenarios/" + e.Name())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"",
		"name: [\n",
		base + "---\n" + base,
		withSteps("  - explodeOperator: etcd\n"),
		withSteps("  - at: 10m\n    killOperator: etcd\n  - at: 5m\n    advance: -1m\n"),
		withSteps("  - create: &x {apiVersion: v1, kind: A, metadata: {name: a}, spec: *x}\n"),
		base + "chaos: {seed: 1, meanUptime: 1h, downtime: {min: 5m, max: 1m}, hang: .nan}\n",
		base + "chaos: {seed: 1, meanUptime: 1ns, downtime: {min: 1ns, max: 1ns}}\n",
		withSteps("  - create: {apiVersion: v1, kind: A, metadata: {name: a}, spec: {x: .inf, y: [[[[[[]]]]]]}}\n"),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := scenarios.Parse("fuzz.yaml", data)
		if err != nil {
			if !positioned.MatchString(err.Error()) {
				t.Fatalf("error without a position: %q", err)
			}
			return
		}
		var fleet []string
		for _, o := range scenarioWorld(s).Fleet() {
			fleet = append(fleet, o.Name)
		}
		if len(fleet) > scenarios.MaxProcesses {
			t.Fatalf("%d operators accepted", len(fleet))
		}
		total := 0
		for i, st := range s.Steps {
			data, err := json.Marshal(st.Create)
			if err != nil || len(data) > scenarios.MaxObjectBytes {
				t.Fatalf("steps[%d].create accepted: %d bytes of JSON, %v", i, len(data), err)
			}
			total += len(data)
		}
		if total > scenarios.MaxCreateBytes {
			t.Fatalf("%d bytes of create objects accepted", total)
		}
		// The plan draws about MaxFaults at most; twice that is far beyond chance.
		if ch := scenarioWorld(s).Chaos; ch != nil {
			if n := len(ch.Plan(fleet, s.Duration.Duration)); n > 2*scenarios.MaxFaults {
				t.Fatalf("chaos accepted with %d faults", n)
			}
		}
	})
}
