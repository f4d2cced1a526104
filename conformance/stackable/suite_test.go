package stackable_test

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stackable"
)

// The checks every mechanism passes (conformancetest.Suite): the reference
// passes every built-in on its golden timeline and judges every rule
// between them; every STACKABLE rule fails on a broken operator, with the
// writes that prove it as evidence (a Style rule warns; the self-test
// shows the whole matrix); the faithful operators, written from the ADR,
// fail no rule in any built-in but the load, whose two hours are the
// self-test's to play.
var suite = conformancetest.Suite{
	Mechanism: stackable.Name,
	API:       func() client.Client { return api.Client },
	Prefix:    prefix,
	// Per broken operator, a built-in where it breaks a rule.
	Broken: []conformancetest.Broken{
		{Role: stackable.RoleOperator, Subject: "ignores-unknown", Scenario: "stackable-pod-unknown", Rule: "STACKABLE-001"},
		{Role: stackable.RoleOperator, Subject: "stopped-available", Scenario: "stackable-stop-start", Rule: "STACKABLE-001"},
		{Role: stackable.RoleOperator, Subject: "late", Scenario: "stackable-pod-failed", Rule: "STACKABLE-001"},
		{Role: stackable.RoleOperator, Subject: "slow", Scenario: "stackable-pod-failed", Rule: "STACKABLE-001"},
		{Role: stackable.RoleOperator, Subject: "desired-from-workload", Scenario: "stackable-stop-pause", Rule: "STACKABLE-001"},
		{Role: stackable.RoleOperator, Subject: "surplus-available", Scenario: "stackable-scale", Rule: "STACKABLE-001"},
		{Role: stackable.RoleOperator, Subject: "merges-per-workload", Scenario: "stackable-three-workloads", Rule: "STACKABLE-001"},
		{Role: stackable.RoleOperator, Subject: "progressing-when-available", Scenario: "stackable-steady", Rule: "STACKABLE-002"},
		{Role: stackable.RoleOperator, Subject: "never-degraded", Scenario: "stackable-pod-failed", Rule: "STACKABLE-003"},
		{Role: stackable.RoleOperator, Subject: "silent-pause", Scenario: "stackable-paused", Rule: "STACKABLE-004"},
		{Role: stackable.RoleOperator, Subject: "writes-while-paused", Scenario: "stackable-paused", Rule: "STACKABLE-005"},
		{Role: stackable.RoleOperator, Subject: "stop-keeps-replicas", Scenario: "stackable-stop-start", Rule: "STACKABLE-006"},
		{Role: stackable.RoleOperator, Subject: "moving-transition", Scenario: "stackable-pod-failed", Rule: "STACKABLE-007"},
		{Role: stackable.RoleOperator, Subject: "verbatim-examples", Scenario: "stackable-pod-failed", Rule: "STACKABLE-009"},
		{Role: stackable.RoleOperator, Subject: "stop-keeps-daemonsets", Scenario: "stackable-stop-start", Rule: "STACKABLE-006"},
		{Role: stackable.RoleOperator, Subject: "no-transition-time", Scenario: "stackable-steady", Rule: "STACKABLE-007"},
		{Role: stackable.RoleOperator, Subject: "no-probe-time", Scenario: "stackable-steady", Rule: "STACKABLE-010"},
		{Role: stackable.RoleOperator, Subject: "sentence-reasons", Scenario: "stackable-steady", Rule: "STACKABLE-010"},
	},
	Costly: []string{"stackable-load"},
}

var _ = suite.Describe()
