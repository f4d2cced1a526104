package scenarios

import (
	"encoding/json"
	"regexp"
	"testing"
)

var positioned = regexp.MustCompile(`^fuzz\.yaml:\d+: `)

func FuzzParse(f *testing.F) {
	entries, err := builtinFiles.ReadDir("builtin")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		data, err := builtinFiles.ReadFile("builtin/" + e.Name())
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
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			if !positioned.MatchString(err.Error()) {
				t.Fatalf("error without a position: %q", err)
			}
			return
		}
		if err := validate(s, nil); err != nil {
			t.Fatalf("a parsed scenario does not validate: %v", err)
		}
		var fleet []string
		for _, o := range s.Fleet() {
			fleet = append(fleet, o.Name)
		}
		if len(fleet) > maxOperators {
			t.Fatalf("%d operators accepted", len(fleet))
		}
		total := 0
		for i, st := range s.Steps {
			data, err := json.Marshal(st.Create)
			if err != nil || len(data) > maxObjectBytes {
				t.Fatalf("steps[%d].create accepted: %d bytes of JSON, %v", i, len(data), err)
			}
			total += len(data)
		}
		if total > maxCreateBytes {
			t.Fatalf("%d bytes of create objects accepted", total)
		}
		// The plan draws about maxFaults at most; twice that is far beyond chance.
		if s.Chaos != nil {
			if n := len(s.Chaos.Plan(fleet, s.Duration.Duration)); n > 2*maxFaults {
				t.Fatalf("chaos accepted with %d faults", n)
			}
		}
	})
}
