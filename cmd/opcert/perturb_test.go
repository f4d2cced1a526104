package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPerturbBadInput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report")
	earlierReport(t, out)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--kind", "meteor"}, `--kind "meteor": no such kind of point; give one of crash, lostEvents, lateEvents, staleReads, conflicts, errors`},
		{[]string{"--budget", "-1"}, "--budget -1 is negative"},
		{[]string{"--window", "0s"}, "--window 0s is out of range"},
		{[]string{"--lag", "25h"}, "--lag 25h0m0s is out of range"},
		{[]string{"--max-calls", "-3"}, "--max-calls -3 is negative"},
		{[]string{"--scenario", "stale-healthy-answer", "--role", "kubelet"}, `--role "kubelet": stale has no such role whose calls opcert plays; give one of operator, detector`},
		{[]string{"--scenario", "nope"}, `nope`},
		{[]string{"--scenario", "stale-healthy-answer", "--subject", "operator=exec:/bin/true"}, "opcert perturb perturbs in virtual time"},
	} {
		r := opcert(t, nil, append([]string{"perturb", "--out", out}, tc.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", tc.args, r.code, tc.want, r.stderr)
		}
	}
	checkUntouched(t, out)
}

// The reference survives every crash of a built-in; a subject that fails
// gets its failure written, shrunk and replayed by opcert run. Needs
// kube-apiserver and etcd (make envtest).
func TestPerturbPassesTheReferenceAndReplaysAFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	out := filepath.Join(t.TempDir(), "perturb")
	r := opcert(t, nil, "perturb", "--scenario", "stale-healthy-answer", "--kind", "crash", "--kind", "lostEvents", "--budget", "0", "--out", out)
	if r.code != 0 || !strings.Contains(r.stdout, "PASS: ") || !strings.Contains(r.stdout, "stale-healthy-answer: ") {
		t.Fatalf("exit %d, want 0 and a PASS\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, f := range []string{"report.md", "report.json", "junit.xml", "report.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}

	out = filepath.Join(t.TempDir(), "lenient")
	r = opcert(t, nil, "perturb", "--scenario", "stale-operator-death", "--subject", "detector=lenient", "--kind", "lateEvents", "--role", "detector",
		"--budget", "1", "--shrink-runs", "10", "--out", out)
	if r.code != 1 || !strings.Contains(r.stdout, "fails STALE-004 under detector: notifications 20s late") {
		t.Fatalf("exit %d, want 1 and STALE-004 under late notifications\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	html, _ := os.ReadFile(filepath.Join(out, "report.html"))
	if !strings.Contains(string(html), `class="mk m-perturb"`) {
		t.Errorf("report.html marks no perturbation on the failing run's timeline")
	}
	files, _ := filepath.Glob(filepath.Join(out, "stale-operator-death-*-min.yaml"))
	if len(files) != 1 {
		t.Fatalf("minimal scenario files %v, want one", files)
	}
	replay := opcert(t, nil, "run", files[0], "--subject", "detector=lenient", "--out", filepath.Join(t.TempDir(), "replay"))
	if replay.code != 1 || !strings.Contains(replay.stdout, "FAIL STALE-004") {
		t.Errorf("replay: exit %d, want 1 and STALE-004\n%s\n%s", replay.code, replay.stdout, replay.stderr)
	}
}
