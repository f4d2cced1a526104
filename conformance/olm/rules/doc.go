// Package rules holds the OLM rules: seed 002 (operators telling OLM,
// through a Probe, whether they may be upgraded) as pure functions over a
// recorded timeline. Each rule cites the seed's section; its condition
// names, texts and the evaluator of the annotation expressions are
// written here (seed.go, expr.go), never imported from reference/ (DESIGN
// "The judge does not borrow from the judged"; a test fails if this
// package depends on reference/).
//
// # Rules
//
//	rule     section                                                   role        statement
//	OLM-001  002 §Example Workflow; 002 §Test Plan; DESIGN 002         aggregator  the Probe's Upgradeable is False (NotUpgradeable, the seed's message) iff a CR blocks under the reading, True otherwise
//	OLM-002  002 §Example Workflow                                     aggregator  status.probeResources lists exactly the CRs with reasons, each with its reasons in order
//	OLM-003  002 §Example Workflow                                     aggregator  a Probe exists once an Upgradeable or Important annotation does; a crdAnnotations Probe's spec is what the annotations say
//	OLM-004  002 §Writing to the Probe Resource Directly; §Example Workflow  aggregator  a Probe managed by the operator is never written; one with a nil spec has no status written
//	OLM-005  002 §Opting into OLM Supported Conditions; DESIGN 002     aggregator  a wrong annotation makes ProbeValid False naming the CRD and the annotation; right ones never do
//	OLM-006  002 §Design Details; §Example Workflow; UPSTREAM          olm         an Upgrade is Succeeded iff its gate's input allows, Pending naming the blocking CRs otherwise
//	OLM-007  002 §Design Details                                       aggregator  every condition the aggregator writes on a Probe is valid (KEP-1623 fields)
//	OLM-008  UPSTREAM                                                  olm         an OperatorCondition's status.conditions are its spec.conditions stamped with its generation
//
// # Timeline contract
//
//   - Owned CRDs: Object{Kind: "CustomResourceDefinition", Group:
//     "apiextensions.k8s.io", Name: "foos.example.com"}, Fields
//     "metadata.annotations" (a map) and "spec.names.plural"; a
//     "spec.names.kind" or "spec.names" field, when recorded, maps a CR's
//     kind to its CRD (otherwise the CRD of the CR's group whose plural
//     is the kind in lower case plus "s" or "es", or the group's only
//     CRD). Every CRD on the timeline is owned by the operator: one
//     operator per timeline, as in the seed's example.
//   - CRs: any namespaced object of a group other than
//     operators.coreos.com, opcert.io and apiextensions.k8s.io; their
//     conditions from the condition diffs, in the order of the Field
//     "status.conditions" (the full list) when it is recorded.
//   - Probes: Object{Kind: "Probe", Group: "operators.coreos.com"},
//     Fields "spec" (absent or null: nil), "status.probeResources",
//     "metadata.generation", and, when recorded, "status.conditions"
//     (for observedGeneration, OLM-007); conditions from the diffs.
//   - OperatorConditions (operators.coreos.com): Fields "spec",
//     "status.conditions", "metadata.generation".
//   - Upgrades (opcert.io): Fields "spec" {from, to, gate} and "status"
//     {phase, reason, message}.
//   - Roles: "aggregator" writes the Probe; "olm" writes the Upgrades'
//     status (actor "olm") and copies OperatorConditions (actor
//     "olm-conditions"). Process events (Kind Process, Name the actor:
//     aggregator, olm, olm-conditions) say when each is down.
//
// # Readings
//
//   - Within one reconcile: between two changes of what a subject reads,
//     what it should write is fixed. Each interval longer than
//     Config.Tolerance is judged at its start plus the tolerance (with
//     none, once every event of its first instant has happened), then at
//     every later write of the output before the next change. Someone
//     else's write of the output is a change (the aggregator must undo
//     an edit of the spec, 002 §Example Workflow). A subject down owes
//     nothing until it starts again plus the tolerance; a change whose
//     deadline falls after the next change or the run's end is not
//     judged.
//   - Evaluation is Kleene's (DESIGN 002): a condition type a CR lacks,
//     or whose status is neither True nor False, is Unknown; Unknown
//     never blocks, nor does an expression that does not parse ("cannot
//     be calculated", 002 §Test Plan). Under the reading "holds" a CR
//     blocks iff its Upgradeable expression is False, under "blocks" iff
//     it is True.
//   - The aggregator's status (OLM-001, OLM-002) is judged against the
//     Probe's recorded spec, not the annotations, so that a faulty spec
//     fails OLM-003 alone. The CRs of a probe resource are all those on
//     the timeline: the scenario places them in the namespaces the
//     aggregator watches.
//   - A CRD carrying an Upgradeable or Important condition annotation
//     gets a probe resource (OLM-003) whose upgradeable and important are
//     those annotations verbatim, whether or not they parse; another
//     name under "olm.operatorframework.io/condition." is no OLM
//     supported condition (002 §Design Details): it lists nothing and
//     calls for no Probe, but is reported, as are an expression that does
//     not parse and an Important expression using && or ! (OLM-005, on
//     a Probe managed by crdAnnotations): ProbeValid's message must hold
//     the CRD's name and the annotation's key.
//   - The gate (OLM-006) is judged on what it reads: the Probe's recorded
//     Upgradeable condition (gate probe), not the CRs, so that a broken
//     aggregator does not fail the gate; the OperatorCondition (gate
//     operatorcondition) as UPSTREAM reads it. A blocked Upgrade is
//     Pending with reason ProbeNotUpgradeable or
//     OperatorConditionNotUpgradeable, and, for the probe gate, a message
//     naming "kind namespace/name" of each entry of the Probe's
//     status.probeResources whose first reason is its probe resource's
//     Upgradeable expression. A write making it Succeeded must find the
//     input allowing at some instant within the tolerance before it (in
//     virtual time, at the write's instant); Succeeded is final.
//   - Condition validity (OLM-007) judges each condition a write by the
//     aggregator adds or changes: lastTransitionTime moves with the
//     status and only with it; observedGeneration only when the timeline
//     records the Probe's status.conditions.
//   - Not judged, never failed: a subject down, a deadline after the run
//     or after the next change. Each failure carries the window it
//     judged, so a recording gap excuses only what falls in it.
package rules
