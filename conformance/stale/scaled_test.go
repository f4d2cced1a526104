package stale_test

import (
	"context"
	"strings"
	"testing"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stale"
)

// The reference subjects pass every stale built-in at a time scale of 0.01
// (in scaled virtual time: the reference is no executable), as opcert run
// --time-scale 0.01 plays them. The world's texts stay the world's: the
// mark says "more than 20 minutes", not the 12s the run took, as the
// expectations and STALE-004 want; the answer delays are scaled with the
// waits they sit in. The 24-hour fleet is left out for time (over a
// minute here; it passes too).
func TestScaledReferencePassesTheStaleBuiltins(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	m := stale.Mechanism(stale.DefaultConfig())
	cast, err := conformance.Subjects(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	marked := false
	for _, sc := range conformancetest.Builtins("stale") {
		if sc.Name == "stale-fleet-24h" {
			continue
		}
		run, tl := conformance.Play(context.Background(), api.Client, m, sc, cast, conformance.Options{Prefix: prefix(), Dir: t.TempDir(), TimeScale: 0.01})
		conformancetest.Certified(t, run)
		if sc.Name != "stale-operator-death" {
			continue
		}
		for _, e := range tl.Events() {
			for _, c := range e.Conditions {
				if e.Actor == stale.RoleDetector && c.After != nil && c.After.Status == "Unknown" {
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
