// Package component is the reference component operator of seed 001 (the
// ClusterOperator contract): the well-behaved operator that rolls its
// operands (a Deployment, a DaemonSet) from one version to the next and
// reports its ClusterOperator so as to keep every guarantee components
// honour (001 §What should an operator report, honored by components 1 to
// 5), with atomic status writes (001 §Status), the versions of 001
// §Version and §Version reporting during an upgrade, and the condition
// conventions of 001 §Conditions.
//
// The core is pure: Params.Step takes what the operator observes (its
// ClusterOperator's status as it stands, its operands and their pods, the
// configuration to run, the error of its last apply, the blockers an
// administrator must fix) and now, and returns the operand specs to write,
// the status to write (the whole status, in one update; none when nothing
// changed) and the next instant to look if nothing changes. The operator
// keeps no memory but its status (the versions it reached, whether it was
// Progressing), the operands' specs and the pods' times, so an operator
// restarted mid-rollout carries on where it stopped. An adapter (a
// simulator's actor) does the reads and writes; a workload controller
// moves the pods.
//
// Decision table (each row is a table test; T = target level: Version,
// or OperandVersions[name], with Input.Config; "complete" = the spec asks
// for T, no pod runs another level, and every replica, or NodePercent of
// a DaemonSet's nodes, is ready at T):
//
//	001 §... honored 1       no versions[operator] yet: Available False Installing
//	                         "Component <name> has not yet deployed <T>" until every
//	                         operand is complete; after that, True "Component <name>
//	                         has deployed <versions[operator]>" while every operand
//	                         has a ready pod, else False OperandUnavailable
//	                         "<Kind> <name> has no ready pods"
//	001 §Version reporting   versions (operator, then one entry per operand) stay as
//	during an upgrade        they are until every operand is complete; then all move
//	                         to T in the same write. On install none is reported
//	                         before that: a version is never reported before reached
//	001 §... honored 3       Progressing True RollingOut "Working towards <T>: <n> of
//	                         <m> pods updated" (updated: ready at T) while a spec or a
//	                         pod is not at T, the versions are not reached, or a
//	                         rollout begun (Progressing True in the status) is not
//	                         complete; False "Component <name> is at version <v>"
//	                         otherwise: a pod of a level reached turning unready is
//	                         reconciling a known state, not progress
//	001 §Version reporting   at completion (Progressing True -> False, or the
//	during an upgrade        versions moving while it stays False) Progressing's
//	                         lastTransitionTime is now
//	001 §... honored 2,      an ApplyError, at once: Degraded True ApplyFailed
//	001 §Conditions          "Unable to apply <T>: <detail>.", Progressing True
//	                         ApplyFailed "Unable to apply <T>: <summary>", a retry
//	                         after RetryAfter (1m)
//	001 §... honored 2       an operand whose spec asks for T, not complete, with no
//	                         progress (its spec's write or a change of a pod at T)
//	                         for StuckAfter (10m) while rolling out: Degraded True
//	                         OperandStuck naming the operand, its pods or nodes not
//	                         ready at T and why (at most 4, "and n more"), Progressing
//	                         True OperandStuck "Unable to apply <T>: <kind> <name> is
//	                         not progressing"; the deadline is the next look
//	001 §Conditions          Degraded False AsExpected with no message otherwise;
//	                         Params.Degraded names it Failing instead (decision 001, conformance/clusteroperator/README.md),
//	                         and the other name is removed from the status
//	001 §... honored 4       a Blocker: Upgradeable False with its reason
//	                         (AdminActionRequired if not CamelCase; MultipleBlockers
//	                         for several) and what to fix, capitalised; True
//	                         AsExpected with no message otherwise
//	001 §Conditions          lastTransitionTime moves only with a status (and at
//	                         completion, above), to whole seconds as the API server
//	                         keeps it; messages start with a capital letter;
//	                         reasons are CamelCase; another writer's change to these
//	                         four conditions (a stale challenge, an Unknown mark) is
//	                         written back; other condition types are kept as found
//	001 §Status              one write a look, holding conditions and versions
//
// Choices the seed leaves open: the new versions are reported when the
// rollout is complete (no old pod, every replica ready at the new
// version), not at the first instant no old pod runs, so versions and
// Progressing's end come in one write (honored by components 5: "rolled
// out"); all versions move together; Upgradeable is written True rather
// than left out, so that all four conditions of 001 §Conditions are always
// present; an operand serves while it has one ready pod, of any version;
// an ApplyError is Degraded at once (the adapter passes only an apply that
// failed: an operand write the API server refused, looked at again with
// it; a conflict is retried at once, as a race, not reported), a stall only after StuckAfter, since a rollout paced by its
// workload controller takes its time; the stuck message names the
// threshold, not the time elapsed, so it is written once.
//
// Flaws (Params.Flaws; Flaws lists them, flaw.go says what each breaks)
// are the deliberate deviations of the broken subjects, many of them one
// second or one step off at a phase change (StampEarly1s, StampRolloutStart),
// or late beyond the rules' reaction bound (VersionAtResync,
// DegradedLate1m, ProgressingLate40s); flaw_test.go shows each one differs
// from the reference in its own fields only. ProgressingAtRest needs the one input the reference ignores,
// Input.FirstLook: the core keeps no memory of its process, so the adapter
// says which look is a new process's first.
package component
