// Package rules holds the CO rules: seed 001 (the ClusterOperator contract
// between a component and the cluster-version operator) as pure functions over
// a recorded timeline. Each rule cites the seed's section; its condition
// names, statuses, patterns and bounds are written here (seed.go), never
// imported from reference/ (the judge does not borrow from the judged; a test
// fails if this package or its tests depend on reference/).
//
// The contract rules (versions, Available, Progressing, Failing or
// Degraded, Upgradeable, over a component's rollouts) are CO-001 to
// CO-019; the validity of conditions and the conventions on their
// messages are CO-020 on. What the seed requires fails; what it only
// recommends is a (style) rule; the audit, clause by clause, is
// conformance/clusteroperator/README.md. Rules that judge a reaction take
// Config.Reaction, the reaction bound (default DefaultReaction, 30s), and
// measure each reaction (Verdict.Measures).
//
// # Rules
//
//	rule    section                                                                                                          role      statement
//	CO-001  001 §What should an operator report, honored by components 1                                                     operator  a component does not report Available=True the first time until its installation is rolled out: every operand at its version and ready, a DaemonSet on more than half of its nodes
//	CO-002  001 §Version reporting during an upgrade, §What should an operator report, honored by components 5               operator  versions[name=operator] moves to B only once no pod of the component runs another version and every operand spec asks B, and at installation once it is rolled out
//	CO-003  001 §Version reporting during an upgrade, §What should an operator report, honored by components 5               operator  once a rollout to B is complete, versions[name=operator] reads B within the reaction bound and stays B while no new rollout begins
//	CO-004  001 §Version reporting during an upgrade, §Conditions, §What should an operator report, honored by components 3  operator  a rollout to B is reported Progressing=True with B in its message no later than 2s and the reaction bound after it began, and so until it is over
//	CO-005  001 §What should an operator report, honored by components 3                                                     operator  (style) Progressing does not turn True while the component reconciles a known state
//	CO-006  001 §Status                                                                                                      operator  (style) the status is atomic: the write that brings Progressing to rest after a rollout to B carries versions[name=operator]=B
//	CO-007  001 §Version reporting during an upgrade                                                                         operator  a write that moves versions[name=operator] with Progressing not True sets Progressing's lastTransitionTime to its own time
//	CO-008  001 §Conditions, §What should an operator report, honored by components 2                                        operator  a rollout that makes no progress for 10m has Failing or Degraded True from then (and the reaction bound) until it progresses or completes
//	CO-009  001 §What should an operator report, honored by components 4                                                     operator  while the administrator's ConfigMap X-admin holds an upgradeBlocker, Upgradeable is False; once cleared, not False (each within the reaction bound)
//	CO-010  001 §Conditions                                                                                                  operator  once installed, a component whose operands serve at full strength reports Available=True within the reaction bound, for as long as they do
//	CO-020  001 §Conditions, §Version reporting during an upgrade                                                            operator  every condition the operator writes is valid: status True, False or Unknown; lastTransitionTime moved when, and only when, the status changes, except Progressing's at an upgrade's completion
//	CO-021  001 §Conditions                                                                                                  operator  (style) every condition message starts with a capital letter
//	CO-022  001 §Conditions                                                                                                  operator  (style) a Progressing message is terse: at most 10 words
//	CO-023  001 §Conditions                                                                                                  operator  (style) an Available message is a single sentence without punctuation at its end
//	CO-024  001 §Conditions, §What should an operator report, honored by components 2                                        operator  (style) a True Failing or Degraded carries a detailed message, at least 4 words (the verdict says which of the two each ClusterOperator uses)
//	CO-025  001 §What should an operator report, honored by components 4                                                     operator  (style) Upgradeable=False carries a message that describes what must be fixed
//	CO-026  001 §Conditions                                                                                                  operator  (style) a condition's reason, if any, is CamelCase
//
// A (style) rule judges a convention of how a message reads
// (judge.Rule.Style): its failures are warnings, which fail nothing,
// unless the run is strict (opcert's --strict). A rule with nothing to
// judge says "skip" and why. Each failure names the write that shows it,
// so that one in a recording gap is not held against the operator.
//
// # Timeline contract
//
//   - The operator's writes: verb create, update or update-status, role
//     "operator", Object{Kind: "ClusterOperator", Group:
//     "config.openshift.io", Name: <its name>}, Conditions the conditions
//     the write added, changed or removed (before and after: type,
//     status, reason, message, lastTransitionTime). Writes of other roles
//     (a detector's, the scenario's) are not judged here.
//   - The Field "status.versions", when recorded: the list of {name,
//     version} as JSON (001 §Version). Without it, CO-020 tells an
//     upgrade's completion by Progressing's message alone.
//   - The run's end is Judging.End.
//   - Events come in the order of time. The rules read them one at a
//     time, as they pass (online.go), and keep what each component is,
//     not what it did: a recording of any length is judged in memory
//     that does not grow with it.
//
// The contract rules read the seed-001 world around a ClusterOperator X,
// its component:
//
//   - X's operands: Deployments and DaemonSets (group apps) in namespace
//     X whose spec the operator writes (role "operator"), the field
//     "spec.template.metadata.labels" carrying opcert.io/version, the
//     version it asks the operand to run; "spec.replicas" (a
//     Deployment's pods, 1 when not recorded) and "status" (a DaemonSet's
//     desiredNumberScheduled) from any writer. The operator's own
//     Deployment, applied by the version operator, is no operand. A
//     write of an operand by the operator, failed ones included, is an
//     attempt to apply (CO-005).
//   - X's pods: Pods in namespace X, their version and operand from the
//     labels opcert.io/version and opcert.io/workload ("metadata.labels"),
//     their node ("spec.nodeName"), Ready from the condition diff, gone
//     at their delete event.
//   - The administrator's blocker: ConfigMap "X-admin" in namespace X,
//     "data" key upgradeBlocker; absent or empty is none.
//   - The operator's process: events of kind Process named "operator/X"
//     (start, kill, hang, reconnect); down from a kill or hang to the next
//     start or reconnect, and before its first start.
//
// A rollout to B begins with the operator's first operand spec write
// asking B (while no rollout to B is under way) and is complete at the
// first event after which every operand asks B, no pod runs another
// version, every pod is ready and each operand has its pods ready at B (a
// Deployment its replicas, a DaemonSet one on each node: its status's
// desiredNumberScheduled, or the nodes its pods ran on); a rollout to
// another version beginning before that stops it. X's first rollout is its
// installation.
//
// # Readings
//
// Where the seed is open, the rules read it so:
//
//   - A condition is judged on each write that adds or changes it, a
//     message on each write that sets it anew (a condition added, or its
//     message changed): what a write leaves alone was judged when set.
//   - lastTransitionTime (CO-020) is the last change of status (the godoc
//     001 §Conditions refers to; docs/upstream.md: meta.SetStatusCondition): a
//     write that changes the status moves it, one that keeps the status
//     leaves it. A condition added may carry any time. The exception is
//     001 §Version reporting during an upgrade: an operator that "never
//     set Progressing=true or sets Progressing=false at upgrade complete
//     ... MUST set lastTransitionTime on Progressing to the current time",
//     so Progressing's may move with its status unchanged, to the write's
//     own time (within the second the API server keeps, and Tolerance), in
//     a write that completes an upgrade: one that changes the version
//     named operator in status.versions, or Progressing's message. The
//     completion and the stamp are one write: the status is atomic (001
//     §Status). Whether the stamp is made when it is owed is a contract
//     rule's question, not CO-020's.
//   - A reason (CO-026, Style) is judged when set anew: ClusterOperator
//     conditions may leave it out, their schema does not check it, and
//     the godoc calls it "the CamelCase reason"; the pattern is what
//     Kubernetes asks of metav1.Condition's (docs/upstream.md, "Kubernetes
//     conditions in general"), ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$,
//     at most 1024 characters. Reasons the seed does not name are not
//     judged otherwise.
//   - A capital letter (CO-021) is asked of the first character after
//     leading space: a lower-case letter fails; a digit, a sign or a letter
//     without case passes ("3 of 5 nodes are updated" starts a sentence).
//     Every condition type is judged: "All messages should start with a
//     capital letter".
//   - Words (CO-022, CO-024) are what white space separates: "Unable to
//     apply 4.0.1: a required object is missing" is 9. Of the seed's "5-10
//     words (the more succinct the better)" only the upper bound is judged:
//     the seed's own Progressing messages, "Working towards 4.0.1" (3
//     words) and "Cluster version is 4.0.1" (4), and "Moving to v1.0.1" of
//     honored by components 3, are shorter than 5, and a rule that warned
//     on them would hold the seed against itself.
//   - "A single sentence without punctuation" (CO-023) cannot forbid every
//     mark: the seed's "Cluster has deployed 4.0.0" holds the dots of a
//     version. What is judged is a sentence's end: '.', '!' or '?' at the
//     message's end, or inside it followed by space and a word that does
//     not go on in lower case ("Deployed 4.0.0. Nodes updated"; "e.g. a"
//     passes).
//   - "Detailed" (CO-024, Style) is at least 4 words, judged on each write
//     that makes Failing or Degraded True or changes its message while True:
//     triage needs what failed and why (the seed's example names the version,
//     the manifest and the missing resource type), and fewer than 4 words
//     cannot say both ("Degraded", "Deployment failed"). Failing and Degraded
//     are one condition under two names (decision 001,
//     conformance/clusteroperator/README.md): both are judged, and the verdict
//     says which each ClusterOperator uses.
//   - What must be fixed (CO-025) is the admin's to read: an
//     Upgradeable=False whose message is empty or white space warns,
//     judged on each write that makes it False or changes its message
//     while False.
//   - The operands run the component's version: what the operator
//     writes in opcert.io/version is what versions[name=operator] names
//     once rolled out (the shared contract). A component whose operands
//     run versions of their own (001 §Version: "additional versions of
//     its underlying operands") is outside what CO-002 to CO-004 and
//     CO-006 can judge.
//   - CO-002 asks, for an upgrade, what 001 §Version reporting during an
//     upgrade asks: no old pod and every spec at B ("not and will not run
//     any old versions"), not readiness; for an installation, the first
//     rollout rolled out (honored by components 5, "rolled out", with
//     honored 1's percentage for a DaemonSet). Pods gone
//     within Tolerance after the write are gone at it.
//   - The reaction bound (Config.Reaction, 30s by default; config.go
//     says why) is the slack of every reaction: the version after a
//     completion (CO-003), Progressing after a rollout begins (CO-004,
//     after the seed's 2s), Failing or Degraded after a stall's 10m
//     (CO-008), Upgradeable after a blocker changes (CO-009), Available
//     after the operands serve again (CO-010), and either way around a
//     rollout for CO-005. A reaction within it passes; later fails. The
//     deadline is then judged on the state standing at it, and every
//     later write until what was owed stops being owed.
//   - "More than a second or two" (CO-004) is 2s: a rollout over within 2s and
//     the bound owes nothing; a longer one owes, at some instant from its
//     beginning (minus Tolerance, so a status written just before the spec at
//     the same instant counts) to 2s and the bound (+Tolerance) after it, a
//     status with Progressing True whose message names B as a word ("4.0.1" is
//     not in "4.0.10"; "v1.0.1" names 1.0.1), and every write after that one,
//     until the rollout is over, keeps it so (decision 001,
//     conformance/clusteroperator/README.md: for the whole move).
//   - "Functional and available" (CO-010) is judged where no faithful
//     reading can call it an outage: every operand at full strength,
//     whatever its pods' versions (a Deployment's replicas ready, a
//     DaemonSet's pod ready on each node). Less than that an operator may
//     call an outage or not (a quorum). Judging begins once the component
//     is installed (its first rollout complete, or its first Available
//     True): before, CO-001 holds Available back.
//   - "Within some reasonable percentage if the component must be
//     installed to all nodes" (CO-001, and CO-002 at installation) is
//     read as more than half of a DaemonSet's nodes (seed.go,
//     minNodeShare): an operator that waits for more, or for all, passes.
//   - A known state (CO-005, Style: "should not") is one with no rollout
//     under way (within the bound) and no operand spec written or tried
//     (up to the bound after the turn) since Progressing
//     last turned from True (since the run began if it never did). A
//     write that changes nothing the timeline
//     records counts as written: a configuration lives in what it does
//     not record, and is "propagating config changes". A pod of a version
//     reached turning unready, or an operator restarted at the same
//     version, is no change of state. A component with no operand on the
//     timeline (a recording of a cluster) is not judged: no rollout can
//     be told from it.
//   - The write that completes a rollout (CO-006, Style: "should ensure")
//     is the operator's first,
//     from the completion's instant (minus Tolerance) until the next
//     rollout begins, that brings Progressing to rest: not True after it,
//     and True before, added, or its lastTransitionTime stamped anew. It
//     must carry versions[name=operator]=B; a status split in two (the
//     conditions of "done", then the versions) fails. Any write that
//     brings Progressing to rest naming a rollout's version in its
//     message without naming the version versions reports fails too.
//   - CO-007 judges every write that moves versions[name=operator],
//     installation included: "the last change to the operator" is as
//     much an installation's, and the reference stamps both.
//   - Progress (CO-008) is a spec write of the rollout, a pod at B created
//     or changing readiness (turning unready too: a rollout whose pods
//     still change is moving, as the operator sees it), or a pod of
//     another version gone. A stall owes Failing or Degraded True from
//     Stuck (10m) after the last progress (+the bound, +Tolerance) until the next
//     progress or the rollout's end. The seed gives no figure: 10m
//     (seed.go, stuckRollout).
//   - What Upgradeable's message says (CO-025, Style) is the operator's
//     wording of what must be fixed: only an empty one is warned. CO-009
//     judges the status. Once cleared, Upgradeable is judged not False
//     only until the next blocker; no blocker ever, nothing is judged.
//   - Not judged, never failed: a deadline after the run's end or after
//     a new rollout began, a deadline the operator was down before (from
//     the instant it owed a reaction to the deadline), a ClusterOperator
//     created before the timeline (CO-001), a component with no operand
//     on the timeline (CO-001, CO-002). Each failure carries the window
//     it judged, so a recording gap excuses only what falls in it.
package rules
