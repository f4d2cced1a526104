package olm_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/opcert/opcert/conformance/olm"
	"github.com/opcert/opcert/conformance/olm/rules"
	"github.com/opcert/opcert/reports"
)

// broken names, per broken subject, a built-in where it breaks a rule.
var broken = []struct {
	role, subject, scenario, rule string
}{
	{olm.RoleAggregator, "unknown-as-false", "olm-cannot-calculate", "OLM-001"},
	{olm.RoleAggregator, "ignores-namespace", "olm-one-of-many", "OLM-001"},
	{olm.RoleAggregator, "late", "olm-seed-example", "OLM-001"},
	{olm.RoleAggregator, "frozen-reasons", "olm-seed-example", "OLM-002"},
	{olm.RoleAggregator, "all-true-important", "olm-seed-example", "OLM-002"},
	{olm.RoleAggregator, "frozen-spec", "olm-annotations-change", "OLM-003"},
	{olm.RoleAggregator, "ignores-manager", "olm-operator-managed", "OLM-004"},
	{olm.RoleAggregator, "nil-spec-aggregates", "olm-nil-spec", "OLM-004"},
	{olm.RoleAggregator, "moving-transition", "olm-seed-example", "OLM-007"},
	{olm.RoleAggregator, "waits-for-crs", "olm-no-crs", "OLM-003"},
	{olm.RoleAggregator, "nil-spec-as-empty", "olm-nil-spec", "OLM-004"},
	{olm.RoleAggregator, "misnamed-probe", "olm-seed-example", "OLM-009"},
	{olm.RoleAggregator, "own-texts", "olm-seed-example", "OLM-010"},
	{olm.RoleAggregator, "misplaced-probe", "olm-seed-example", "OLM-009"},
	{olm.RoleAggregator, "frozen-transition", "olm-seed-example", "OLM-007"},
	{olm.RoleAggregator, "drops-important", "olm-seed-example", "OLM-003"},
	{olm.RoleOLM, "ignores-probe", "olm-seed-example", "OLM-006"},
	{olm.RoleOLM, "ignores-override", "olm-oc-override-true", "OLM-006"},
	{olm.RoleOLM, "ignores-generation", "olm-oc-stale-generation", "OLM-006"},
	{olm.RoleOLM, "unknown-blocks", "olm-oc-unknown", "OLM-006"},
	{olm.RoleOLM, "copies-status-only", "olm-oc-stale-generation", "OLM-008"},
	{olm.RoleOLM, "unstamped-copy", "olm-oc-override-true", "OLM-008"},
	{olm.RoleOLM, "copies-without-message", "olm-oc-override-true", "OLM-008"},
	{olm.RoleOperator, "mute", "olm-operator-migration", "OLM-011"},
	{olm.RoleOperator, "late", "olm-operator-migration", "OLM-011"},
}

// Every OLM rule fails on a broken subject (a Style rule warns), with the
// writes that prove it as evidence (the self-test shows the whole matrix).
var _ = Describe("the broken subjects", func() {
	for _, tc := range broken {
		It(fmt.Sprintf("%s %s: %s fails in %s", tc.role, tc.subject, tc.rule, tc.scenario), func() {
			run, _ := play(tc.scenario, olm.DefaultConfig(), map[string]string{tc.role: tc.subject})
			c := verdict(run, tc.rule)
			want := reports.Fail
			if tc.rule == "OLM-010" {
				want = reports.Warn // the seed's example spellings: a Style rule
			}
			Expect(c.Status).To(Equal(want), c.Message)
			Expect(c.Evidence).NotTo(BeEmpty())
		})
	}

	It("break every rule between them", func() {
		shown := map[string]bool{}
		for _, tc := range broken {
			shown[tc.rule] = true
		}
		for _, r := range rules.Rules(rules.DefaultConfig()) {
			Expect(shown).To(HaveKey(r.ID), "no broken subject is shown failing %s", r.ID)
		}
	})
})
