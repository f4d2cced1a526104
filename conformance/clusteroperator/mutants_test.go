package clusteroperator_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/opcert/opcert/conformance/clusteroperator"
	"github.com/opcert/opcert/conformance/clusteroperator/rules"
	"github.com/opcert/opcert/reports"
)

// broken names, per broken operator, a built-in where it breaks a rule
// (two rules for a flaw that breaks both).
var broken = []struct {
	subject, scenario, rule string
	status                  reports.Status
}{
	{"early-available", "co-install-minority", "CO-001", reports.Fail},
	{"early-version", "co-clean-upgrade", "CO-002", reports.Fail},
	{"keeps-old-version", "co-clean-upgrade", "CO-003", reports.Fail},
	{"never-progressing", "co-clean-upgrade", "CO-004", reports.Fail},
	{"progressing-at-rest", "co-operator-restart", "CO-005", reports.Warn},
	{"split-write", "co-clean-upgrade", "CO-006", reports.Warn},
	{"stale-completion", "co-clean-upgrade", "CO-007", reports.Fail},
	{"never-degraded", "co-operand-stuck", "CO-008", reports.Fail},
	{"ignores-blockers", "co-upgradeable-blocks", "CO-009", reports.Fail},
	{"churns-transitions", "co-clean-upgrade", "CO-020", reports.Fail},
	{"spaced-reason", "co-clean-install", "CO-026", reports.Warn},
	{"lowercase-messages", "co-clean-install", "CO-021", reports.Warn},
	{"wordy-progressing", "co-clean-upgrade", "CO-022", reports.Warn},
	{"punctuated-available", "co-clean-install", "CO-023", reports.Warn},
	{"silent-degraded", "co-operand-stuck", "CO-024", reports.Warn},
	{"silent-upgradeable", "co-upgradeable-blocks", "CO-025", reports.Warn},
	{"available-on-creation", "co-clean-install", "CO-001", reports.Fail},
	{"install-version-early", "co-clean-install", "CO-002", reports.Fail},
	{"install-version-early", "co-install-minority", "CO-001", reports.Fail},
	{"version-short-one", "co-clean-upgrade", "CO-002", reports.Fail},
	{"version-at-resync", "co-clean-upgrade", "CO-003", reports.Fail},
	{"progressing-late-40s", "co-clean-upgrade", "CO-004", reports.Fail},
	{"unversioned-progressing", "co-clean-upgrade", "CO-004", reports.Fail},
	{"progressing-on-blocker", "co-upgradeable-blocks", "CO-005", reports.Warn},
	{"stamp-early-1s", "co-clean-upgrade", "CO-007", reports.Fail},
	{"stamp-rollout-start", "co-clean-upgrade", "CO-007", reports.Fail},
	{"degraded-late-1m", "co-operand-stuck", "CO-008", reports.Fail},
	{"degraded-unknown", "co-node-never-updates", "CO-008", reports.Fail},
	{"terse-degraded", "co-operand-stuck", "CO-024", reports.Warn},
	{"noun-degraded", "co-node-never-updates", "CO-024", reports.Warn},
	{"noun-degraded", "co-operand-stuck", "CO-021", reports.Warn},
	{"name-first-available", "co-clean-install", "CO-021", reports.Warn},
	{"pod-list-progressing", "co-clean-upgrade", "CO-022", reports.Warn},
	{"detailed-stuck-progressing", "co-operand-stuck", "CO-022", reports.Warn},
	{"two-sentence-available", "co-clean-install", "CO-023", reports.Warn},
	{"ellipsis-installing", "co-install-incomplete", "CO-023", reports.Warn},
	{"transient-upgradeable", "co-upgradeable-blocks", "CO-025", reports.Warn},
	{"upgradeable-while-rolling", "co-clean-upgrade", "CO-025", reports.Warn},
	{"stale-rest-message", "co-clean-upgrade", "CO-006", reports.Warn},
	{"unavailable-while-rolling", "co-clean-upgrade", "CO-010", reports.Fail},
	{"progressing-drops-version", "co-clean-upgrade", "CO-004", reports.Fail},
	{"version-at-resync", "co-clean-upgrade", "CO-010", reports.Fail},
	{"stays-blocked", "co-upgradeable-blocks", "CO-009", reports.Fail},
	{"silent-on-apply-errors", "co-apply-errors", "CO-008", reports.Fail},
}

// Every CO rule fails on a broken operator, with the writes that prove it
// as evidence, and a convention rule warns (the self-test shows the whole
// matrix).
var _ = Describe("the broken operators", func() {
	for _, tc := range broken {
		It(fmt.Sprintf("%s: %s %s in %s", tc.subject, tc.rule, tc.status, tc.scenario), func() {
			run, _ := play(tc.scenario, map[string]string{clusteroperator.RoleOperator: tc.subject})
			c := verdict(run, tc.rule)
			Expect(c.Status).To(Equal(tc.status), c.Message)
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

// The faithful operators (package faithful), written from seed 001 and
// different from the reference wherever it allows, fail no CO rule on any
// built-in: a convention they word otherwise may warn, and a scenario's
// expectations, written for the reference, are not theirs to meet.
var _ = Describe("the faithful operators", func() {
	for _, subject := range []string{"faithful-requeue", "faithful-resync"} {
		for _, sc := range builtins() {
			It(fmt.Sprintf("%s fails no CO rule in %s", subject, sc.Name), func() {
				run, _ := play(sc.Name, map[string]string{clusteroperator.RoleOperator: subject})
				judged := 0
				for _, c := range run.Cases {
					if c.Rule == "EXPECT" {
						continue
					}
					Expect(c.Status).NotTo(Equal(reports.Fail), "%s: %s", c.Rule, c.Message)
					if c.Status == reports.Pass {
						judged++
					}
				}
				Expect(judged).To(BeNumerically(">", 0))
			})
		}
	}
})
