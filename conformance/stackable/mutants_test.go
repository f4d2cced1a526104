package stackable_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/opcert/opcert/conformance/stackable"
	"github.com/opcert/opcert/conformance/stackable/rules"
	"github.com/opcert/opcert/reports"
)

// broken names, per broken operator, a built-in where it breaks a rule.
var broken = []struct {
	subject, scenario, rule string
}{
	{"ignores-unknown", "stackable-pod-unknown", "STACKABLE-001"},
	{"stopped-available", "stackable-stop-start", "STACKABLE-001"},
	{"late", "stackable-pod-failed", "STACKABLE-001"},
	{"slow", "stackable-pod-failed", "STACKABLE-001"},
	{"desired-from-workload", "stackable-stop-pause", "STACKABLE-001"},
	{"surplus-available", "stackable-scale", "STACKABLE-001"},
	{"merges-per-workload", "stackable-three-workloads", "STACKABLE-001"},
	{"progressing-when-available", "stackable-steady", "STACKABLE-002"},
	{"never-degraded", "stackable-pod-failed", "STACKABLE-003"},
	{"silent-pause", "stackable-paused", "STACKABLE-004"},
	{"writes-while-paused", "stackable-paused", "STACKABLE-005"},
	{"stop-keeps-replicas", "stackable-stop-start", "STACKABLE-006"},
	{"moving-transition", "stackable-pod-failed", "STACKABLE-007"},
	{"verbatim-examples", "stackable-pod-failed", "STACKABLE-009"},
	{"stop-keeps-daemonsets", "stackable-stop-start", "STACKABLE-006"},
	{"no-transition-time", "stackable-steady", "STACKABLE-007"},
	{"no-probe-time", "stackable-steady", "STACKABLE-010"},
	{"sentence-reasons", "stackable-steady", "STACKABLE-010"},
}

// Every STACKABLE rule fails on a broken operator, with the writes that
// prove it as evidence (the self-test shows the whole matrix).
var _ = Describe("the broken operators", func() {
	for _, tc := range broken {
		It(fmt.Sprintf("%s: %s fails in %s", tc.subject, tc.rule, tc.scenario), func() {
			run, _ := play(tc.scenario, stackable.DefaultConfig(), map[string]string{stackable.RoleOperator: tc.subject})
			c := verdict(run, tc.rule)
			Expect(c.Status).To(Or(Equal(reports.Fail), Equal(reports.Warn)), c.Message)
			Expect(c.Evidence).NotTo(BeEmpty())
		})
	}

	It("break every rule between them", func() {
		shown := map[string]bool{}
		for _, tc := range broken {
			shown[tc.rule] = true
		}
		for _, r := range rules.Rules(rules.DefaultConfig()) {
			Expect(shown).To(HaveKey(r.ID), "no broken operator is shown failing %s", r.ID)
		}
	})
})

// The faithful operators, written from the ADR, fail no STACKABLE rule in
// any built-in (the load's two hours are the self-test's to play): the
// rules accept more than the reference. The built-ins' expectations are
// the reference's timing and texts, and are not asked of them.
var _ = Describe("the faithful operators", func() {
	for _, subject := range []string{"faithful-requeue", "faithful-terse"} {
		for _, sc := range builtins() {
			if sc.Name == "stackable-load" {
				continue
			}
			It(fmt.Sprintf("%s fails no rule in %s", subject, sc.Name), func() {
				run, _ := play(sc.Name, stackable.DefaultConfig(), map[string]string{stackable.RoleOperator: subject})
				for _, c := range run.Cases {
					if c.Rule != "EXPECT" {
						Expect(c.Status).NotTo(Equal(reports.Fail), "%s: %s", c.Rule, c.Message)
					}
				}
			})
		}
	}
})
