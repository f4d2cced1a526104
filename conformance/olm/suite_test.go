package olm_test

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/olm"
)

// The checks every mechanism passes (conformancetest.Suite): the reference
// passes every built-in on its golden timeline and judges every rule
// between them; every OLM rule fails on a broken subject, with the writes
// that prove it as evidence (OLM-010, a Style rule, warns; the self-test
// shows the whole matrix); the faithful aggregators (package faithful)
// differ from the reference wherever 002 leaves a choice open and fail no
// rule in any built-in.
var suite = conformancetest.Suite{
	Mechanism: olm.Name,
	API:       func() client.Client { return api.Client },
	Prefix:    prefix,
	// Per broken subject, a built-in where it breaks a rule.
	Broken: []conformancetest.Broken{
		{Role: olm.RoleAggregator, Subject: "unknown-as-false", Scenario: "olm-cannot-calculate", Rule: "OLM-001"},
		{Role: olm.RoleAggregator, Subject: "ignores-namespace", Scenario: "olm-one-of-many", Rule: "OLM-001"},
		{Role: olm.RoleAggregator, Subject: "late", Scenario: "olm-seed-example", Rule: "OLM-001"},
		{Role: olm.RoleAggregator, Subject: "frozen-reasons", Scenario: "olm-seed-example", Rule: "OLM-002"},
		{Role: olm.RoleAggregator, Subject: "all-true-important", Scenario: "olm-seed-example", Rule: "OLM-002"},
		{Role: olm.RoleAggregator, Subject: "frozen-spec", Scenario: "olm-annotations-change", Rule: "OLM-003"},
		{Role: olm.RoleAggregator, Subject: "ignores-manager", Scenario: "olm-operator-managed", Rule: "OLM-004"},
		{Role: olm.RoleAggregator, Subject: "nil-spec-aggregates", Scenario: "olm-nil-spec", Rule: "OLM-004"},
		{Role: olm.RoleAggregator, Subject: "moving-transition", Scenario: "olm-seed-example", Rule: "OLM-007"},
		{Role: olm.RoleAggregator, Subject: "waits-for-crs", Scenario: "olm-no-crs", Rule: "OLM-003"},
		{Role: olm.RoleAggregator, Subject: "nil-spec-as-empty", Scenario: "olm-nil-spec", Rule: "OLM-004"},
		{Role: olm.RoleAggregator, Subject: "misnamed-probe", Scenario: "olm-seed-example", Rule: "OLM-009"},
		{Role: olm.RoleAggregator, Subject: "own-texts", Scenario: "olm-seed-example", Rule: "OLM-010"},
		{Role: olm.RoleAggregator, Subject: "misplaced-probe", Scenario: "olm-seed-example", Rule: "OLM-009"},
		{Role: olm.RoleAggregator, Subject: "frozen-transition", Scenario: "olm-seed-example", Rule: "OLM-007"},
		{Role: olm.RoleAggregator, Subject: "drops-important", Scenario: "olm-seed-example", Rule: "OLM-003"},
		{Role: olm.RoleOLM, Subject: "ignores-probe", Scenario: "olm-seed-example", Rule: "OLM-006"},
		{Role: olm.RoleOLM, Subject: "ignores-override", Scenario: "olm-oc-override-true", Rule: "OLM-006"},
		{Role: olm.RoleOLM, Subject: "ignores-generation", Scenario: "olm-oc-stale-generation", Rule: "OLM-006"},
		{Role: olm.RoleOLM, Subject: "unknown-blocks", Scenario: "olm-oc-unknown", Rule: "OLM-006"},
		{Role: olm.RoleOLM, Subject: "copies-status-only", Scenario: "olm-oc-stale-generation", Rule: "OLM-008"},
		{Role: olm.RoleOLM, Subject: "unstamped-copy", Scenario: "olm-oc-override-true", Rule: "OLM-008"},
		{Role: olm.RoleOLM, Subject: "copies-without-message", Scenario: "olm-oc-override-true", Rule: "OLM-008"},
		{Role: olm.RoleOperator, Subject: "mute", Scenario: "olm-operator-migration", Rule: "OLM-011"},
		{Role: olm.RoleOperator, Subject: "late", Scenario: "olm-operator-migration", Rule: "OLM-011"},
	},
}

var _ = suite.Describe()
