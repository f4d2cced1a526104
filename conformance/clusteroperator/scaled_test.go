package clusteroperator_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/clusteroperator"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// opcert run --time-scale 0.03 with opcert's own subjects: the scenario's
// times, the world's pace and the rules' thresholds shrink together, and
// so must every time the reference subjects keep of their own (the
// operator's 10 minutes before a stall is Degraded, the version
// operator's 40 minutes to install), or a scaled built-in fails the
// reference (issue 20 §7: co-install-incomplete's installation was never
// reported failing).
var _ = Describe("the reference at --time-scale 0.03", func() {
	for _, sc := range builtins() {
		It("passes every CO rule and expectation in "+sc.Name, func() {
			m := clusteroperator.Mechanism(clusteroperator.DefaultConfig())
			cast, err := conformance.Subjects(m, nil)
			Expect(err).NotTo(HaveOccurred())
			run, tl := conformance.Play(context.Background(), api.Client, m, sc, cast, conformance.Options{Prefix: prefix(), TimeScale: 0.03})
			Expect(run.Error).To(BeEmpty())
			for _, c := range run.Cases {
				Expect(c.Status).To(Or(Equal(reports.Pass), Equal(reports.Skip)), "%s: %s %s", c.Rule, c.Status, c.Message)
			}
			if expects(sc) {
				Expect(verdict(run, "EXPECT").Status).To(Equal(reports.Pass))
			}
			if sc.Name == "co-install-incomplete" {
				// The reference waits for every node: its installation
				// never completes, and the version operator says so at its
				// install timeout, 40 minutes scaled.
				Expect(installFailed(tl)).To(BeTrue(), "the version operator never reported the installation failing")
			}
		})
	}
})

// installFailed tells whether the version operator set its ClusterVersion
// Failing True.
func installFailed(tl *timeline.Timeline) bool {
	for _, e := range tl.Events() {
		if e.Role != clusteroperator.RoleVersionOperator || e.Object.Kind != "ClusterVersion" {
			continue
		}
		for _, ch := range e.Conditions {
			if ch.Type == "Failing" && ch.After != nil && ch.After.Status == "True" {
				return true
			}
		}
	}
	return false
}
