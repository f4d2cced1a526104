package clusteroperator_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/opcert/opcert/conformance/clusteroperator"
	"github.com/opcert/opcert/conformance/clusteroperator/rules"
	"github.com/opcert/opcert/reports"
)

// Every CO rule fails on a broken operator, with the writes that prove it
// as evidence, and a convention rule warns (001's rules can fail; the
// self-test shows the whole matrix).
// broken names, per broken operator, a built-in where it breaks a rule.
var broken = []struct {
	subject, scenario, rule string
	status                  reports.Status
}{
	{"early-available", "co-install-incomplete", "CO-001", reports.Fail},
	{"early-version", "co-clean-upgrade", "CO-002", reports.Fail},
	{"keeps-old-version", "co-clean-upgrade", "CO-003", reports.Fail},
	{"never-progressing", "co-clean-upgrade", "CO-004", reports.Fail},
	{"progressing-at-rest", "co-operator-restart", "CO-005", reports.Fail},
	{"split-write", "co-clean-upgrade", "CO-006", reports.Fail},
	{"stale-completion", "co-clean-upgrade", "CO-007", reports.Fail},
	{"never-degraded", "co-operand-stuck", "CO-008", reports.Fail},
	{"ignores-blockers", "co-upgradeable-blocks", "CO-009", reports.Fail},
	{"churns-transitions", "co-clean-upgrade", "CO-020", reports.Fail},
	{"spaced-reason", "co-clean-install", "CO-020", reports.Fail},
	{"lowercase-messages", "co-clean-install", "CO-021", reports.Warn},
	{"wordy-progressing", "co-clean-upgrade", "CO-022", reports.Warn},
	{"punctuated-available", "co-clean-install", "CO-023", reports.Warn},
	{"silent-degraded", "co-operand-stuck", "CO-024", reports.Fail},
	{"silent-upgradeable", "co-upgradeable-blocks", "CO-025", reports.Fail},
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
