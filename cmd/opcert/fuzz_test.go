package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFuzzBadInput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report")
	earlierReport(t, out)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--mechanism is required: one of stale, staticpod"},
		{[]string{"--mechanism", "nope"}, `--mechanism "nope" cannot draw scenarios`},
		{[]string{"--mechanism", "stale", "--runs", "0"}, "--runs 0 is out of range"},
		{[]string{"--mechanism", "stale", "--duration", "0s"}, "--duration 0s is out of range"},
		{[]string{"--mechanism", "stale", "--shrink-runs", "-1"}, "--shrink-runs -1 is negative"},
		{[]string{"--mechanism", "stale", "--subject", "detector=nope"}, `no subject "nope"`},
		{[]string{"--mechanism", "stale", "extra"}, "unknown command"},
	} {
		r := opcert(t, nil, append([]string{"fuzz", "--out", out}, tc.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", tc.args, r.code, tc.want, r.stderr)
		}
	}
	checkUntouched(t, out)
}

// Needs kube-apiserver and etcd (make envtest).
func TestFuzzWritesReplayAndMinimal(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	out := filepath.Join(t.TempDir(), "fuzz")
	r := opcert(t, nil, "fuzz", "--mechanism", "stale", "--subject", "detector=lenient", "--draw", "1", "--runs", "1",
		"--duration", "12h", "--shrink-runs", "25", "--out", out)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, w := range []string{"FAIL: draw 1 fails STALE-004", "replay:  opcert run " + filepath.Join(out, "fuzz-stale-1.yaml"), "minimal: opcert run"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("the summary does not say %q:\n%s", w, r.stdout)
		}
	}
	for _, f := range []string{"fuzz-stale-1.yaml", "fuzz-stale-1-min.yaml", "report.md", "timelines/fuzz-stale-1-min.jsonl"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	// The minimal file replays the failure with opcert run.
	replay := opcert(t, nil, "run", filepath.Join(out, "fuzz-stale-1-min.yaml"), "--subject", "detector=lenient", "--out", filepath.Join(t.TempDir(), "replay"))
	if replay.code != 1 || !strings.Contains(replay.stdout, "fuzz-stale-1-min") {
		t.Errorf("replay: exit %d, want 1\n%s\n%s", replay.code, replay.stdout, replay.stderr)
	}
}
