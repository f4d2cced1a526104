package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// --mechanism picks a mechanism's built-ins (issue 20 §4), and a
// --time-scale that a chosen mechanism cannot play is refused before the
// API server starts, not after the runs before it (with every built-in,
// such a mechanism's are left out: playable_test.go).
func TestRunSelectsMechanismsAndRefusesUnscalableFirst(t *testing.T) {
	r := opcert(t, nil, "run", "--dry-run", "--mechanism", "olm", "--mechanism", "stale")
	if r.code != 0 {
		t.Fatalf("--mechanism olm --mechanism stale: exit %d\n%s", r.code, r.stderr)
	}
	mechs := map[string]bool{}
	for _, line := range strings.Split(r.stdout, "\n")[1:] {
		if f := strings.Fields(line); len(f) > 2 && f[1] != "runs," && strings.Trim(f[0], "0123456789") == "" {
			mechs[f[2]] = true
		}
	}
	if len(mechs) != 2 || !mechs["olm"] || !mechs["stale"] {
		t.Errorf("mechanisms planned %v, want olm and stale:\n%s", mechs, r.stdout)
	}
	out := filepath.Join(t.TempDir(), "report")
	earlierReport(t, out)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--mechanism", "nope"}, `--mechanism "nope": no such mechanism; mechanisms: clusteroperator, olm, stackable, stale, staticpod`},
		{[]string{"--mechanism", "olm", "--scenario", "olm-no-crs"}, "give it alone"},
	} {
		r := opcert(t, nil, append([]string{"run", "--out", out}, tc.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "starting kube-apiserver") {
			t.Errorf("%v: exit %d, want %d before the API server starts, saying %q\n%s", tc.args, r.code, exitUsage, tc.want, r.stderr)
		}
	}
	checkUntouched(t, out)
}
