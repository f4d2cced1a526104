package staticpod_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/staticpod"
	"github.com/opcert/opcert/conformance/staticpod/rules"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	RegisterFailHandler(Fail)
	RunSpecs(t, "seed 003 (staticpod) on envtest")
}

// builtins are this mechanism's built-in scenarios.
func builtins() []*scenarios.Scenario { return conformancetest.Builtins(staticpod.Name) }

func playWith(cfg staticpod.Config, name string, choices map[string]string) (reports.Run, *timeline.Timeline) {
	GinkgoHelper()
	sc, err := scenarios.BuiltinNamed(name)
	Expect(err).NotTo(HaveOccurred())
	m := staticpod.Mechanism(cfg)
	cast, err := conformance.Subjects(m, choices)
	Expect(err).NotTo(HaveOccurred())
	run, tl := conformance.Play(context.Background(), api.Client, m, sc, cast, conformance.Options{Prefix: prefix()})
	Expect(run.Error).To(BeEmpty())
	return run, tl
}

func play(name string, choices map[string]string) (reports.Run, *timeline.Timeline) {
	GinkgoHelper()
	return playWith(staticpod.DefaultConfig(), name, choices)
}

func verdict(run reports.Run, rule string) reports.Case {
	GinkgoHelper()
	c, ok := conformancetest.Case(run, rule)
	Expect(ok).To(BeTrue(), "no case %s", rule)
	return c
}

var _ = Describe("the reference", func() {
	for _, sc := range builtins() {
		It("passes every STATICPOD rule and expectation in "+sc.Name+", on its golden timeline", func() {
			run, tl := play(sc.Name, nil)
			Expect(conformancetest.Golden(sc.Name, tl)).To(Succeed())
			for _, c := range run.Cases {
				Expect(c.Status).NotTo(Equal(reports.Fail), "%s: %s", c.Rule, c.Message)
			}
			Expect(verdict(run, "EXPECT").Status).To(Equal(reports.Pass))
		})
	}

	It("gives the same timeline twice, byte for byte (003 is deterministic)", func() {
		_, a := play("staticpod-lock-race", nil)
		_, b := play("staticpod-lock-race", nil)
		var ja, jb bytes.Buffer
		Expect(a.WriteJSONL(&ja)).To(Succeed())
		Expect(b.WriteJSONL(&jb)).To(Succeed())
		Expect(ja.String()).To(Equal(jb.String()))
		Expect(ja.Len()).To(BeNumerically(">", 10000))
	})

	It("judges every rule somewhere in the built-ins", func() {
		judged := map[string]bool{}
		for _, sc := range builtins() {
			run, _ := play(sc.Name, nil)
			for _, c := range run.Cases {
				if c.Status == reports.Pass {
					judged[c.Rule] = true
				}
			}
		}
		for _, r := range rules.Rules(rules.DefaultConfig()) {
			Expect(judged).To(HaveKey(r.ID), "no built-in scenario judges %s", r.ID)
		}
	})

	It("owes step 2 at the installer's unlock and, once back, at the monitor's restart (003 §Proposal step 2)", func() {
		run, _ := play("staticpod-monitor-owes-step-two", nil)
		c := verdict(run, "STATICPOD-012")
		Expect(c.Status).To(Equal(reports.Pass))
		Expect(c.Message).To(Equal("2 judged"))
		for _, subject := range []string{"never-links", "keeps-manifest", "removes-before-linking", "links-late-past-bound"} {
			run, _ := play("staticpod-monitor-owes-step-two", map[string]string{staticpod.RoleStartupMonitor: subject})
			c := verdict(run, "STATICPOD-012")
			Expect(c.Status).To(Equal(reports.Fail), subject)
			Expect(c.Message).To(ContainSubstring("once installer/master-0 released the installer lock at +1m30s"), subject)
			Expect(c.Message).To(ContainSubstring("(and 1 more)"), "%s: the restarted monitor's debt too", subject)
		}
	})

	It("warns of a fallback two revisions back (003 §Design Details)", func() {
		run, _ := play("staticpod-fallback-two-back", nil)
		c := verdict(run, "STATICPOD-005")
		Expect(c.Status).To(Equal(reports.Pass))
		Expect(c.Message).To(ContainSubstring("warning: master-0 fell back from revision 3 to 1 at +15m0s, 2 revisions back"))
	})
})

var _ = It("library-go's subjects pass every STATICPOD rule of the library-go profile", func() {
	cfg := staticpod.DefaultConfig()
	cfg.Profile = rules.ProfileLibraryGo
	lg := map[string]string{}
	for _, role := range []string{staticpod.RoleStartupMonitor, staticpod.RoleInstaller, staticpod.RoleOperator, staticpod.RolePruner} {
		lg[role] = "library-go"
	}
	for _, name := range []string{"staticpod-bad-manifest", "staticpod-etcd-unhealthy", "staticpod-hook-never-finishes", "staticpod-ten-failing-revisions"} {
		run, _ := playWith(cfg, name, lg)
		for _, c := range run.Cases {
			if c.Rule != "EXPECT" { // the built-ins expect the seed's Degraded
				Expect(c.Status).NotTo(Equal(reports.Fail), "%s %s: %s", name, c.Rule, c.Message)
			}
		}
	}
})

