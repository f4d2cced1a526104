// Package olmoperator is an example operator managed by OLM, written the
// way a team writes one, from the operator-status design alone (an
// operator "executing a critical process" tells OLM not to upgrade it,
// and says so again once it may be): it owns CRs of one or more kinds,
// and while the operand of any of them migrates it says it is not
// upgradeable on one channel of the design, chosen by Options.Channel:
//
//   - ChannelCRs: a Migrating condition on each CR (True while its operand
//     migrates), which its CRD's annotation
//     olm.operatorframework.io/condition.Upgradeable: "!Migrating" turns
//     into the Probe's Upgradeable through the status probe operator;
//   - ChannelProbe: the Upgradeable condition of its own Probe, whose
//     manager it is (spec.manager: operator);
//   - ChannelOperatorCondition: the Upgradeable entry of its
//     OperatorCondition's spec.conditions.
//
// Which operand migrates it reads off the CR's annotation opcert.io/operand
// (Migrating or Idle): opcert's test harness sets it, where a real operator
// would look at its database. It is level-triggered: every request makes
// it read its CRs whole and write what differs.
//
// Options.Lies makes the broken operator of the tests: it reports that
// nothing migrates, Upgradeable True while an operand is mid-migration.
//
// It imports nothing of opcert's (examples/imports_test.go): certify_test.go
// certifies it in library mode, and cmd/olmoperator runs it as a process,
// or in a pod: deploy.yaml deploys it for opcert's cluster mode.
package olmoperator
