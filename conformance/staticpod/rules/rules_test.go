package rules

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
)

// Every rule is shown to pass on the reference's story and to fail on a
// broken one, with evidence.
func TestEveryRuleCanFailAndPass(t *testing.T) {
	cases := map[string]struct{ pass, fail *builder }{
		"STATICPOD-001": {rollout(), failing()},
		"STATICPOD-002": {stuckHook(), failing().fallback("6m", 2, 1, reasonUnhealthy, "not ready")},
		"STATICPOD-003": {stuckHook(), failing().fellBack("6m", 1, "")},
		"STATICPOD-004": {rollout(), failing().link("1m10s", 2)},
		"STATICPOD-005": {stuckHook(), rollout().install("10m", 3).started("10m").hookStuck("10m").fallback("15m", 3, 1, reasonNotReady, notReadyMsg)},
		"STATICPOD-006": {crashLoop(), crashLoop().install("16m", 2)},
		"STATICPOD-007": {stuckHook(), retried("12m")},
		"STATICPOD-008": {stuckHook(), failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg)},
		"STATICPOD-009": {rollout().prune("10m", 1), rollout().prune("10m", 2)},
		"STATICPOD-011": {crashLoopTerminated(), crashLoopTerminated().condition("6m1s", "True", "revision 2 fell back: "+crashMsg)},
		"STATICPOD-010": {stuckHook(), failing().lock("6m", RoleStartupMonitor).manifest("6m1s", RoleInstaller, 3, "").unlock("6m2s", RoleStartupMonitor)},
		"STATICPOD-012": {rollout(), readied().link("1m30s", 2)},
		"STATICPOD-013": {stuckHook(), failing().fallback("6m", 2, 1, reasonNotReady, "not ready")},
		"STATICPOD-014": {stuckHook(), failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).ask("16m", 2)},
		"STATICPOD-015": {stuckHook(), failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m", "True", notReadyMsg).install("16m", 2).ready("16m30s", 2)},
	}
	rules := Rules(*exact())
	for i, r := range rules {
		if want := fmt.Sprintf("STATICPOD-%03d", i+1); r.ID != want {
			t.Errorf("rule %d is %s, want %s", i, r.ID, want)
		}
		if !strings.HasPrefix(r.Section, "003 §") || r.Statement == "" || r.Check == nil ||
			!slices.Contains([]string{RoleStartupMonitor, RoleInstaller, RoleOperator, RolePruner}, r.Role) {
			t.Errorf("%s: section %q, role %q, statement %q", r.ID, r.Section, r.Role, r.Statement)
		}
		c, ok := cases[r.ID]
		if !ok {
			t.Errorf("%s: no passing and failing story", r.ID)
			continue
		}
		delete(cases, r.ID)
		if v := r.Check(judge.NewJudging(c.pass.events, at("2h"))); v.Status != reports.Pass {
			t.Errorf("%s on the reference: %s %s", r.ID, v.Status, v.Message)
		}
		if v := r.Check(judge.NewJudging(c.fail.events, at("2h"))); v.Status != reports.Fail || len(v.Evidence) == 0 {
			t.Errorf("%s on a broken story: %s %s, %d evidence events", r.ID, v.Status, v.Message, len(v.Evidence))
		}
	}
	for id := range cases {
		t.Errorf("story for %s, which is no rule", id)
	}
}

func TestConfig(t *testing.T) {
	seed := DefaultConfig()
	if want := (Config{Profile: ProfileSeed, Timeout: d("5m"), FirstRetry: d("10m"), MaxBackoff: d("6h"),
		NoRetry: []string{"CrashLooping", "NeverStartedUp"}, Reaction: d("1m")}); !reflect.DeepEqual(seed, want) {
		t.Errorf("DefaultConfig() = %+v, want %+v", seed, want)
	}
	lib := LibraryGo()
	if want := (Config{Profile: ProfileLibraryGo, Timeout: d("5m"), FirstRetry: d("20m"), MaxBackoff: d("2h"), Reaction: d("1m")}); !reflect.DeepEqual(lib, want) {
		t.Errorf("LibraryGo() = %+v, want %+v", lib, want)
	}
	for _, c := range []Config{seed, lib} {
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", c.Profile, err)
		}
	}
	bad := map[string]func(*Config){
		"an unknown profile":          func(c *Config) { c.Profile = "upstream" },
		"no timeout":                  func(c *Config) { c.Timeout = 0 },
		"a cap below the first retry": func(c *Config) { c.MaxBackoff = d("5m") },
		"a negative tolerance":        func(c *Config) { c.Tolerance = -d("1s") },
		"a negative reaction bound":   func(c *Config) { c.Reaction = -d("1s") },
		"a reason the profile lacks":  func(c *Config) { c.Profile = ProfileLibraryGo },
	}
	for name, edit := range bad {
		c := DefaultConfig()
		edit(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// The library-go profile judges its own condition on a Judging the seed's
// rules already read: facts are kept per condition type.
func TestProfilesShareAJudging(t *testing.T) {
	tl := failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m", "True", notReadyMsg).retyped(libraryGoCondition)
	fresh := func(cfg Config) judge.Verdict {
		return ruleByID(t, cfg, "STATICPOD-008").Check(judge.NewJudging(tl.events, at("1h")))
	}
	shared := judge.NewJudging(tl.events, at("1h"))
	for _, cfg := range []Config{DefaultConfig(), LibraryGo()} {
		if got, want := ruleByID(t, cfg, "STATICPOD-008").Check(shared), fresh(cfg); !reflect.DeepEqual(got, want) {
			t.Errorf("%s on a shared Judging: %+v, want %+v", cfg.Profile, got, want)
		}
	}
	if v := fresh(LibraryGo()); v.Status != reports.Pass {
		t.Errorf("library-go: %s %s", v.Status, v.Message)
	}
}

// The package doc's rule table, which the README copies, names each rule
// with its section and role.
func TestDocTable(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(doc), "\n")
	for _, r := range Rules(DefaultConfig()) {
		i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, r.ID+" ") })
		if i < 0 || !strings.Contains(lines[i], r.Section+" ") || !strings.Contains(lines[i], " "+r.Role+" ") {
			t.Errorf("doc.go has no table line for %s with section %q and role %q", r.ID, r.Section, r.Role)
		}
	}
}
