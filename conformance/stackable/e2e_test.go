package stackable_test

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stackable"
	"github.com/opcert/opcert/conformance/stackable/rules"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	RegisterFailHandler(Fail)
	RunSpecs(t, "seed 004 (stackable) on envtest")
}

func play(name string, cfg stackable.Config, choices map[string]string) (reports.Run, *timeline.Timeline) {
	GinkgoHelper()
	sc, err := scenarios.BuiltinNamed(name)
	Expect(err).NotTo(HaveOccurred())
	m := stackable.Mechanism(cfg)
	cast, err := conformance.Subjects(m, choices)
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

// What operator-rs shipped passes the rules of its profile (the Style
// rules warn: it writes no lastProbeTime), and fails the seed's only
// where it departs from the ADR: the pod phases it ignores, the
// Progressing and Degraded it does not build, the pause and stop it reads
// from its spec, never on texts.
var _ = Describe("the operator-rs profile", func() {
	rs := stackable.DefaultConfig()
	rs.Profile = rules.ProfileOperatorRS
	for _, name := range []string{"stackable-steady", "stackable-pod-unknown", "stackable-operator-restart"} {
		It("passes the operator-rs rules in "+name, func() {
			run, _ := play(name, rs, map[string]string{stackable.RoleOperator: "operator-rs"})
			for _, c := range run.Cases {
				if c.Rule == "EXPECT" {
					continue // the built-ins' expectations are the seed's
				}
				Expect(c.Status).To(Or(Equal(reports.Pass), Equal(reports.Skip), Equal(reports.Warn)), "%s: %s %s", c.Rule, c.Status, c.Message)
			}
		})
	}
	It("fails the seed's rules only on the conditions it does not build, without a pod Unknown", func() {
		run, _ := play("stackable-pod-failed", stackable.DefaultConfig(), map[string]string{stackable.RoleOperator: "operator-rs"})
		var failed []string
		for _, c := range run.Cases {
			if c.Status == reports.Fail && c.Rule != "EXPECT" {
				failed = append(failed, c.Rule)
			}
		}
		Expect(failed).To(ConsistOf("STACKABLE-002", "STACKABLE-003", "STACKABLE-004"))
	})
	It("fails the seed's Available rule where a pod's phase is Unknown", func() {
		run, _ := play("stackable-pod-unknown", stackable.DefaultConfig(), map[string]string{stackable.RoleOperator: "operator-rs"})
		Expect(verdict(run, "STACKABLE-001").Status).To(Equal(reports.Fail))
	})
})
