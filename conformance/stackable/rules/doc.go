// Package rules holds the STACKABLE rules: seed 004 (Stackable's ADR027, a
// product cluster's status conditions derived from the workloads it owns) as
// pure functions over a recorded timeline. Each rule cites the ADR's section,
// the table's rows by name; the table itself is written here (seed.go,
// table.go), never imported from reference/ (the judge does not borrow from
// the judged; a test fails if this package depends on reference/).
//
// # Rules
//
//	rule           class  section                                                  statement
//	STACKABLE-001  MUST   004 §Implementation details, Available rows; decision 004 Available follows the rows over the cluster; False accepted once stopped
//	STACKABLE-002  MUST   004 §Implementation details, Progressing rows             Progressing follows the rows (either where they overlap, any where none holds)
//	STACKABLE-003  MUST   004 §Implementation details, Degraded rows                Degraded follows the rows (any where none holds)
//	STACKABLE-004  MUST   004 §Implementation details, Paused and Stopped rows      Paused and Stopped follow the operator-command annotation
//	STACKABLE-005  MUST   004 §Implementation details, Paused True                  while paused, the operator writes none of the cluster's workloads
//	STACKABLE-006  MUST   004 §Implementation details, Stopped True; decision 004   once stopped, every workload has no replicas, and keeps none
//	STACKABLE-007  MUST   004 §Decision Drivers, transition history                 every condition is valid: status, lastTransitionTime, lastProbeTime when set
//	STACKABLE-009  SHOULD 004 §Implementation details, Example Message column       messages present, naming the offending pods (Style)
//	STACKABLE-010  SHOULD 004 §Set Status Conditions Only, examples                  lastProbeTime present, reasons CamelCase (Style)
//
// STACKABLE-008 (no status write while the reconcile fails) is retired: the
// ADR's precondition says when the table applies, and an operator may report
// its error itself (decision 004, conformance/stackable/README.md). The audit,
// clause by clause, is conformance/stackable/README.md. Every rule has Role
// "operator" (RoleOperator).
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
//     what it reads. No change is judged before the operator is seen: in
//     a run its first start (it is down until then), in a recording,
//     which has no process events, its first write. A recording in which
//     it never writes (its field manager put down to no role, say)
//     judges no change: their absence is no failure of it.
//   - A workload or pod written before any write of its cluster (a
//     recording that listed it first) joins the cluster, as it stands,
//     at the cluster's first write.
//
// # Readings
//
//   - The table over the cluster (table.go, decision 004,
//     conformance/stackable/README.md): per role, the replicas its spec asks
//     (a DaemonSet: status.desiredNumberScheduled; one not created: unknown,
//     both readings accepted) against those available
//     (status.availableReplicas; a DaemonSet: status.numberAvailable); "=="
//     when every role has them, "<" when one has fewer; "any_pod" over all
//     pods of the cluster's workloads. The rules accept a set of statuses:
//     both where rows overlap, any where none holds, and False beside the rows
//     once stopped.
//   - A cluster's workloads are one per role of its spec: the labelled
//     workload of the role's kind named <cluster>-<role> (or whose
//     template's component label is the role), or, while it does not
//     exist, none of the role's replicas available. A cluster with no role
//     (or no spec recorded) reads the workloads labelled with its name,
//     each asking its own spec.replicas; with none, 001 to 003 do not
//     judge it.
//   - Statuses only: the ADR names no reasons and gives its messages as
//     examples; 009 (Style) asks for messages naming the offending pods.
//   - The reaction bound (reconcile.go, Config.Reaction, 30s by default,
//     plus the tolerance of a real-time run): what the operator has
//     written at any instant t must match a state of the world that stood
//     in [t - bound, t], judged at each of its writes and at each change
//     plus the bound. With no bound, a change is owed once its instant is
//     quiet. The operator down owes nothing until it starts again plus the
//     bound; a change owed after the run's end is not judged. Each rule
//     measures the operator's reactions (Verdict.Measures).
//   - While spec.broken is set the reconcile fails (004 §Implementation
//     details, "Precondition - Reconcile without errors"): 001 to 004 and
//     006 owe nothing, and any status is accepted.
//   - 005 judges spans: an offending write once the span is older than
//     the bound fails.
//   - A stopped DaemonSet, which cannot scale, is deleted or schedules
//     no pod (status.desiredNumberScheduled 0, what operator-rs's
//     unreachable node selector does, cluster_resources.rs).
//   - lastProbeTime is optional (007 judges it where set: not before
//     lastTransitionTime, not after the write; 010 warns where absent).
//   - Not judged, never failed: the operator down or not seen yet, a
//     deadline after the run, a cluster whose reconcile fails. Each
//     failure carries the window it judged, so a recording gap excuses
//     only what falls in it.
//
// # Judged as the events pass
//
// The rules are one fold over the timeline in its order (stream.go):
// each cluster's story is replayed as its events come, each write of the
// operator judged at once against the worlds of the slack before it, each
// change once an event after its deadline came (or at the end). Batch
// judging (Check) folds the whole timeline, knowing its end; a stream
// (Online, judge.Stream: opcert analyze and watch) folds it as it
// is read, keeping per cluster only a window of its story (the events of
// the last slack, and those since the oldest change still owed, which an
// operator down draws out), its objects as they stand, and what the rules
// found (failures, not-judged notes, one duration per measured reaction).
// A stream learns its end only once read: with --until before its last
// event, a change owed between the two is judged on the events that came
// after the end, where a batch judging says it was owed after the end.
//
// # Profile operator-rs
//
// What stackabletech/operator-rs shipped (docs/upstream.md), read in
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
// only read). Statuses alone are judged there, as in the seed profile.
package rules
