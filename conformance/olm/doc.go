// Package olm is seed 002's plug-in (mechanism "olm"): OLM operator status
// through condition annotations on an operator's CRDs, a Probe aggregated
// from its CRs by a status probe operator, and OLM's upgrade gate.
//
// The world (scenario.go): the fixtures' sample CRDs (foos.example.com,
// bars.example.com) as the operator's owned CRDs, carrying the scenario's
// `olm.operatorframework.io/condition.*` annotations; CRs of them in the
// scenario's namespaces, whose conditions the operator writes (steps); the
// operator's Probe, named after its CSV in its namespace, created by the
// aggregator when a CRD opts in, or by the scenario (`probe:` with manager
// operator, or a nil spec); an OperatorCondition for the gate OLM shipped;
// and the upgrades the scenario asks for (an Upgrade object each, whose
// status the gate writes).
//
// The roles: aggregator (reference/olm's Aggregator, the seed's status
// probe operator, or a faithful variant of package faithful) and olm
// (reference/olm's Gate and the OperatorCondition copier). README.md
// holds the audit of the seed the rules follow and the reaction bound's
// reasoning. The operator's own writes are the scenario's steps, made as
// actor "operator" (role operator): the CRs' conditions, its Probe through
// package probe, its OperatorCondition's spec.conditions.
//
// The fixtures' CRDs are cluster-scoped and shared by the runs of one API
// server (their names cannot carry a run's prefix: a CRD's name is its
// plural and group), so each run sets their annotations at its start, and
// runs never play two olm scenarios at once.
package olm
