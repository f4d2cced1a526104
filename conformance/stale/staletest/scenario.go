package staletest

import (
	"os"
	"path/filepath"
	"testing"
)

// DNSKilled writes, into a temporary directory of t's, the scenario the
// tests of a real operator play: named name, two operators, etcd and dns,
// over duration, dns's killed at 5m (a process's death, or its
// Deployment scaled to 0); it returns the file's path.
func DNSKilled(t testing.TB, name, duration string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".yaml")
	text := `name: ` + name + `
mechanism: stale
duration: ` + duration + `
operators:
  - name: etcd
    conditions: [{type: Available, status: "True", reason: AsExpected, message: All is well}]
  - name: dns
    conditions: [{type: Available, status: "True", reason: AsExpected, message: All is well}]
steps:
  - at: 5m
    killOperator: dns
`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
