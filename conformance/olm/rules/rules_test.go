package rules

import (
	"strings"
	"testing"

	"github.com/opcert/opcert/reports"
)

// The rules come in ID order, each with a section of the seed (or the
// design it follows), a role and a statement, and the seed's example
// fails none of them.
func TestRules(t *testing.T) {
	rules := Rules(DefaultConfig())
	// OLM-005 (ProbeValid) is gone: the seed names no such condition.
	ids := []string{"OLM-001", "OLM-002", "OLM-003", "OLM-004", "OLM-006", "OLM-007", "OLM-008", "OLM-009", "OLM-010", "OLM-011"}
	if len(rules) != len(ids) {
		t.Fatalf("%d rules, want %d", len(rules), len(ids))
	}
	for i, r := range rules {
		if r.ID != ids[i] {
			t.Errorf("rule %d is %s, want %s", i, r.ID, ids[i])
		}
		if r.Style != (r.ID == "OLM-010") {
			t.Errorf("%s: Style %v: only OLM-010, the seed's example spellings, is a Style rule", r.ID, r.Style)
		}
		if !strings.HasPrefix(r.Section, "002 §") && r.Section != "docs/upstream.md" || r.Statement == "" || r.Check == nil {
			t.Errorf("%s: section %q, statement %q", r.ID, r.Section, r.Statement)
		}
		if r.Role != RoleAggregator && r.Role != RoleOLM && r.Role != RoleOperator {
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

func TestStatementsSayTheBound(t *testing.T) {
	if s := Rules(DefaultConfig())[0].Statement; !strings.Contains(s, "within the reaction bound of 30s after each change") {
		t.Errorf("statement %q does not say the reaction bound", s)
	}
	if s := Rules(Config{Reaction: 30e9, Tolerance: 1e9})[0].Statement; !strings.Contains(s, "within the reaction bound of 31s after each change") {
		t.Errorf("statement %q does not say the bound with the real-time slack", s)
	}
	if s := Rules(Config{})[0].Statement; !strings.Contains(s, "within the instant of each change") {
		t.Errorf("statement %q does not say a zero bound", s)
	}
	if s := Rules(DefaultConfig())[0].Statement; !strings.Contains(s, `the reading "holds"`) {
		t.Errorf("statement %q does not say the reading", s)
	}
}
