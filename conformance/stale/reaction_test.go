package stale

import (
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/conformance"
)

// The mechanism's reaction bound is the minimum stale-message update time,
// and --reaction-bound stale=D rebuilds it, rules and all, with D; the
// other knobs (scale, tolerance) keep it.
func TestReactionBound(t *testing.T) {
	m := Mechanism(DefaultConfig())
	if conformance.ReactionOf(m) != 30*time.Second {
		t.Fatalf("Reaction %s, want 000 §Test Plan's 30s", conformance.ReactionOf(m))
	}
	tight := m.(conformance.Reactive).WithReaction(10 * time.Second)
	if conformance.ReactionOf(tight) != 10*time.Second {
		t.Fatalf("WithReaction(10s).Reaction = %s", conformance.ReactionOf(tight))
	}
	for _, r := range tight.Rules() {
		if r.ID == "STALE-007" && !strings.Contains(r.Statement, "(10s)") {
			t.Errorf("STALE-007 judged with 10s says %q", r.Statement)
		}
	}
	if got := conformance.ReactionOf(tight.(conformance.Scalable).Scaled(0.5)); got != 10*time.Second {
		t.Errorf("scaled, the bound is %s, want 10s kept", got)
	}
	if got := conformance.ReactionOf(tight.(conformance.Tolerant).WithTolerance(time.Second)); got != 10*time.Second {
		t.Errorf("with a tolerance, the bound is %s, want 10s kept", got)
	}
}

// At a time scale the statements give the scaled waits the rules judge
// with, however the mechanism is rebuilt (a reaction bound after the
// scale).
func TestScaledStatementsAndMark(t *testing.T) {
	m := Mechanism(DefaultConfig()).(conformance.Scalable).Scaled(0.01).(conformance.Reactive).WithReaction(20 * time.Second)
	for _, r := range m.Rules() {
		if r.ID == "STALE-001" && !strings.Contains(r.Statement, "(6s)") {
			t.Errorf("STALE-001 at 0.01 says %q, want (6s)", r.Statement)
		}
	}
}
