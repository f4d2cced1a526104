// Package rules holds the OLM rules: seed 002 (operators telling OLM, through
// a Probe, whether they may be upgraded) as pure functions over a recorded
// timeline. Each rule cites the seed's section; its condition names, texts and
// the evaluator of the annotation expressions are written here (seed.go,
// expr.go), never imported from reference/ (the judge does not borrow from the
// judged; a test fails if this package depends on reference/).
//
// # Rules
//
// Class MUST fails; SHOULD is a Style rule (a warning, a failure under
// --strict). The audit of the seed, clause by clause, is in
// conformance/olm/README.md.
//
//	rule     class   section                                                   role        statement
//	OLM-001  MUST    002 §Example Workflow; 002 §Test Plan; decision 002       aggregator  the Probe's Upgradeable is False iff a CR blocks under the reading, True otherwise
//	OLM-002  MUST    002 §Example Workflow                                     aggregator  status.probeResources lists exactly the CRs that block or have a True Important-named condition, once each, with those reasons, in any order
//	OLM-003  MUST    002 §Example Workflow                                     aggregator  a Probe exists once an Upgradeable or Important annotation does; a crdAnnotations Probe's spec is what the annotations say, in any order
//	OLM-004  MUST    002 §Writing to the Probe Resource Directly; §Example Workflow  aggregator  a Probe managed by the operator is never written; one with a nil spec has no status written
//	OLM-006  MUST    002 §Design Details; §Example Workflow; docs/upstream.md  olm         an Upgrade is Succeeded iff its gate's input allows, Pending otherwise
//	OLM-007  MUST    002 §Design Details                                       aggregator  every condition the aggregator writes on a Probe is valid (KEP-1623 fields; observedGeneration if set)
//	OLM-008  MUST    docs/upstream.md                                          olm         an OperatorCondition's status.conditions are its spec.conditions stamped with its generation
//	OLM-009  MUST    002 §Example Workflow; decision 002                       aggregator  every Probe the aggregator writes is named after the operator's CSV, in its namespace
//	OLM-010  SHOULD  002 §Example Workflow                                     aggregator  the status is spelled as the example: NotUpgradeable and its message, kind the plural, the expression as the blocking reason
//	OLM-011  MUST    002 §Motivation; §Proposal, Story 2; decision 002          operator    while an operand migrates, the operator says it is not upgradeable where the asked gate reads it
//
// OLM-005 (a ProbeValid condition naming wrong annotations) is gone: the
// seed names no such condition.
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
//   - The operator's requests: a CR whose Field "metadata.annotations"
//     holds opcert.io/operand: Migrating has an operand running a critical
//     process (002 §Motivation), the world's write; any other value, or
//     none, is no critical process.
//   - Roles: "operator" writes its CRs' conditions, its Probe when it is
//     the Probe's manager, its OperatorCondition's spec.conditions (actor
//     "operator"; a process event of that name says when it is down);
//     "aggregator" writes the Probe; "olm" writes the Upgrades'
//     status (actor "olm") and copies OperatorConditions (actor
//     "olm-conditions"). Process events (Kind Process, Name the actor:
//     aggregator, olm, olm-conditions) say when each is down.
//
// # Readings
//
//   - The reaction bound (Config.Reaction, 30s by default, DefaultReaction
//     says why): between two changes of what a subject reads, what it
//     should write is fixed. Each interval longer than the bound (plus
//     Config.Tolerance in real time) is judged at its start plus the
//     bound, then at every later write of the output before the next
//     change. Someone else's write of the output is a change (the
//     aggregator must undo an edit of the spec, 002 §Example Workflow). A
//     subject down owes nothing until it starts again plus the bound; a
//     change whose deadline falls after the next change or the run's end
//     is not judged. The rules that judge a reaction report it measured
//     (Verdict.Measures).
//   - Evaluation is Kleene's (decision 002, conformance/olm/README.md): a
//     condition type a CR lacks, or whose status is neither True nor False, is
//     Unknown; Unknown never blocks, nor does an expression that does not
//     parse ("cannot be calculated", 002 §Test Plan). Under the reading
//     "holds" a CR blocks iff its Upgradeable expression is False, under
//     "blocks" iff it is True.
//   - The aggregator's status (OLM-001, OLM-002, OLM-010) is judged
//     against the Probe's recorded spec, not the annotations, so that a
//     faulty spec fails OLM-003 alone. The CRs of a probe resource are all
//     those on the timeline: the scenario places them in the namespaces
//     the aggregator watches. Orders are not judged (002 gives none); a
//     listed CR's kind is its CRD's plural or its own kind; the reason for
//     a failed Upgradeable expression may be spelled any way (OLM-010
//     asks for the expression as written); what is listed for a probe
//     resource whose Important expression is not ||-only is open.
//   - A CRD carrying an Upgradeable or Important condition annotation
//     gets a probe resource (OLM-003) whose upgradeable and important are
//     those annotations verbatim, whether or not they parse; another
//     name under "olm.operatorframework.io/condition." is no OLM
//     supported condition (002 §Design Details): it lists nothing and
//     calls for no Probe.
//   - The Probe's identity (OLM-009): the CSV an Upgrade moves from
//     (spec.from, in its namespace) and an OperatorCondition's name and
//     namespace; a timeline naming neither does not judge it.
//   - The gate (OLM-006) is judged on what it reads: the Probe's recorded
//     Upgradeable condition (gate probe), not the CRs, so that a broken
//     aggregator does not fail the gate; the OperatorCondition (gate
//     operatorcondition) as docs/upstream.md reads it. A blocked Upgrade is
//     Pending, with reason OperatorConditionNotUpgradeable for the
//     operatorcondition gate (docs/upstream.md); its message is open. A write
//     making it Succeeded must find the input allowing at some instant
//     within the bound before it; Succeeded is final.
//   - Condition validity (OLM-007) judges each condition a write by the
//     aggregator adds or changes: lastTransitionTime moves with the
//     status (up to the bound before the write) and only with it;
//     observedGeneration, when the timeline records the Probe's
//     status.conditions and the condition sets it, is at most the Probe's
//     generation.
//   - Not judged, never failed: a subject down, a deadline after the run
//     or after the next change. Each failure carries the window it
//     judged, so a recording gap excuses only what falls in it.
package rules
