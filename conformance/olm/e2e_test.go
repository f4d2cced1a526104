package olm_test

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/olm"
	"github.com/opcert/opcert/conformance/olm/faithful"
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

func play(name string, cfg olm.Config, choices map[string]string) (reports.Run, *timeline.Timeline) {
	GinkgoHelper()
	sc, err := scenarios.BuiltinNamed(name)
	Expect(err).NotTo(HaveOccurred())
	m := olm.Mechanism(cfg)
	cast, err := conformance.Subjects(m, choices)
	Expect(err).NotTo(HaveOccurred())
	run, tl := conformance.Play(context.Background(), api.Client, m, sc, cast, conformance.Options{Prefix: prefix()})
	Expect(run.Error).To(BeEmpty())
	return run, tl
}

// The reference passes every built-in under the seed's reading
// (suite_test.go), and the OLM rules under the test plan's too.
var _ = Describe("the reference", func() {
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

// The faithful aggregators fail no rule in any built-in under the seed's
// reading (suite_test.go), nor under the test plan's: a Style rule may
// warn, and the built-ins' expectations, written for the reference's
// texts, are not theirs to meet.
var _ = Describe("the faithful aggregators", func() {
	for _, v := range faithful.Variants() {
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
