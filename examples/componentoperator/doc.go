// Package componentoperator is a small, real operator of seed 001's world:
// the operator of one component, which rolls its operands (Deployments and
// DaemonSets in its namespace) to the version it runs and reports its
// ClusterOperator as the contract asks (001 §What should an operator
// report): Progressing naming the new version while it rolls out, the old
// version while any old pod runs, the new one with Progressing at rest in
// one write once no old pod is left, Available only once installed,
// Degraded when a rollout stalls, Upgradeable=False with the text of the
// admin's blocker.
//
// What to decide, and how to read and write its world, is
// reference/component's (Params.Step, and Operator, the adapter the
// simulator also runs): this package is what a team adds to run it as a
// process, a controller-runtime manager whose cache holds only its
// namespace and its ClusterOperator, on the wall clock. It is what opcert
// runs as a process in its tests of process mode (cmd/opcert,
// process_co_test.go), one per component, with its settings from the
// OPCERT_* environment opcert gives each process (cmd/componentoperator).
package componentoperator
