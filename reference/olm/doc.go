// Package olm is the reference of seed 002 (OLM operator status): the
// aggregator (the seed's Status Probe Operator), OLM's upgrade gate in two
// profiles, and OLM's copy of an OperatorCondition's conditions, each a
// pure core and a thin controller-runtime adapter.
//
// The cores read nothing and take time as an argument:
//   - DesiredSpec is the Probe's spec from the owned CRDs' condition
//     annotations (002 §Opting into OLM Supported Conditions, 002 §Example
//     Workflow); Compile parses its expressions (package expr) and lists
//     those that do not parse, each naming the resource, the annotation,
//     the column and what was expected (decision 002, conformance/olm/README.md).
//   - Judge evaluates one CR: the Upgradeable expression's three-valued
//     value over its conditions, whether it blocks (by Reading: "holds",
//     the default, blocks on False; "blocks" on True; Unknown never
//     blocks, 002 §Test Plan's "cannot be calculated"), and its reasons:
//     the expression as written if it blocks, then each True condition the
//     Important expression names, in the CR's order.
//   - Status is the Probe's status from every CR judged, the spec's
//     problems, the status it has, its generation and now: the CRs with a
//     reason, in order of (probe resource, namespace, name); Upgradeable
//     False iff one CR blocks, with the seed's message; ProbeValid; a
//     lastTransitionTime that moves only on a change of status; and whether
//     anything changed, so that nothing is written otherwise.
//   - Decide is the gate's decision on an Upgrade: profile probe (the Probe
//     named after the current CSV has Upgradeable False) or operatorcondition
//     (OLM's shipped gate, docs/upstream.md, seed 002, with its order of
//     checks and its messages).
//   - CopyConditions is OLM's copy of spec.conditions to status.conditions.
//
// The adapters (Aggregator, Gate, Copier) read, call a core and write,
// with time from an injected clock. Every object goes through the client
// as unstructured, so any client works, whatever its scheme. The
// Aggregator keeps the CRs' conditions in memory: one list per kind and
// target namespace when it starts, then one read per CR that Map marked
// dirty.
//
// Choices where the seed is silent:
//   - The aggregator manages a Probe only while its spec.manager is
//     crdAnnotations. It creates a missing Probe when one owned CRD carries
//     an Upgradeable or Important annotation (again after a deletion); a
//     nil spec (002 §Example Workflow's note) and any other manager are
//     left alone, spec and status.
//   - An annotation under the prefix with another name than Upgradeable or
//     Important is not an OLM supported condition: it gives no probe resource,
//     but ProbeValid names it (Unsupported; decision 002,
//     conformance/olm/README.md: errors rather than silence). An empty
//     annotation counts as no expression.
//   - A probe resource whose CRD is not one of the owned CRDs aggregates
//     nothing: the aggregator has the operator's rights (002 §Example
//     Workflow: "The permissions of the probe will match the same
//     permissions of the operator").
//   - The probe gate's message names each CR of the status whose reasons
//     hold its resource's Upgradeable expression; a Probe the operator
//     writes lists none, and its Upgradeable message is quoted instead. No
//     Probe, or no Upgradeable condition, allows the upgrade (002 §Test
//     Plan: an operator that does not opt in keeps today's behaviour).
//   - The operatorcondition gate's messages are OLM's, as it writes them
//     on the CSV: "operator is not upgradeable: " and the error of its
//     check.
//   - The copier keeps status conditions gone from the spec, as OLM does,
//     and stamps a spec condition without a lastTransitionTime with the
//     clock's time.
//
// Flaws (AggregatorFlaw, GateFlaw) are the single deviations of the broken
// subjects; AggregatorFlaws and GateFlaws list them with a description.
package olm
