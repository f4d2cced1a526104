// Package stackable is the reference of seed 004 (Stackable's ADR027,
// resource status): the operator of a product cluster, the SampleCluster
// (fixtures/sampleclusters.crd.yaml), that owns one workload per role and
// publishes the ADR's status conditions, as a pure core and a thin
// controller-runtime adapter.
//
// The core reads nothing and takes time as an argument:
//   - Over is 004 §Implementation details' table over a cluster, row by row
//     (Available, Progressing, Degraded): its workloads' replicas against what
//     its spec asks, "any_pod" over all of their pods (decision 004,
//     conformance/stackable/README.md); Evaluate is a cluster of one workload.
//     The messages are the table's Example Message column, with the offending
//     pods' names and phases in place of "[Pod1,Pod2]" and "[Unknown,Failed]".
//   - Table adds Paused and Stopped from the operator-command annotation
//     and lets Stopped override the rest (Available False, "No Pods
//     running."); Status stamps the conditions with the write's time as
//     lastProbeTime, moves lastTransitionTime only with the status, and
//     says whether anything changed, so that nothing is written otherwise.
//   - Desired is the workloads the operator writes: <cluster>-<role>,
//     labelled app.kubernetes.io/instance and component, controlled by the
//     cluster, with the role's replicas (0 when stopped); its error is a
//     spec the operator cannot render (spec.broken), the precondition
//     "Reconcile without errors".
//
// The adapter, Operator, reads a SampleCluster (as unstructured), its
// owned workloads and their pods, writes the workloads (nothing while
// Paused), and writes the status when Status says so; a failed reconcile
// writes nothing and returns its error, for the caller to retry with
// backoff.
//
// Choices where the seed is silent (decision 004,
// conformance/stackable/README.md; each has its table test):
//   - Where Progressing's rows overlap (replicas missing, a pod Failed,
//     others running) the Failed row wins: a failed pod stops progress.
//   - Fewer replicas available and no pod Unknown or Failed is progress,
//     not degradation; more available than wanted (a scale-down in
//     flight) is not degraded, and Available False, Progressing True by
//     the letter of the rows.
//   - The cluster's replicas: as many available as desired when every
//     workload has as many as its role in the spec asks (a DaemonSet: as
//     its controller wants), fewer when one has fewer. No workload at all
//     reads as all replicas there.
//   - Stopped scales StatefulSets and Deployments to 0 and deletes the
//     DaemonSets (a DaemonSet cannot scale; operator-rs's unreachable node
//     selector needs a scheduler that honours it); Progressing and
//     Degraded are False with reason Stopped while stopped.
//   - A role whose workload does not exist (while Paused, or just before
//     its creation) counts as a workload with none of its replicas.
//   - Reasons, which the ADR does not give, are CamelCase names of the
//     rows (ReplicasUnavailable, PodPhaseUnknown, PodFailed...).
//   - Conditions of other types the status holds are kept, after the
//     table's.
//
// ProfileOperatorRS plays what stackabletech/operator-rs shipped
// (operatorrs.go names the files): Available from replica counts only,
// ReconciliationPaused and Stopped from spec.clusterOperation, no
// Degraded or Progressing, no reasons, no lastProbeTime.
//
// Flaws are the single deviations of the broken subjects; Flaws lists
// them and Flaw.Description says what each breaks.
package stackable
