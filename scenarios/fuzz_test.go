package scenarios

import (
	"regexp"
	"testing"
)

var positioned = regexp.MustCompile(`^fuzz\.yaml:\d+: `)

// FuzzParse feeds the loader anything: it never panics, and every error
// points at a line. (Each mechanism fuzzes its own format too.)
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "name: [\n", demo, demo + "---\n" + demo,
		demo + "chaos: {seed: 1, meanUptime: 1ns, downtime: {min: 1ns, max: 1ns}}\n",
		"name: x\nmechanism: demo\nduration: 1h\nsteps:\n  - create: &x {apiVersion: v1, kind: A, metadata: {name: a}, spec: *x}\n",
		"name: x\nmechanism: demo\nduration: 1h\nsteps:\n  - set: {node: [a]}\n  - poke: {}\n",
		"name: x\nmechanism: demo\nduration: 1h\nsteps:\n  - at: 10m\n    apiErrors: {role: operator, on: all, code: 429, for: 5m, retryAfter: 2s}\n" +
			"  - at: 12m\n    apiErrors: {role: operator, actor: a, on: writes, code: 409, for: 1h}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := Parse("fuzz.yaml", data); err != nil && !positioned.MatchString(err.Error()) {
			t.Fatalf("error without a position: %q", err)
		}
	})
}
