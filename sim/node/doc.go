// Package node simulates one control-plane node for seed 003 (fallback on
// failing revisions of static pods): its file system, the operand revisions
// the kubelet runs from it, and their health endpoints.
//
// # File system
//
// A Node is a real directory tree in a per-node temporary directory, so that
// an external startup-monitor binary can be pointed at it later. Paths given
// to it are node paths ("/etc/kubernetes/manifests/kube-apiserver-pod.yaml"),
// the layout is the seed's, with one reading taken from decision 003
// (conformance/staticpod/README.md): the seed writes pod manifests into
// "/etc/kubernetes", the decision puts them, like the kubelet's usual
// staticPodPath, in "/etc/kubernetes/manifests", and so does this package. The
// resource directory of a revision is
// "/etc/kubernetes/static-pods/<operand>-pod-<N>" and "last-known-good" in the
// same directory links to one of them (upstream library-go links
// "<operand>-last-known-good" to the manifest file instead; the seed's name is
// kept, and Symlink takes any target).
//
// Every change is made by an actor (Node.As) and reported, at the node
// clock's time, as exactly one Event to the caller's Sink, so that rules can
// judge who changed what and when (directories a change needs are made as
// part of it; a change that fails reports nothing). Writes are atomic (a hidden temporary file
// renamed into place) and so is replacing a symlink, as a reader on a real
// node must never see half a manifest or no last-known-good link. Nothing can
// leave the root: ".." above "/" is refused rather than clamped, symlinks are
// stored relative, and every access goes through os.Root, which refuses
// links, even ones planted by another process, that point outside.
//
// The installer lock ("/var/lock/<operand>-installer.lock") is a file whose
// presence means held and whose content names the holder. It is advisory,
// as a lock file on a node is: Lock refuses while it is held, but nothing
// stops an actor that does not ask from writing, so an installer that
// ignores it races with the startup-monitor, and the race shows on the
// events as another actor's write between a "lock" and its "unlock".
//
// # Changes from outside
//
// A process opcert starts (a team's startup-monitor) writes the node's
// directory with plain file calls. Once Track names it, the node files
// what differs on disk from what its handles left as that process's
// changes (Outside), before any handle reads or changes the node, in the
// order an inotify queue over the node's directories gives them; a lock
// file it made and removed between two looks is filed from that queue.
// Differs tells a poller that there is something to file, and
// ReleaseOutside releases a lock the process held once it is gone.
//
// # Operands
//
// A Model says how a revision behaves once the kubelet runs it: healthy, or
// one of the failures the seed lists (invalid manifest, crash loop, port wait
// timeout, connection refused, unhealthy, not ready, etcd post-start hook
// stuck or etcd away for a while). Model.At is a pure function of the instant
// the revision's manifest appeared and now: start attempts, whether a
// process runs and listens, its health checks as kube-apiserver lists them,
// the mirror pod's phase, readiness and restart count, and the next instant
// any of that changes, so that the scheduler jumps straight to it. A
// real-time run at a time scale plays it with its durations scaled
// (Operand.WithScale). An
// Operand binds a model to its revision and appends one line to the
// operand's termination.log per start, through the node, when synced. A
// kind whose process exits by itself (crash loop, port wait timeout) has a
// termination message, one line as kube-apiserver prints it
// (Model.Termination, a default per kind): each start's line carries it
// after ": ", and so does its event's Detail ("append <N> bytes: <line>"),
// for seed 003 §User Stories 3.
//
// # Endpoints
//
// Serve answers /healthz, /healthz/etcd and /readyz (and each check under
// them) on a loopback port from an operand's state at the clock's time of
// each request, in kube-apiserver's format.
//
// Nothing here reads the wall clock or sleeps: time comes from the injected
// clock.PassiveClock.
package node
