package scenarios

import (
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
		s.Fleet()
	})
}
