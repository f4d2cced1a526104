// Package cvo is the reference cluster-version operator of seed 001, as a
// pure core: it sweeps a release payload in order, applies its manifests,
// waits at each ClusterOperator manifest for the live ClusterOperator, and
// writes the ClusterVersion's status.
//
// Step is a function of (Params, State, Cluster, now) to the manifests to
// apply, the next State, the ClusterVersion status to write (nil when
// unchanged) and the next instant it must look again even if nothing
// changes. Upgrade accepts or refuses a new release; Refused records a
// manifest the cluster would not take; Swept orders a payload directory's
// file names. An adapter does the reads and writes; nothing here reads a
// clock.
//
// The sweep (001 §How ClusterVersionOperator handles ClusterOperator in
// release image, with docs/upstream.md, seed 001 for the order of checks and
// the message forms). Every manifest but a ClusterOperator is applied and the
// sweep goes on; a ClusterOperator manifest is never created: the sweep waits
// at it until the live object passes these checks, in this order, and the
// first that fails is the wait. Each row is a case in check_test.go; the last
// columns say when the wait turns Failing=True (its Fail).
//
//	wait                                  message (X: its name)                                 install         upgrade
//	manifest without status.versions      Cluster operator X does not declare expected versions at once         at once (Stuck)
//	versions unmatched, operator later    Cluster operator X precedes its operator              at once         at once (Stuck)
//	versions unmatched, operator nowhere  Cluster operator X has no operator                    at once         at once (Stuck)
//	no live ClusterOperator               Cluster operator X is not available                   InstallTimeout  FailAfter (AfterLimit)
//	Available not True                    Cluster operator X is not available                   InstallTimeout  at once (Outage)
//	Degraded (or Failing) not False       Cluster operator X is degraded                        InstallTimeout  FailAfter (AfterLimit)
//	a name/version pair unmatched         Cluster operator X is updating versions               InstallTimeout  never (Hang)
//
// "Versions unmatched" means any name/version pair of the manifest's
// status.versions, not only "operator". Failing stands for a missing Degraded
// (decision 001, conformance/clusteroperator/README.md), and neither at all
// counts as degraded. "Operator later" is the trap of 001's NOTE:
// Task.Operator comes after the ClusterOperator manifest, so the strict sweep
// never applies it; "operator nowhere" is an operator Deployment in neither
// the payload nor the cluster. Neither can end by itself, so both fail at once
// with a detail naming the manifests and what to change, rather than wait
// silently. A manifest the cluster refuses (Refused) fails at once and is
// applied again after RetryAfter.
//
// The ClusterVersion's conditions take the forms of 001 §Conditions'
// examples; each state is a case in step_test.go (4.0.0 deployed, 4.0.1
// desired):
//
//	done            Available   True  "Cluster has deployed 4.0.1"
//	                Failing     False, no message
//	                Progressing False "Cluster version is 4.0.1"
//	waiting         Available   True  "Cluster has deployed 4.0.0"
//	                Failing     False, no message
//	                Progressing True  "Working towards 4.0.1: <wait message>"
//	wait failed     Failing     True  "<wait message>: <detail>." and, past a timeout, which one
//	                Progressing True  "Unable to apply 4.0.1: <wait message>"
//	refused         Failing     True  "Unable to apply 4.0.1: could not update <file> because <answer>."
//	                Progressing True  "Unable to apply 4.0.1: a required object is missing" (a missing
//	                                  resource type), else "Unable to apply 4.0.1: could not update <file>"
//	installing      Available   False "Cluster has not deployed a version yet"
//
// Reasons are the wait's or the refusal's (Reason* constants); a condition's
// lastTransitionTime moves only when its status does.
//
// Upgradeable is True with no message, or False with "Cluster operator X
// should not be upgraded: <its message>" (several: "Multiple cluster
// operators should not be upgraded:" and one line each), and Upgrade
// refuses while it is False (001 §What should an operator report,
// guarantees to components 3). The history has one entry per desired
// version, newest first: Partial from the sweep's start, Completed at its
// end; an entry left behind by a new desired version stays Partial and is
// closed.
//
// Choices where the seed is silent or the upstream differs:
//   - Strict order, one task at a time. The upstream runs the components of
//     one run level (0000_<runlevel>_...) in parallel; the seed says the
//     sweep is alphabetical and that a ClusterOperator sorted before its
//     operator blocks it, so this reference sweeps strictly in order, which
//     is also what makes "happens before" (guarantees to components 4) hold
//     for any two manifests.
//   - An installation waits for the expected versions too (the seed's
//     "waits until ... matches"); the upstream lets an installation pass
//     unmatched versions.
//   - InstallTimeout (40 minutes) counts from the installation's start, the
//     oldest history entry; FailAfter (40 minutes, the upstream's threshold
//     on a degraded operator) counts from when the sweep began waiting on
//     that ClusterOperator. An absent ClusterOperator in an upgrade (a new
//     component) gets FailAfter too, where the upstream fails at once, so a
//     new component's first minutes are not reported as a failure.
//   - Degraded missing counts as degraded (the upstream's reading); Failing is
//     read when Degraded is absent (decision 001,
//     conformance/clusteroperator/README.md), and the detail quotes the type
//     it read.
//   - A sentence after "Working towards 4.0.1:" or "Unable to apply 4.0.1:"
//     keeps its capital, so the upstream's forms appear verbatim (the one
//     for a manifest without versions then runs to 12 words, over
//     §Conditions' 5 to 10); the seed's own lower-case summary is used for a
//     missing resource type.
//   - Upgradeable=False refuses every upgrade; the upstream refuses only
//     minor and major ones. A blocker without a message is quoted as "it
//     gives no message".
//   - Once the sweep has completed, Step applies nothing until a new
//     desired version: the upstream's periodic reconciliation and its
//     "slow operator" notice after 30 minutes are not modelled, and no
//     RetrievedUpdates condition is written (there is no update service).
//   - Done, WaitingSince and Failure live in memory: a restarted operator
//     sweeps again from the first task, as the upstream does.
package cvo
