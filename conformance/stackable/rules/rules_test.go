package rules

import (
	"strings"
	"testing"

	"github.com/opcert/opcert/reports"
)

// The rules come in ID order, each with a section of the ADR, the role
// operator and a statement, and no healthy timeline fails any of them, in
// virtual and in real time.
func TestRules(t *testing.T) {
	rules := Rules(DefaultConfig())
	ids := []string{"STACKABLE-001", "STACKABLE-002", "STACKABLE-003", "STACKABLE-004", "STACKABLE-005", "STACKABLE-006", "STACKABLE-007", "STACKABLE-009", "STACKABLE-010"}
	if len(rules) != len(ids) {
		t.Fatalf("%d rules, want %d", len(rules), len(ids))
	}
	for i, r := range rules {
		if r.ID != ids[i] {
			t.Errorf("rule %d is %s, want %s", i, r.ID, ids[i])
		}
		if r.Style != (r.ID == "STACKABLE-009" || r.ID == "STACKABLE-010") {
			t.Errorf("%s: Style %t", r.ID, r.Style)
		}
		if !strings.HasPrefix(r.Section, "004 §") || r.Statement == "" || r.Check == nil || r.Role != RoleOperator {
			t.Errorf("%s: section %q, role %q, statement %q", r.ID, r.Section, r.Role, r.Statement)
		}
	}
	for _, cfg := range []Config{DefaultConfig(), {}, {Tolerance: 5e9}} {
		for name, tl := range map[string]*builder{"started": started(), "failed": failed(), "lost": lost(), "stopped": stopped(), "paused": paused(),
			"three workloads": threeRoles().status("2m", unavailable(), podFailed("[c1-agent-b]"), degraded("[c1-agent-b]", "[Failed]"), reconciling(), running())} {
			for _, r := range Rules(cfg) {
				if v := r.Check(newJudging(tl)); v.Status == reports.Fail {
					t.Errorf("%s, tolerance %s: %s fails: %s", name, cfg.Tolerance, r.ID, v.Message)
				}
			}
		}
	}
}

func TestStatementsSayTheProfile(t *testing.T) {
	if s := Rules(Config{Reaction: 25e9, Tolerance: 5e9})[0].Statement; !strings.Contains(s, "within 30s of each change") {
		t.Errorf("statement %q does not say the tolerance", s)
	}
	rs := Rules(Config{Profile: ProfileOperatorRS})
	if s := rs[0].Statement; !strings.Contains(s, "True < False < Unknown") {
		t.Errorf("operator-rs statement %q does not say its merge", s)
	}
	for _, i := range []int{1, 2} {
		if s := rs[i].Statement; !strings.Contains(s, "not judged in the operator-rs profile") {
			t.Errorf("%s: statement %q does not say it is not judged", rs[i].ID, s)
		}
	}
	if s := rs[4].Statement; !strings.Contains(s, "spec.clusterOperation.reconciliationPaused") {
		t.Errorf("operator-rs STACKABLE-005 %q does not say its switch", s)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg Config
		ok  bool
	}{
		{DefaultConfig(), true},
		{Config{}, true},
		{Config{Profile: ProfileOperatorRS, Tolerance: 5e9}, true},
		{Config{Profile: "library-go"}, false},
		{Config{Tolerance: -1}, false},
		{Config{Reaction: -1}, false},
	} {
		if err := tc.cfg.Validate(); (err == nil) != tc.ok {
			t.Errorf("%+v: %v", tc.cfg, err)
		}
	}
}
