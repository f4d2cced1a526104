package olm_test

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/olm"
	"github.com/opcert/opcert/conformance/olm/faithful"
	"github.com/opcert/opcert/conformance/olm/rules"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	RegisterFailHandler(Fail)
	RunSpecs(t, "seed 002 (olm) on envtest")
}

// builtins are this mechanism's built-in scenarios.
func builtins() []*scenarios.Scenario { return conformancetest.Builtins(olm.Name) }

func play(name string, cfg olm.Config, choices map[string]string) (reports.Run, *timeline.Timeline) {
	GinkgoHelper()
	sc, err := scenarios.BuiltinNamed(name)
	Expect(err).NotTo(HaveOccurred())
	m := olm.Mechanism(cfg)
	cast, err := m.Subjects(choices)
	Expect(err).NotTo(HaveOccurred())
	run, tl := conformance.Play(context.Background(), api.Client, m, sc, cast, conformance.Options{Prefix: prefix()})
	Expect(run.Error).To(BeEmpty())
	return run, tl
}

func verdict(run reports.Run, rule string) reports.Case {
	GinkgoHelper()
	c, ok := conformancetest.Case(run, rule)
	Expect(ok).To(BeTrue(), "no case %s", rule)
	return c
}

var _ = Describe("the reference", Ordered, func() {
	judged := map[string]bool{} // the rules some built-in judged and passed
	for _, sc := range builtins() {
		It("passes every OLM rule and expectation in "+sc.Name+", on its golden timeline", func() {
			run, tl := play(sc.Name, olm.DefaultConfig(), nil)
			Expect(conformancetest.Golden(sc.Name, tl)).To(Succeed())
			for _, c := range run.Cases {
				Expect(c.Status).To(Or(Equal(reports.Pass), Equal(reports.Skip)), "%s: %s %s", c.Rule, c.Status, c.Message)
				if c.Status == reports.Pass {
					judged[c.Rule] = true
				}
			}
		})
	}

	It("has judged every OLM rule somewhere in the built-ins", func() {
		for _, r := range rules.Rules(rules.DefaultConfig()) {
			Expect(judged).To(HaveKey(r.ID), "no built-in scenario judges %s", r.ID)
		}
	})

	It("passes the OLM rules under the test plan's reading too (--olm-reading blocks)", func() {
		cfg := olm.DefaultConfig()
		cfg.Reading = olm.ReadingBlocks
		for _, name := range []string{"olm-seed-example", "olm-one-of-many", "olm-cannot-calculate"} {
			run, _ := play(name, cfg, nil)
			for _, c := range run.Cases {
				if c.Rule == "EXPECT" {
					continue // the built-ins' expectations are the seed's reading
				}
				Expect(c.Status).To(Or(Equal(reports.Pass), Equal(reports.Skip)), "%s %s: %s %s", name, c.Rule, c.Status, c.Message)
			}
		}
	})
})

// The faithful aggregators (package faithful) differ from the reference
// wherever 002 leaves a choice open and fail no rule on any built-in: a
// Style rule may warn, and the built-ins' expectations, written for the
// reference's texts, are not theirs to meet.
var _ = Describe("the faithful aggregators", func() {
	for _, v := range faithful.Variants() {
		for _, sc := range builtins() {
			It(v.Name+" fails no OLM rule in "+sc.Name, func() {
				run, _ := play(sc.Name, olm.DefaultConfig(), map[string]string{olm.RoleAggregator: v.Name})
				for _, c := range run.Cases {
					if c.Rule != "EXPECT" {
						Expect(c.Status).NotTo(Equal(reports.Fail), "%s: %s", c.Rule, c.Message)
					}
				}
			})
		}
		It(v.Name+" fails no OLM rule under the test plan's reading (--olm-reading blocks)", func() {
			cfg := olm.DefaultConfig()
			cfg.Reading = olm.ReadingBlocks
			run, _ := play("olm-seed-example", cfg, map[string]string{olm.RoleAggregator: v.Name})
			for _, c := range run.Cases {
				if c.Rule != "EXPECT" {
					Expect(c.Status).NotTo(Equal(reports.Fail), "%s: %s", c.Rule, c.Message)
				}
			}
		})
	}
})
