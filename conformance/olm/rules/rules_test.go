package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/opcert/opcert/reports"
)

// The rules come in ID order, each with a section of the seed (or the
// design it follows), a role and a statement, and the seed's example
// fails none of them.
func TestRules(t *testing.T) {
	rules := Rules(DefaultConfig())
	if len(rules) != 8 {
		t.Fatalf("%d rules, want 8", len(rules))
	}
	for i, r := range rules {
		if want := fmt.Sprintf("OLM-%03d", i+1); r.ID != want {
			t.Errorf("rule %d is %s, want %s", i, r.ID, want)
		}
		if !strings.HasPrefix(r.Section, "002 §") && r.Section != "UPSTREAM" || r.Statement == "" || r.Check == nil {
			t.Errorf("%s: section %q, statement %q", r.ID, r.Section, r.Statement)
		}
		if r.Role != RoleAggregator && r.Role != RoleOLM {
			t.Errorf("%s: role %q", r.ID, r.Role)
		}
	}
	for _, tc := range []struct {
		name string
		cfg  Config
	}{{"virtual time", DefaultConfig()}, {"real time", Config{Tolerance: 5e9}}} {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range Rules(tc.cfg) {
				tl := seedExample()
				v := r.Check(newJudging(tl))
				if v.Status == reports.Fail {
					t.Errorf("%s fails the seed's example: %s", r.ID, v.Message)
				}
			}
		})
	}
}

func TestStatementsSayTheTolerance(t *testing.T) {
	if s := Rules(Config{Tolerance: 5e9})[0].Statement; !strings.Contains(s, "within 5s of each change") {
		t.Errorf("statement %q does not say the tolerance", s)
	}
	if s := Rules(DefaultConfig())[0].Statement; !strings.Contains(s, `the reading "holds"`) {
		t.Errorf("statement %q does not say the reading", s)
	}
}
