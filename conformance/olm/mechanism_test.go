package olm_test

import (
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/conformance/olm"
	"github.com/opcert/opcert/conformance/olm/rules"
)

// The mechanism states its reaction bound, 30s by default, and rebuilds
// its rules with another one (--reaction-bound olm=D).
func TestReactionBound(t *testing.T) {
	m := olm.Mechanism(olm.DefaultConfig())
	if m.Reaction != rules.DefaultReaction {
		t.Fatalf("reaction bound %v, want the rules' default %v", m.Reaction, rules.DefaultReaction)
	}
	if rules.DefaultReaction != 30*time.Second {
		t.Fatalf("default reaction bound %v, want 30s", rules.DefaultReaction)
	}
	loose := m.WithReaction(2 * time.Minute)
	if loose.Reaction != 2*time.Minute {
		t.Fatalf("WithReaction(2m): bound %v", loose.Reaction)
	}
	if s := loose.Rules[0].Statement; !strings.Contains(s, "within the reaction bound of 2m0s") {
		t.Errorf("OLM-001 under a 2m bound says %q", s)
	}
}

// The aggregator role has two faithful variants and no other role has
// any: the olm role is OLM itself, which no team brings, and the
// operator role is played by a team's own operator (operator_test.go).
func TestFaithfulSubjects(t *testing.T) {
	for _, r := range olm.Mechanism(olm.DefaultConfig()).Roles {
		n := 0
		for _, s := range r.Subjects {
			if s.Faithful {
				n++
			}
		}
		if want := map[string]int{olm.RoleAggregator: 2}[r.Name]; n != want {
			t.Errorf("role %s: %d faithful variants, want %d", r.Name, n, want)
		}
	}
}
