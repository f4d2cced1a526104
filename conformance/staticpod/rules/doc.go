// Package rules holds the STATICPOD rules: seed 003 (fallback on failing
// revisions of static pods) as pure functions over a recorded timeline.
// Each rule cites the seed's section; its texts, reasons, annotation keys
// and thresholds are written here (seed.go, config.go), never imported
// from reference/ (the judge does not borrow from the judged; a
// test fails if this package or its tests depend on reference/).
//
// # Rules
//
//	rule           section                                             role             statement
//	STATICPOD-001  003 §Readiness                                      startup-monitor  a revision whose operand is not ready is fallen back from Timeout (5m) after its manifest was written (writing it again unchanged starts nothing): not earlier, not later than the reaction bound after that, and not once ready while its startup-monitor ran
//	STATICPOD-002  003 §Readiness                                      startup-monitor  a fallback's reason is the first failing readiness check in the seed's order on the operand's observed state (start attempts, /healthz, /readyz, mirror pod)
//	STATICPOD-003  003 §Proposal step 1                                startup-monitor  the fallback manifest, and then the mirror pod, carry fallback-for-revision (the failed revision), fallback-reason (a known reason) and a fallback-message
//	STATICPOD-004  003 §Proposal step 2                                startup-monitor  last-known-good is linked only to a revision whose operand was ready (mirror pod Ready=True at that revision) since its manifest was written
//	STATICPOD-005  003 §Proposal step 1, §Design Details               startup-monitor  a fallback goes to last-known-good if linked, else to the previous revision, else nowhere (bootstrap); going back two or more revisions is a warning
//	STATICPOD-006  003 §Retries                                        operator         a revision fallen back from with reason CrashLooping or NeverStartedUp is never asked of the installer again by the operator
//	STATICPOD-007  003 §Retries                                        operator         a failed revision still the target is asked of the installer again, never sooner than FirstRetry (10m) after its fallback, each wait no shorter than the one before, and never more than MaxBackoff (6h) plus the reaction bound after the mirror pod showed the fallback; a restarted operator keeps its back-off
//	STATICPOD-008  003 §Retries, §User Stories 2 and 3                 operator         the operator reports Degraded=True with the fallback message within the reaction bound of the mirror pod showing a fallback, and keeps it True until a later revision is ready
//	STATICPOD-009  003 §Pruner                                         pruner           nothing removes the last-known-good link or the revision it points to
//	STATICPOD-010  003 §Coordination of Installer and Startup-Monitor  installer        while one actor holds the installer lock, no other takes it or writes, renames or removes anything in /etc/kubernetes/manifests
//	STATICPOD-011  003 §User Stories 3                                 operator         (Style) while Degraded=True for a fallback from a revision whose operand wrote a termination message (its last termination.log line before the fallback), the condition's message carries that termination message, from the reaction bound after the operator could see it on the mirror pod (after a restart too)
//	STATICPOD-012  003 §Proposal step 2                                startup-monitor  once the operand of a revision is ready (mirror pod Ready=True at that revision since its manifest was written), its startup-monitor links last-known-good to that revision and then removes its own manifest, within the reaction bound of the first instant it can see it ready (running, the installer lock free); a monitor that was down owes it once back, none is owed once a later manifest is written
//	STATICPOD-013  003 §Readiness                                      startup-monitor  (Style) a fallback for a red /readyz names the unfinished post-start hooks in its message ("should contain")
//	STATICPOD-014  003 §User Stories 4, §Retries                       installer        every ask of the operator (a rollout or a retry) is carried out: the installer writes the asked revision's operand manifest within the reaction bound of the ask, or of the release of a lock another actor held, unless a later ask replaced it
//	STATICPOD-015  003 §Retries                                        operator         (Style) once a fallback is over (a later revision is ready) and no other is outstanding, the operator sets Degraded=False within the reaction bound
//
// A rule with nothing to judge says "skip" and why; a deadline after the
// run's end, or one owed by a process that was down (killed, hung, or not
// yet started), is not judged, never failed. Config.Tolerance is the slack
// on deadlines (zero in virtual time); Config.Reaction, the reaction bound
// (DefaultReaction, 1m), widens the late side of every deadline the seed
// sets and of every reaction it asks for (a fallback at the timeout,
// step 2 once ready, the condition once a fallback shows, a retry within
// 6h, an install once asked), never the early side. Rules that judge a
// reaction report it measured (Verdict.Measures). Style rules (011, 013,
// 015) judge what the seed recommends or gives as an example: warnings,
// failures only under --strict.
//
// # Profiles
//
// DefaultConfig is the seed as decision 003 (conformance/staticpod/README.md)
// reads it. LibraryGo is what openshift/library-go shipped (docs/upstream.md):
// no retry sooner than 20m, no gap above 2h, every reason retried
// (STATICPOD-006 not judged); library-go's checks in its order (no
// old-revision mirror pod: PodNotRunning or UnexpectedRevision; /healthz/etcd
// EtcdUnhealthy; /healthz Unhealthy; /readyz NotReady; a refused connection
// NetworkError; the pod Running and Ready: PodNodReady); the condition
// StaticPodFallbackRevisionDegraded, True while the mirror pod carries the
// fallback annotations; a pruner that does not know last-known-good
// (STATICPOD-009 not judged).
//
// # Timeline contract
//
// The world that records a static-pod run writes, per node (default
// "master-0"; everything below is per node):
//
//   - Actors "installer/<node>", "startup-monitor/<node>", "kubelet/<node>",
//     "operand/<node>", "pruner/<node>", and one "operator"; roles
//     "installer", "startup-monitor", "kubelet", "operand", "pruner",
//     "operator"; "scenario" for scenario steps. The operand is
//     "kube-apiserver".
//   - File events: Object{Kind: "File", Namespace: <node>, Name: <node
//     path>}, verb write, rename, symlink, remove, lock or unlock, Target
//     for rename and symlink. Paths: the operand manifest
//     /etc/kubernetes/manifests/kube-apiserver-pod.yaml, the monitor's
//     /etc/kubernetes/manifests/kube-apiserver-startup-monitor-pod.yaml,
//     revision directories /etc/kubernetes/static-pods/kube-apiserver-pod-<N>
//     (files under them), the link /etc/kubernetes/static-pods/last-known-good
//     (Target the revision directory), the lock
//     /var/lock/kube-apiserver-installer.lock, and
//     /var/log/kube-apiserver/termination.log, where each start attempt of
//     the operand is one write by the kubelet with Detail beginning "append".
//     A start that prints a termination message has the Detail "append <N>
//     bytes: <line>", the line "<time> kube-apiserver revision <N> start
//     <k>: <message>": its termination message is the line's text after
//     its first ": ".
//   - A pod manifest write has Detail "revision=<N>"; a fallback manifest
//     appends " fallback-for-revision=<M> fallback-reason=<Reason>
//     fallback-message=<message>" (the message last, spaces allowed). The
//     Detail tells the content: a write of the operand manifest with the
//     Detail of the one in place is a rewrite of the same content, which
//     the kubelet does not restart.
//   - Operand ground truth, written by "operand/<node>" whenever an answer
//     changes: Object{Kind: "Probe", Namespace: <node>, Name:
//     "kube-apiserver/healthz" | "kube-apiserver/healthz/etcd" |
//     "kube-apiserver/readyz"}, verb probe, Detail the status ("200 OK",
//     "500 Internal Server Error", "connection refused"), Failed unless 200
//     to 399; a failing /readyz continues with its failing checks, one a
//     line, as kube-apiserver prints them ("[-]etcd failed: reason
//     withheld"). The operand's revision then is the last operand manifest
//     written before.
//   - The mirror pod, written by the kubelet: Object{Kind: "Pod", Namespace:
//     "openshift-kube-apiserver", Name: "kube-apiserver-<node>"}, verbs
//     create, update, update-status, delete; condition Ready; Fields
//     "metadata.annotations" (JSON: "revision" and, after a fallback, the
//     three startup-monitor.static-pods.openshift.io/fallback-* annotations),
//     "status.phase" and "status.containerStatuses" (JSON, the operand
//     container's lastState.terminated.message once it has exited with
//     one).
//   - The operator's ClusterOperator "kube-apiserver" (group
//     config.openshift.io), written by "operator": conditions Degraded,
//     Available, Progressing (library-go: StaticPodFallbackRevisionDegraded
//     instead of Degraded), and the Field "status.extension.nodeStatuses":
//     the operator's durable status (library-go keeps its node statuses in
//     its operator resource), a JSON list with an object per node holding
//     "nodeName", "targetRevision" (the revision it last asked that node's
//     installer to install) and "installs" (how many times it has asked,
//     counting up); other keys are its memory, not judged. A write in
//     which a node's "installs" grows is an ask of "targetRevision": the
//     operator's decision to roll it out (a rollout or a retry), whenever
//     the installer carries it out. The installer's writes carry out the
//     latest ask, or one it had not finished before it was stopped.
//   - Processes: Object{Kind: "Process", Name: <actor>}, verbs start, kill,
//     hang, reconnect.
//   - The run's end is Judging.End.
//
// A recording of the API server (opcert watch, opcert analyze of a
// capture) holds the mirror pods and the ClusterOperator only: a timeline
// with no File, Probe or Process event is read as one (facts.recorded).
// On it a fallback is the mirror pod showing it (the first write that
// carries its fallback-* annotations), whose fallback-for-revision is the
// failed revision; STATICPOD-008 and STATICPOD-015 judge those, and every
// other rule, reading what happens on the nodes, is not judged and says
// so (Config.fromNode). Read as a stream (opcert analyze, opcert watch),
// a recording is judged as its writes pass, keeping only the fallbacks
// not over yet and those that failed (shown.go); the run is taken to end
// no earlier than its last write. Until a timeline shows a node, the
// mirror pod and ClusterOperator writes before are kept only as far as
// the rules of the nodes can still read them once one shows (reader.go):
// the condition's last write, per node its last ask (an ask replaced
// before the timeline shows the node's installer is not judged), per
// revision whether a mirror pod showed it ready and when one first showed
// its termination message.
//
// # Readings
//
// Where the seed is open, the rules read it so:
//
//   - The timeout runs from the operand manifest's write (003 §Readiness:
//     the operand "does not start up in N minutes", and it starts with its
//     manifest), the installer's lock held then or not: the lock stops the
//     monitor from acting, not the operand's clock, so an installer whose
//     writes take time (it holds the lock after the manifest is written)
//     shortens nothing. A rewrite with the same content (an installer that
//     was stopped mid-install and does its ask again) is no new start: the
//     kubelet keeps the pod, and the timeout, the start attempts
//     (STATICPOD-002) and the ready window (STATICPOD-004) still run from
//     the first write. Only revisions whose startup-monitor manifest (same
//     revision) was on the node are judged by STATICPOD-001: the fallback
//     is opt-in. While another actor holds the installer lock at the
//     deadline, the fallback is due at its unlock (003 §Coordination: the
//     monitor waits).
//   - The fallback is due at the deadline and may come within the
//     reaction bound after it (a monitor that looks on a resync), never
//     before it; an operand ready within that bound, before any
//     fallback, owed none.
//   - A startup-monitor judges what it sees (003 §Proposal: it "watches
//     the operand pods for readiness"). A restarted one cannot know how
//     long the operand has run, nor whether it was ready meanwhile: it
//     gives it a full timeout again (its late fallback is excused by its
//     outage, as any outage by the deadline is), and a readiness that
//     began and ended while it was down (killed, or not yet started) is not
//     held against its fallback. A readiness that lasted into an instant
//     at which it ran is.
//   - Ready means the mirror pod Ready=True at the revision. A write of the
//     operand manifest by the startup-monitor is a fallback, with or without
//     annotations.
//   - Reasons (STATICPOD-002) are judged on the truth just before the
//     fallback write: start attempts since the revision's manifest was
//     written, the latest answer of each endpoint (none recorded: no
//     answer), the mirror pod. More than one start is CrashLooping only
//     while a later check is red. etcd fails when /healthz/etcd answers an
//     error or /readyz lists "etcd" or "etcd-*" as failed; since /healthz
//     then fails too, Unhealthy (the seed's order) and EtcdUnhealthy (its
//     Test Plan) are both accepted. STATICPOD-003 accepts any reason of the
//     profile's vocabulary: which one is right is STATICPOD-002's question,
//     so one fault fails one rule.
//   - "The previous revision" (STATICPOD-005) is the newest revision below
//     the failed one still on the node; a link whose directory is gone
//     counts as no link. A revision is on the node once its directory,
//     manifest or mirror pod was seen, until its directory is removed; a
//     mirror pod showing it after the removal brings nothing back (there
//     is nothing to copy).
//   - Whether a fallback is owed at all (STATICPOD-001) is decided on what
//     the node holds when it is due (the deadline, or the unlock it waits
//     for), after every event up to that instant and through the slack
//     (Tolerance and the reaction bound): a
//     last-known-good link to another revision whose directory is there,
//     or a revision below the failed one still on the node. Without
//     either, the seed's monitor does nothing (003 §Proposal step 1: "or
//     don't do anything if there is no previous revision as in
//     bootstrapping"), whatever the node held when the revision was
//     written: a pruner that removed the previous revision meanwhile
//     leaves it nothing to copy (a pruner that removes the linked one is
//     STATICPOD-009's fault, a link moved too early STATICPOD-004's).
//   - Retries (STATICPOD-006, 007) follow the reason the operator reads on the
//     annotation, and judge the operator's asks, not the installer's writes
//     (003 §Retries: the operator retries the roll-out; how long the installer
//     then takes, a lock it waits for, or an installer that is down, is
//     STATICPOD-014's question). A timeline that records no asks is not judged
//     by them. A retry is an ask of the failed revision after its fallback,
//     before another ask or fallback. ">=N minutes, N=O(10)" with an
//     "exponential backoff starting at N ... moving up to 6h maximum" is read
//     as decision 003 (conformance/staticpod/README.md) reads it: no retry
//     sooner than FirstRetry (10m) after the fallback's write; each wait (from
//     the mirror pod showing the fallback to the ask) no shorter than the wait
//     of the retry before it of the same revision, with the reaction bound as
//     slack (an operator at its cap jitters by its resync); and no wait above
//     MaxBackoff (6h), plus the reaction bound, after the mirror pod showed
//     the fallback, unless the operator asked for another revision first (it
//     is then no longer the target) or another fallback came first (a trial of
//     the revision the operator did not ask for: the installer finishing an
//     old ask; its own retry is judged alike). How fast the wait grows and
//     where it stops growing are left open (the seed gives no factor, and 6h
//     only as a maximum): library-go's 20m, 40m, 80m, 2h, 2h passes, and
//     "growing" is judged as "never shrinking", since a cap may be anywhere
//     from FirstRetry to 6h. "We will start with infinite retries": a
//     retriable fallback not retried within 6h fails (user story 4). A
//     restarted operator keeps its back-off: the operator keeps what it must
//     remember where a restart finds it (library-go: its node statuses'
//     lastFailedRevision, lastFailedTime and counts), so only an outage
//     between the fallback showing and the ask excuses a late one, and such a
//     late retry's wait is not one the next must outgrow.
//   - Every ask is carried out (STATICPOD-014, 003 §User Stories 4): the
//     installer writes the asked revision's operand manifest within the
//     reaction bound of the ask; a lock another actor holds meanwhile
//     moves the start to its release (003 §Coordination); an installer
//     down meanwhile is not judged (it owes it once back); a later ask
//     replaces the earlier one; an ask of the revision whose manifest is
//     in place already needs no write.
//   - The operator (STATICPOD-008) must report the condition within the
//     reaction bound of the mirror pod showing the fallback, with the
//     fallback message in its message ("The message annotation will be
//     published to the user through the operator degraded condition").
//     Its reason and the rest of its message are the operator's: the
//     seed names neither. When it clears is not said (STATICPOD-015,
//     Style: "while retries are attempted"). The termination message of user story 3 is
//     STATICPOD-011's question.
//   - The termination message (STATICPOD-011) of a failed revision is that
//     of its last termination.log line between its manifest's write and
//     the fallback; a revision that never started, or whose process never
//     exited by itself, printed none. It is judged on every write of the
//     condition, True, while the fallback is outstanding, from when the
//     mirror pod shows it until a later fallback on the node is shown (the
//     condition then tells of that one), provided a mirror pod of the failed revision
//     showed the message, and the operator ran at some instant while it
//     did (else it could not know it: the mirror pod of the fallback is a
//     new pod without it). What it saw it owes after a restart too: its
//     memory is kept where a restart finds it. An operator down when the
//     mirror pod shows the fallback is judged on what it writes once back,
//     not on the condition it left standing. The library-go profile does
//     not judge it: its condition never carried one.
//   - Step 2 (STATICPOD-012) is owed from the startup-monitor's first
//     instant that can see its revision's operand ready, within the
//     reaction bound (a monitor that looks on a resync is faithful). The
//     seed names no delay
//     ("if the operand becomes ready, the startup-monitor will link the
//     revision to last-known-good, and then remove its own pod-manifest"),
//     and the monitor watches the mirror pod: the write that shows it
//     Ready=True wakes it, so that look is the one at which it knows
//     (the reference acts at that instant; the bound is the slack). It owes
//     it only while it can act: its manifest of that revision on the node
//     (a fallback's operand is not its own; a later revision's monitor
//     manifest replaces it), it running (one down at the readiness owes
//     it at its start, if the operand is still ready then), and no other
//     actor holding the installer lock (it waits, 003 §Coordination: then
//     it is owed at the unlock). A manifest written before it was due ends
//     it; a lapse at the instant it was owed (the operand not ready again,
//     the monitor killed, the lock taken) is not judged. The link comes
//     first: a removal with no link of last-known-good to the revision
//     since the operand was ready fails, even if a link follows ("and
//     then remove": the kubelet stops a monitor whose manifest is gone,
//     so the link may never come); a link before readiness is
//     STATICPOD-004's fault and does not count. A new monitor of the
//     revision (its manifest written again) owes it again.
//   - STATICPOD-010 judges every lock span: no other actor may take the lock
//     or change the manifests directory while it is held; writes while
//     nobody holds it are not judged.
package rules
