// Package rules holds the STACKABLE rules: seed 004 (Stackable's ADR027,
// a product cluster's status conditions derived from the workloads it
// owns) as pure functions over a recorded timeline. Each rule cites the
// ADR's section, the table's rows by name; the table itself, its texts
// and the shared design's reasons are written here (seed.go, table.go),
// never imported from reference/ (DESIGN "The judge does not borrow from
// the judged"; a test fails if this package depends on reference/).
//
// # Rules
//
//	rule           section                                                        statement
//	STACKABLE-001  004 §Implementation details, Available rows; DESIGN 004         Available follows the table over the cluster's workloads; False "No Pods running." once stopped
//	STACKABLE-002  004 §Implementation details, Progressing rows; DESIGN 004       Progressing follows the table (a Failed pod stops progress)
//	STACKABLE-003  004 §Implementation details, Degraded rows; DESIGN 004          Degraded follows the table
//	STACKABLE-004  004 §Implementation details, Paused and Stopped rows            Paused and Stopped follow the operator-command annotation
//	STACKABLE-005  004 §Implementation details, Paused True                        while paused, the operator writes none of the cluster's workloads
//	STACKABLE-006  004 §Implementation details, Stopped True; DESIGN 004           once stopped, every workload has no replicas, and keeps none
//	STACKABLE-007  004 §Context and Problem Statement; §Set Status Conditions Only  every condition the operator writes is valid (status, reason, both times)
//	STACKABLE-008  004 §Implementation details, Precondition                       while the cluster's reconcile fails, the operator writes none of its status
//
// Every rule has Role "operator" (RoleOperator).
//
// # Timeline contract
//
//   - SampleClusters: Object{Kind: "SampleCluster", Group:
//     "samples.opcert.io"}, Fields "metadata.annotations" (a map; the
//     operator-command annotation), "spec" (clusterOperation
//     {reconciliationPaused, stopped} and broken are read) and, for
//     lastProbeTime, "status.conditions" (the full list); conditions
//     from the condition diffs.
//   - Workloads: StatefulSets, Deployments and DaemonSets of group
//     "apps", Fields "spec.replicas", "spec.template.metadata.labels"
//     (the pods' selector, and the app.kubernetes.io/instance label
//     naming the cluster) and "status" (availableReplicas;
//     desiredNumberScheduled, numberAvailable, numberReady).
//   - Pods (core group): Fields "metadata.labels" and "status.phase".
//   - A workload or pod belongs to the SampleCluster of its namespace its
//     app.kubernetes.io/instance label names: the label equal to the
//     cluster's name, or else ending with "-" and the name (the run
//     prefix, which a subject reading the API server's names puts there;
//     the longest name wins). metadata.ownerReferences cannot be recorded
//     (the simulator refuses a path over the server's uids), so the
//     labels are what ties them. A workload's pods are its namespace's
//     pods whose labels hold all of its template's labels.
//   - Actors: one actor "operator" (role "operator") reconciles every
//     SampleCluster; Process events (Kind Process, Name "operator") say
//     when it is down. Writes by other roles (workload, scenario) are
//     what it reads.
//
// # Readings
//
//   - The table per workload (table.go, DESIGN 004): replicas is
//     spec.replicas (a DaemonSet: status.desiredNumberScheduled),
//     availableReplicas status.availableReplicas (a DaemonSet:
//     status.numberAvailable). Where the rows overlap, a Failed pod makes
//     Progressing False; where they leave a case open, fewer available
//     with no pod Unknown or Failed is progress (Degraded False), and
//     more available than wanted (a scale-down in flight) is not
//     degraded. Merged over the workloads: Available False over Unknown
//     over True, Progressing and Degraded True if any is; a merged
//     message names the offending pods of every workload of its reason,
//     sorted, "[a,b]", and the phases among them, Unknown before Failed.
//   - A cluster's workloads are one per role of its spec: the labelled
//     workload of the role's kind named <cluster>-<role> (or whose
//     template's component label is the role), or, while it does not
//     exist (not yet created, or a role added while paused), one with
//     none of the role's replicas available; a workload no role asks for
//     is not counted. A cluster with no role (or no spec recorded) reads
//     the workloads labelled with its name; with none, 001 to 003 do not
//     judge it.
//   - Reasons (the ADR has none) and messages (its "Example Message"
//     column, verbatim) are the shared design's and are judged in the
//     seed profile; once stopped, Progressing and Degraded are judged on
//     their status alone.
//   - Within one reconcile: between two changes of what the operator
//     reads of a cluster (its annotations and spec, its workloads, their
//     pods; someone else's write of its status too), what it owes is
//     fixed. Each interval longer than Config.Tolerance is judged at its
//     start plus the tolerance (with none, once every event of its first
//     instant has happened), then at every later write of the output
//     before the next change. The operator down owes nothing until it
//     starts again plus the tolerance; a change whose deadline falls
//     after the next change or the run's end is not judged.
//   - While spec.broken is set the reconcile fails (004 §Implementation
//     details, "Precondition - Reconcile without errors"): 001 to 004 and
//     006 owe nothing, and 008 fails any status write.
//   - 005 and 008 judge spans: an offending write once the span began
//     (after the event that began it; in real time, once it is older
//     than the tolerance) fails.
//   - A stopped DaemonSet, which cannot scale, is deleted or schedules
//     no pod (status.desiredNumberScheduled 0, what operator-rs's
//     unreachable node selector does, cluster_resources.rs).
//   - lastProbeTime (007) is judged where a write records
//     status.conditions: set, not before lastTransitionTime, not after
//     the write (plus the tolerance).
//   - Not judged, never failed: the operator down, a deadline after the
//     run or after the next change, a cluster whose reconcile fails. Each
//     failure carries the window it judged, so a recording gap excuses
//     only what falls in it.
//
// # Profile operator-rs
//
// What stackabletech/operator-rs shipped (UPSTREAM), read in
// crates/stackable-operator/src/status/condition/ and
// cluster_resources.rs: statefulset.rs and deployment.rs make Available
// True iff spec.replicas == status.availableReplicas and replicas != 0,
// daemonset.rs iff status.numberReady > 0, and no builder looks at pod
// phases or builds Progressing or Degraded (002 and 003 are not judged);
// mod.rs merges the builders' conditions keeping the highest status in
// the order True < False < Unknown, sets no reason and no lastProbeTime,
// and a lastTransitionTime only when a condition's status changes;
// operations.rs makes ReconciliationPaused and Stopped of
// spec.clusterOperation, Stopped Unknown when both are set, and the pause
// wins there too (cluster_resources.rs: a paused cluster's resources are
// only read). Statuses alone are judged there; operator-rs's messages are
// not the ADR's.
package rules
