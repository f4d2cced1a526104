package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/opcert/opcert/scenarios"
)

// The reference subjects pass every stale built-in at a time scale of 0.01
// (in scaled virtual time: the reference is no executable). The world's
// texts stay the world's: the mark says "more than 20 minutes", not the
// 12s the run took, as the expectations and STALE-004 want; the answer
// delays are scaled with the waits they sit in. The 24-hour fleet is left
// out for time (over a minute here; it passes too).
func TestScaledReferencePassesTheStaleBuiltins(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	all, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "scaled")
	args := []string{"run", "--time-scale", "0.01", "--out", out}
	for _, sc := range all {
		if sc.Mechanism == "stale" && sc.Name != "stale-fleet-24h" {
			args = append(args, "--scenario", sc.Name)
		}
	}
	if r := opcert(t, nil, args...); r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	marked := false
	for _, run := range readReport(t, out).Runs {
		if run.Scenario != "stale-operator-death" {
			continue
		}
		for _, e := range readTimeline(t, filepath.Join(out, run.Timeline)) {
			for _, c := range e.Conditions {
				if e.Actor == "detector" && c.After != nil && c.After.Status == "Unknown" {
					marked = true
					if !strings.HasPrefix(c.After.Message, "Operator has not updated this condition for more than 20 minutes,") {
						t.Errorf("the mark at 0.01 says %q, want the world's 20 minutes", c.After.Message)
					}
				}
			}
		}
	}
	if !marked {
		t.Error("no mark in stale-operator-death")
	}
}
