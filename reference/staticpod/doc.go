// Package staticpod is the reference implementation of the static pod fallback
// (seed 003, as decision 003 of conformance/staticpod/README.md reads it):
// four roles, each a pure core from what it observes and now to the writes it
// wants and the next instant it needs to look again. No core reads a clock, a
// file or the API; the caller (an adapter) does the I/O, runs the file
// operations (contract.Op) in order, and passes back the memory a core
// returns. The views and decisions are the role contract's
// (conformance/staticpod/contract), which every subject speaks; this package
// holds only the reference's decisions, its parameters and its profiles.
//
// Roles and the sections they follow:
//
//	Monitor  startup-monitor  003 §Proposal, §Readiness, §Upgrade / Downgrade Strategy
//	Install  installer        003 §Coordination
//	Operate  operator         003 §Retries, §User Stories 2 to 4, decision 003
//	Prune    pruner           003 §Pruner
//
// Profiles: Seed is the seed as decision 003 reads it; LibraryGo is what
// openshift/library-go shipped (docs/upstream.md). They differ only in their
// parameters (readiness steps, back-off, reasons never retried, condition
// type and text, the pruner's view of last-known-good), and so will the
// broken variants: a timeout, a back-off, whether the lock or the
// last-known-good link is honoured.
//
// Choices the seed leaves open, decided here:
//
//   - The timeout runs from the first look at which the operand manifest
//     carries the monitor's revision (the monitor may start before the
//     installer has written it), the installer's lock held or not: the
//     operand starts with its manifest (003 §Readiness "does not start up
//     in N minutes"), and the lock only stops the monitor from acting. A
//     manifest of another revision in between resets it: the operand of
//     our revision starts again. A rewrite of the same manifest changes
//     nothing (the kubelet keeps the pod, the monitor its timer). A
//     restarted monitor cannot know how long the operand has run nor
//     whether it was ready meanwhile: it gives it a full timeout from its
//     first look and judges only what it sees from then on.
//   - Readiness is judged at every look; the operand becomes ready the
//     first time every step passes, before or after the timeout. At the
//     timeout the fallback reason is the first failing step in the seed's
//     order, so NeverStartedUp beats CrashLooping beats Unhealthy beats
//     NotReady or EtcdUnhealthy.
//   - More than one start-up attempt (step 2) is red only while a later
//     step is red: an operand that restarted once and then became ready
//     has started up.
//   - EtcdUnhealthy: /readyz is red and /healthz/etcd is not ok. Each
//     probe is observed on its own; a real kube-apiserver's /healthz also
//     covers etcd, and then step 3 (Unhealthy) comes first, as ordered.
//   - Getting the mirror pod (the seed's second step 4) names no reason:
//     a missing mirror pod is NotReady, as the two steps after it.
//   - While the installer holds the lock the monitor decides nothing (a
//     fallback due meanwhile waits for the unlock), and its timer goes
//     on. Its own writes (fallback, or link and removal)
//     take and release the lock.
//   - The fallback revision is the last-known-good one if the link points
//     at a revision still present other than the monitor's own, else the
//     newest present revision below the monitor's, else none (bootstrap):
//     then nothing is written and the monitor keeps watching, so the first
//     revision to become ready is linked as last-known-good.
//   - After a fallback the monitor removes its own manifest, as it does
//     when ready: the operand manifest is then another revision's, so it
//     would only wait; a retry installs a new monitor.
//   - The installer writes resources, then the monitor's manifest, then
//     the operand's, all under the lock.
//   - The operator knows a fallback by the mirror pod carrying the
//     annotations (its UID and the annotations); the fallback's time is
//     the operator's first look at it. Retries are counted per failed
//     revision: retry n+1 comes Backoff.Delay(n) after the fallback
//     before it (10m, 20m, 40m, ... 6h). A retry installs the failed
//     revision again, and only while it is still the target: a later
//     target is a new configuration, rolled out as usual, not a retry.
//   - The operator's memory (Fallback, per node) is the caller's to keep.
//     A caller that keeps it where a restart finds it (the harness keeps
//     it in the operator's status, as library-go keeps lastFailedRevision,
//     lastFailedTime, lastFailedReason and its counts in its node
//     statuses) makes a restart change nothing: the back-off, Degraded and
//     the termination message go on as if the operator had not stopped.
//   - The operator's Degraded clears when a mirror pod without the
//     annotations, at the failed revision or later, is ready. Its reason
//     is the fallback reason; False carries AsExpected.
//   - The pruner keeps the newest revisions plus the last-known-good one,
//     which does not take the place of a newer revision.
//
// library-go details not modelled: its timer starts with the monitor
// process, a manifest of another revision at the timeout ends the monitor
// with an error, it links last-known-good to the previous revision before
// falling back, and it checks /readyz three times.
package staticpod
