package rules

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
)

// The rules are the contract's, CO-001 to CO-010, then the conditions',
// from CO-020 on; they cite seed 001, judge the operator, and what the
// seed only recommends is Style (README.md, the audit).
func TestRuleTable(t *testing.T) {
	ids := []string{"CO-001", "CO-002", "CO-003", "CO-004", "CO-005", "CO-006", "CO-007", "CO-008", "CO-009", "CO-010",
		"CO-020", "CO-021", "CO-022", "CO-023", "CO-024", "CO-025", "CO-026"}
	style := []string{"CO-005", "CO-006", "CO-021", "CO-022", "CO-023", "CO-024", "CO-025", "CO-026"}
	if !slices.Equal(order, ids) {
		t.Errorf("the fold's verdicts are in the order %v, want %v", order, ids)
	}
	rs := Rules(DefaultConfig())
	if len(rs) != len(ids) {
		t.Fatalf("%d rules, want %d", len(rs), len(ids))
	}
	for i, r := range rs {
		if r.ID != ids[i] {
			t.Errorf("rule %d is %s, want %s", i, r.ID, ids[i])
		}
		if !strings.HasPrefix(r.Section, "001 §") || r.Statement == "" || r.Check == nil || r.Role != RoleOperator {
			t.Errorf("%s: section %q, role %q, statement %q", r.ID, r.Section, r.Role, r.Statement)
		}
		if r.Style != slices.Contains(style, r.ID) {
			t.Errorf("%s: Style %v", r.ID, r.Style)
		}
	}
}

// The package doc's rule table, which the README copies, names each rule
// with its section and role, and marks the Style ones.
func TestDocTable(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(doc), "\n")
	for _, r := range Rules(DefaultConfig()) {
		i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "//\t"+r.ID+" ") })
		if i < 0 || !strings.Contains(lines[i], " "+r.Section+" ") || !strings.Contains(lines[i], " "+r.Role+" ") ||
			strings.Contains(lines[i], "(style)") != r.Style {
			t.Errorf("doc.go has no table line for %s with section %q, role %q and style %v", r.ID, r.Section, r.Role, r.Style)
		}
	}
}

// A convention rule's failure is a warning unless the judging is strict;
// the other rules' failures fail either way.
func TestStyleWarnsUnlessStrict(t *testing.T) {
	stuck := c(condDegraded, statusFalse, "")
	broken := map[string]*builder{
		"CO-001": newStory().co("0s", "etcd", "", deployed("4.0.0")).spec("0s", "etcd", kindDeployment, "etcd", "4.0.0", 1).builder,
		"CO-002": installed().spec("10m", "etcd", kindDeployment, "etcd", "4.0.1", 1).co("10m", "etcd", "4.0.1").builder,
		"CO-003": reference().co("20m", "etcd", "4.0.0").builder,
		"CO-004": rollingOut(installed(), false).builder,
		"CO-005": reference().co("20m", "etcd", "", towards("4.0.1", "3 of 3")).builder,
		"CO-006": upgrading().lastPodReady("11m").co("11m", "etcd", "", deployed("4.0.1"), atVersion("4.0.1")).co("11m", "etcd", "4.0.1").builder,
		"CO-007": rollingOut(installed(), false).lastPodReady("11m").co("11m", "etcd", "4.0.1", deployed("4.0.1"), atVersion("4.0.1")).builder,
		"CO-008": upgrading().co("20m31s", "etcd", "", stuck).builder,
		"CO-009": reference().blocker("20m", "etcd", "Update the nodes first").builder,
		"CO-010": reference().co("20m", "etcd", "", c(condAvailable, statusFalse, "Component etcd is down")).builder,
		"CO-020": upgraded().write("7m", "etcd", c(condAvailable, "Yes", "Cluster is up")),
		"CO-021": upgraded().write("7m", "etcd", c(condAvailable, statusTrue, "cluster has deployed 4.0.1")),
		"CO-022": upgraded().write("7m", "etcd", c(condProgressing, statusTrue, seedFailing)),
		"CO-023": upgraded().write("7m", "etcd", c(condAvailable, statusTrue, "Cluster has deployed 4.0.1.")),
		"CO-024": upgraded().write("7m", "etcd", c(condDegraded, statusTrue, "Failed")),
		"CO-025": upgraded().write("7m", "etcd", c(condUpgradeable, statusFalse, "")),
		"CO-026": upgraded().write("7m", "etcd", c(condAvailable, statusTrue, "Cluster is up").because("All good")),
	}
	for _, r := range Rules(DefaultConfig()) {
		tl, ok := broken[r.ID]
		if !ok {
			t.Errorf("%s: no broken story", r.ID)
			continue
		}
		for _, strict := range []bool{false, true} {
			j := judge.NewJudging(tl.events, at("1h"))
			j.Strict = strict
			got := judge.JudgeWith([]judge.Rule{r}, j)[0]
			want := reports.Fail
			if r.Style && !strict {
				want = reports.Warn
			}
			if got.Status != want || len(got.Evidence) == 0 || got.Message == "" {
				t.Errorf("%s, strict %v: %s with no evidence (%s), want %s with the write", r.ID, strict, got.Status, got.Message, want)
			}
		}
	}
}
