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
// probe operator, a faithful variant of package faithful, or a team's Go
// reconciler or executable: library and process mode, below), olm
// (reference/olm's Gate and the OperatorCondition copier), and operator,
// the operator OLM installed (operator.go). README.md holds the audit of
// the seed the rules follow and the reaction bound's reasoning.
//
// The operator's reference is the scenario's steps, made as actor
// "operator" (role operator): the CRs' conditions, its Probe through
// package probe, its OperatorCondition's spec.conditions. A team's
// operator plays the role as a Go reconciler (library mode) or an
// executable (process mode, processes.go) in its own scenarios, with the
// reference aggregator and gate. Then the steps split in two: requests to
// the operator (operand: the world tells it, through the annotation
// opcert.io/operand on a CR, that the CR's operand migrates, 002
// §Motivation's critical process) and world writes (the user's CRs, the
// bundle's CRD annotations, OLM's Probe and OperatorCondition at install,
// the admin's edits, upgrades) are made as for the reference; the
// operator's own writes (setConditions, setProbeUpgradeable,
// setOperatorCondition, the conditions a scenario gives its CRs) are
// not made (a step is recorded as skipped): the team's operator writes what its operands'
// state makes it write, and OLM-011 judges that it says it is not
// upgradeable while an operand migrates. On a cluster (cluster mode,
// deployments.go) the team's Deployment plays it, speaking through its
// CRs' conditions, while opcert plays the aggregator and OLM in its own
// process against the cluster.
//
// A team's aggregator (library mode, conformance.Reconciler) gets the
// run's client and clock, Instance.Name the operator's CSV (its Probe's
// name), and one request, {operator's namespace, CSV}, at its start and at
// every event of a CRD, of the Probe and of a CR of the fixtures' kinds.
// It finds out itself, from the API, which CRDs opt in (their condition
// annotations), their CRs and the Probe; the target namespaces and the
// expression reading are not given (README.md, "The aggregator role").
// A team's aggregator may be an executable too (process mode,
// aggregator_process.go), told the operator's CSV, namespace, owned CRDs,
// the namespaces of its CRs and the reading by its command's
// placeholders.
//
// The fixtures' CRDs are cluster-scoped and shared by the runs of one API
// server (their names cannot carry a run's prefix: a CRD's name is its
// plural and group), so each run sets their annotations at its start, and
// runs never play two olm scenarios at once; on a cluster a run holds
// them while it plays and puts their annotations back at its end.
package olm
