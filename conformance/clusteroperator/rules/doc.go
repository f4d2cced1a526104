// Package rules holds the CO rules: seed 001 (the ClusterOperator contract
// between a component and the cluster-version operator) as pure functions
// over a recorded timeline. Each rule cites the seed's section; its
// condition names, statuses, patterns and bounds are written here
// (seed.go), never imported from reference/ (DESIGN "The judge does not
// borrow from the judged"; a test fails if this package or its tests
// depend on reference/).
//
// The contract rules (versions, Available, Progressing, what the
// cluster-version operator waits for) are CO-001 to CO-019; the validity
// of conditions and the conventions on their messages are CO-020 on.
//
// # Rules
//
//	rule    section                                                                    role      statement
//	CO-020  001 §Conditions, §Version reporting during an upgrade                      operator  every condition the operator writes is valid: status True, False or Unknown; a reason, if any, CamelCase; lastTransitionTime moved when, and only when, the status changes, except Progressing's, set to the write's time in the write that completes an upgrade
//	CO-021  001 §Conditions                                                            operator  (style) every condition message starts with a capital letter
//	CO-022  001 §Conditions                                                            operator  (style) a Progressing message is terse: at most 10 words
//	CO-023  001 §Conditions                                                            operator  (style) an Available message is a single sentence without punctuation at its end
//	CO-024  001 §Conditions, §What should an operator report, honored by components 2  operator  a True Failing or Degraded carries a detailed message, at least 4 words, for an engineer or support person to triage (the verdict says which of the two each ClusterOperator uses)
//	CO-025  001 §What should an operator report, honored by components 4               operator  Upgradeable=False carries a message that describes what must be fixed
//
// A (style) rule judges a convention of how a message reads
// (conformance.Rule.Style): its failures are warnings, which fail nothing,
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
//
// # Readings
//
// Where the seed is open, the rules read it so:
//
//   - A condition is judged on each write that adds or changes it, a
//     message on each write that sets it anew (a condition added, or its
//     message changed): what a write leaves alone was judged when set.
//   - lastTransitionTime (CO-020) is the last change of status (the godoc
//     001 §Conditions refers to; UPSTREAM: meta.SetStatusCondition): a
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
//   - A reason (CO-020) is judged when present: ClusterOperator conditions
//     may leave it out, and what Kubernetes asks of one that is there
//     (UPSTREAM "Kubernetes conditions in general") is CamelCase,
//     ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$, at most 1024 characters.
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
//   - "Detailed" (CO-024) is at least 4 words, judged on each write that
//     makes Failing or Degraded True or changes its message while True:
//     triage needs what failed and why (the seed's example names the
//     version, the manifest and the missing resource type), and fewer than
//     4 words cannot say both ("Degraded", "Deployment failed"). Failing
//     and Degraded are one condition under two names (DESIGN 001): both
//     are judged, and the verdict says which each ClusterOperator uses.
//   - What must be fixed (CO-025) is the admin's to read: an
//     Upgradeable=False whose message is empty or white space fails,
//     judged on each write that makes it False or changes its message
//     while False.
package rules
