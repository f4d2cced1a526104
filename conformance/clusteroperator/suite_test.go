package clusteroperator_test

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/conformance/clusteroperator"
	"github.com/opcert/opcert/conformance/conformancetest"
)

// The checks every mechanism passes (conformancetest.Suite): the reference
// passes every built-in on its golden timeline and judges every rule
// between them; every CO rule fails on a broken operator, with the writes
// that prove it as evidence, and a convention rule warns (the self-test
// shows the whole matrix); the faithful operators (package faithful),
// written from seed 001 and different from the reference wherever it
// allows, fail no CO rule in any built-in.
var suite = conformancetest.Suite{
	Mechanism: clusteroperator.Name,
	API:       func() client.Client { return api.Client },
	Prefix:    prefix,
	// Per broken operator, a built-in where it breaks a rule (two rules
	// for a flaw that breaks both).
	Broken: []conformancetest.Broken{
		{Role: clusteroperator.RoleOperator, Subject: "early-available", Scenario: "co-install-minority", Rule: "CO-001"},
		{Role: clusteroperator.RoleOperator, Subject: "early-version", Scenario: "co-clean-upgrade", Rule: "CO-002"},
		{Role: clusteroperator.RoleOperator, Subject: "keeps-old-version", Scenario: "co-clean-upgrade", Rule: "CO-003"},
		{Role: clusteroperator.RoleOperator, Subject: "never-progressing", Scenario: "co-clean-upgrade", Rule: "CO-004"},
		{Role: clusteroperator.RoleOperator, Subject: "progressing-at-rest", Scenario: "co-operator-restart", Rule: "CO-005"},
		{Role: clusteroperator.RoleOperator, Subject: "split-write", Scenario: "co-clean-upgrade", Rule: "CO-006"},
		{Role: clusteroperator.RoleOperator, Subject: "stale-completion", Scenario: "co-clean-upgrade", Rule: "CO-007"},
		{Role: clusteroperator.RoleOperator, Subject: "never-degraded", Scenario: "co-operand-stuck", Rule: "CO-008"},
		{Role: clusteroperator.RoleOperator, Subject: "ignores-blockers", Scenario: "co-upgradeable-blocks", Rule: "CO-009"},
		{Role: clusteroperator.RoleOperator, Subject: "churns-transitions", Scenario: "co-clean-upgrade", Rule: "CO-020"},
		{Role: clusteroperator.RoleOperator, Subject: "spaced-reason", Scenario: "co-clean-install", Rule: "CO-026"},
		{Role: clusteroperator.RoleOperator, Subject: "lowercase-messages", Scenario: "co-clean-install", Rule: "CO-021"},
		{Role: clusteroperator.RoleOperator, Subject: "wordy-progressing", Scenario: "co-clean-upgrade", Rule: "CO-022"},
		{Role: clusteroperator.RoleOperator, Subject: "punctuated-available", Scenario: "co-clean-install", Rule: "CO-023"},
		{Role: clusteroperator.RoleOperator, Subject: "silent-degraded", Scenario: "co-operand-stuck", Rule: "CO-024"},
		{Role: clusteroperator.RoleOperator, Subject: "silent-upgradeable", Scenario: "co-upgradeable-blocks", Rule: "CO-025"},
		{Role: clusteroperator.RoleOperator, Subject: "available-on-creation", Scenario: "co-clean-install", Rule: "CO-001"},
		{Role: clusteroperator.RoleOperator, Subject: "install-version-early", Scenario: "co-clean-install", Rule: "CO-002"},
		{Role: clusteroperator.RoleOperator, Subject: "install-version-early", Scenario: "co-install-minority", Rule: "CO-001"},
		{Role: clusteroperator.RoleOperator, Subject: "version-short-one", Scenario: "co-clean-upgrade", Rule: "CO-002"},
		{Role: clusteroperator.RoleOperator, Subject: "version-at-resync", Scenario: "co-clean-upgrade", Rule: "CO-003"},
		{Role: clusteroperator.RoleOperator, Subject: "progressing-late-40s", Scenario: "co-clean-upgrade", Rule: "CO-004"},
		{Role: clusteroperator.RoleOperator, Subject: "unversioned-progressing", Scenario: "co-clean-upgrade", Rule: "CO-004"},
		{Role: clusteroperator.RoleOperator, Subject: "progressing-on-blocker", Scenario: "co-upgradeable-blocks", Rule: "CO-005"},
		{Role: clusteroperator.RoleOperator, Subject: "stamp-early-1s", Scenario: "co-clean-upgrade", Rule: "CO-007"},
		{Role: clusteroperator.RoleOperator, Subject: "stamp-rollout-start", Scenario: "co-clean-upgrade", Rule: "CO-007"},
		{Role: clusteroperator.RoleOperator, Subject: "degraded-late-1m", Scenario: "co-operand-stuck", Rule: "CO-008"},
		{Role: clusteroperator.RoleOperator, Subject: "degraded-unknown", Scenario: "co-node-never-updates", Rule: "CO-008"},
		{Role: clusteroperator.RoleOperator, Subject: "terse-degraded", Scenario: "co-operand-stuck", Rule: "CO-024"},
		{Role: clusteroperator.RoleOperator, Subject: "noun-degraded", Scenario: "co-node-never-updates", Rule: "CO-024"},
		{Role: clusteroperator.RoleOperator, Subject: "noun-degraded", Scenario: "co-operand-stuck", Rule: "CO-021"},
		{Role: clusteroperator.RoleOperator, Subject: "name-first-available", Scenario: "co-clean-install", Rule: "CO-021"},
		{Role: clusteroperator.RoleOperator, Subject: "pod-list-progressing", Scenario: "co-clean-upgrade", Rule: "CO-022"},
		{Role: clusteroperator.RoleOperator, Subject: "detailed-stuck-progressing", Scenario: "co-operand-stuck", Rule: "CO-022"},
		{Role: clusteroperator.RoleOperator, Subject: "two-sentence-available", Scenario: "co-clean-install", Rule: "CO-023"},
		{Role: clusteroperator.RoleOperator, Subject: "ellipsis-installing", Scenario: "co-install-incomplete", Rule: "CO-023"},
		{Role: clusteroperator.RoleOperator, Subject: "transient-upgradeable", Scenario: "co-upgradeable-blocks", Rule: "CO-025"},
		{Role: clusteroperator.RoleOperator, Subject: "upgradeable-while-rolling", Scenario: "co-clean-upgrade", Rule: "CO-025"},
		{Role: clusteroperator.RoleOperator, Subject: "stale-rest-message", Scenario: "co-clean-upgrade", Rule: "CO-006"},
		{Role: clusteroperator.RoleOperator, Subject: "unavailable-while-rolling", Scenario: "co-clean-upgrade", Rule: "CO-010"},
		{Role: clusteroperator.RoleOperator, Subject: "progressing-drops-version", Scenario: "co-clean-upgrade", Rule: "CO-004"},
		{Role: clusteroperator.RoleOperator, Subject: "version-at-resync", Scenario: "co-clean-upgrade", Rule: "CO-010"},
		{Role: clusteroperator.RoleOperator, Subject: "stays-blocked", Scenario: "co-upgradeable-blocks", Rule: "CO-009"},
		{Role: clusteroperator.RoleOperator, Subject: "silent-on-apply-errors", Scenario: "co-apply-errors", Rule: "CO-008"},
	},
}

var _ = suite.Describe()