// decision 003, conformance/staticpod/README.md, issue 19's done-when:
// library-go's ladder (first retry 20m after the fallback, doubling, capped at
// 2h) is one the seed allows.
var _ = It("passes library-go's back-off under the seed profile (STATICPOD-007)", func() {
	for _, name := range []string{"staticpod-hook-never-finishes", "staticpod-backoff-ladder-24h"} {
		run, _ := play(name, map[string]string{staticpod.RoleOperator: "library-go"})
		c := verdict(run, "STATICPOD-007")
		Expect(c.Status).To(Equal(reports.Pass), "%s: %s", name, c.Message)
		Expect(c.Measures).NotTo(BeEmpty(), name)
		Expect(c.Measures[0].P50).To(BeNumerically(">=", 20*time.Minute), name)
	}
})

// faithfulSubjects are the faithful variants (conformance/staticpod/faithful),
// "role/subject".
func faithfulSubjects() map[string]bool {
	out := map[string]bool{}
	for _, r := range staticpod.Mechanism(staticpod.DefaultConfig()).Roles() {
		for _, s := range r.Subjects {
			if s.Faithful {
				out[r.Name+"/"+s.Name] = true
			}
		}
	}
	return out
}

// A faithful variant, played in its role with the reference elsewhere,
// fails no rule and no expectation on any built-in (a Style rule may warn;
// the built-ins expect what every faithful subject shows, README.md,
// "Scenarios").
var _ = It("fails no rule or expectation with a faithful variant on any built-in", func() {
	Expect(faithfulSubjects()).To(HaveLen(4))
	for s := range faithfulSubjects() {
		role, subject, _ := strings.Cut(s, "/")
		for _, sc := range builtins() {
			name := sc.Name
			run, _ := play(name, map[string]string{role: subject})
			for _, c := range run.Cases {
				Expect(c.Status).NotTo(Equal(reports.Fail), "%s=%s on %s, %s: %s", role, subject, name, c.Rule, c.Message)
			}
		}
	}
})

// Every rule is shown to fail on a subject broken for that reason.
var _ = DescribeTable("a broken subject fails its rule",
	func(role, subject, scenario, rule string) {
		run, _ := play(scenario, map[string]string{role: subject})
		c := verdict(run, rule)
		Expect(c.Status).To(Equal(failing(rule)), "%s=%s should fail %s on %s: %s", role, subject, rule, scenario, c.Message)
		Expect(c.Message).To(ContainSubstring("master-0"))
		Expect(c.Evidence).NotTo(BeEmpty())
	},
	Entry(nil, "startup-monitor", "impatient", "staticpod-hook-never-finishes", "STATICPOD-001"),
	Entry(nil, "startup-monitor", "patient", "staticpod-fallback-two-back", "STATICPOD-001"),
	Entry(nil, "startup-monitor", "wrong-reason", "staticpod-bad-manifest", "STATICPOD-002"),
	Entry(nil, "startup-monitor", "library-go", "staticpod-bad-manifest", "STATICPOD-002"),
	Entry(nil, "startup-monitor", "no-annotations", "staticpod-hook-never-finishes", "STATICPOD-003"),
	Entry(nil, "startup-monitor", "eager-link", "staticpod-healthy-rollout", "STATICPOD-004"),
	Entry(nil, "startup-monitor", "wrong-target", "staticpod-bad-manifest", "STATICPOD-005"),
	Entry(nil, "operator", "retries-crashloop", "staticpod-bad-config-observer", "STATICPOD-006"),
	Entry(nil, "operator", "hasty-retry", "staticpod-hook-never-finishes", "STATICPOD-007"),
	Entry(nil, "operator", "library-go", "staticpod-bad-config-observer", "STATICPOD-006"),
	Entry(nil, "operator", "never-degraded", "staticpod-hook-never-finishes", "STATICPOD-008"),
	Entry(nil, "pruner", "prunes-last-known-good", "staticpod-ten-failing-revisions", "STATICPOD-009"),
	Entry(nil, "pruner", "library-go", "staticpod-ten-failing-revisions", "STATICPOD-009"),
	Entry(nil, "installer", "ignores-lock", "staticpod-lock-race", "STATICPOD-010"),
	Entry(nil, "operator", "no-termination-message", "staticpod-bad-config-observer", "STATICPOD-011"),
)

// Every broken subject of the mechanism is in the table above.
var _ = It("lists every broken subject in the table", func() {
	m := staticpod.Mechanism(staticpod.DefaultConfig())
	tested := map[string]bool{
		"startup-monitor/impatient": true, "startup-monitor/patient": true, "startup-monitor/wrong-reason": true,
		"startup-monitor/library-go": true, "startup-monitor/no-annotations": true, "startup-monitor/eager-link": true,
		"startup-monitor/wrong-target": true, "operator/retries-crashloop": true, "operator/hasty-retry": true,
		"operator/library-go": true, "operator/never-degraded": true, "operator/no-termination-message": true, "pruner/prunes-last-known-good": true,
		"pruner/library-go": true, "installer/ignores-lock": true,
		"installer/library-go": true, // honours the lock as the seed does: nothing to fail
	}
	for s := range faithfulSubjects() { // faithful: nothing to fail
		tested[s] = true
	}
	for s := range mutantsTested() { // mutants_test.go
		tested[s] = true
	}
	for _, r := range m.Roles() {
		Expect(r.Subjects[0].Name).To(Equal("reference"))
		for _, s := range r.Subjects[1:] {
			Expect(tested).To(HaveKey(r.Name+"/"+s.Name), "subject %s of %s has no failing rule in the table", s.Name, r.Name)
		}
	}
})
