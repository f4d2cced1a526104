package rules

import (
	"fmt"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// facts is what the STATICPOD rules read of a timeline, derived once per
// timeline and profile for all of them (judge.Facts).
type facts struct {
	nodes     []*node // by name
	procs     judge.Processes
	condition []coWrite // writes that changed the operator's fallback condition
	// asksRecorded: some write of the operator's status carried its node
	// statuses (timeline contract), so its asks are on the timeline.
	asksRecorded bool
	events       int // how many events the timeline has
	// recorded: the timeline shows nothing of the nodes (no file, probe
	// or process event), as a recording of the API server (opcert watch,
	// opcert analyze of a capture) holds only API writes (recording.go).
	recorded bool
	// On a recording, its fallbacks as judged while the writes passed
	// (shown), or, when they were not, its mirror pod and ClusterOperator
	// writes (api), to judge at the end (Config.shownOf).
	shown *shown
	api   []timeline.Event
}

// node is one simulated node's story: every change of its operand
// manifest, mirror pod and files, in timeline order.
type node struct {
	name     string
	installs []*install
	asks     []ask
	pods     []podWrite
	files    []fileEvent
	locks    []lockSpan
	// held logs what the node held to fall back to, one entry per change.
	held []holdingsAt
	// earlyReady and earlyShown are what the mirror pod writes before the
	// timeline showed a node left (factsReader): the revisions a write
	// showed ready, ascending, and when a write first showed a revision's
	// termination message.
	earlyReady revisions
	earlyShown map[int]time.Time
	// events is how many events the timeline has, lastAt the time of its
	// last: where the last install's window ends.
	events int
	lastAt time.Time
}

// ask is the operator asking a node's installer to install a revision (a
// rollout or a retry): the operator's decision, whenever the installer
// carries it out.
type ask struct {
	ev       timeline.Event
	pos      int
	revision int
}

// install is one write of the operand manifest: a revision put in place by
// the installer (a trial of it), or a fallback manifest.
type install struct {
	ev   timeline.Event
	pos  int // index in the timeline, to order events at one instant
	note manifestNote
	// monitored: a startup-monitor manifest of the same revision was on the
	// node while this manifest was the latest (the fallback is opt-in).
	monitored bool
	// monitor is the revision of the startup-monitor manifest on the node
	// when this one was written, 0 if none.
	monitor int
	// before is the operand as it stood just before this write: the ground
	// truth about the manifest this one replaced.
	before truth
	// holdings are what the node held just before this write.
	holdings
	// prevAt is the time of the timeline's event just before this write.
	prevAt time.Time
}

// holdings are what a node holds to fall back to (003 §Proposal step 1)
// at one instant.
type holdings struct {
	// lkg is the revision last-known-good points to, 0 if none or if its
	// directory is gone (a dangling link).
	lkg int
	// present are the revisions on the node, ascending: those whose
	// directory, manifest or mirror pod was seen and whose directory was
	// not removed since (a mirror pod shown after the removal brings
	// nothing back: there is nothing to copy).
	present []int
}

// holdingsAt is what a node held from an event on (the node's log of
// changes, in timeline order).
type holdingsAt struct {
	at  time.Time
	pos int
	holdings
}

func (in *install) at() time.Time { return in.ev.Time }

// truth is the operand's ground truth at one instant (timeline contract):
// start attempts since its manifest was written, its endpoints' latest
// answers, the mirror pod.
type truth struct {
	starts                int
	healthz, etcd, readyz probe
	pod                   pod
	term                  termination
}

// termination is what the operand of one manifest wrote of its
// termination message (003 §User Stories 3) and what the mirror pod showed
// of it, since that manifest was written.
type termination struct {
	message string          // of the last termination.log line, "" if none
	last    *timeline.Event // the last line
	shown   bool            // a mirror pod showed a lastState.terminated message
}

// pod is the mirror pod as the kubelet last wrote it.
type pod struct {
	exists   bool
	revision int // its revision annotation
	ready    bool
	phase    string
	ann      map[string]string
	// terminated is the operand container's lastState.terminated message.
	terminated string
}

func (p pod) readyAt(rev int) bool { return p.exists && p.ready && p.revision == rev }

// fallenBack tells whether the pod carries the fallback annotations.
func (p pod) fallenBack() bool { _, ok := p.ann[annotationFallbackFor]; return p.exists && ok }

type podWrite struct {
	ev  timeline.Event
	pos int
	pod pod // after the write
}

type fileEvent struct {
	ev           timeline.Event
	pos          int
	path, target string // cleaned
}

// lockSpan is the installer lock held by one actor, from its lock to its
// unlock (unlockPos -1 while still held at the end).
type lockSpan struct {
	holder             string
	lock, unlock       timeline.Event
	lockPos, unlockPos int
}

type coWrite struct {
	ev   timeline.Event
	cond *timeline.Condition // nil: absent
}

// factsKey tells the facts of one configuration's rules from another's:
// a recording's fallbacks judged as its writes pass are judged with the
// reaction bound, the tolerance and the profile's end of a fallback.
type factsKey struct {
	condition string
	late      time.Duration
	libraryGo bool
}

func (c Config) factsKey() factsKey { return factsKey{c.condition(), c.late(), c.libraryGo()} }

func (c Config) factsOf(j *judge.Judging) facts {
	return judge.Facts(j, c.factsKey(), func(events []timeline.Event) facts {
		return judge.Fold[facts](c.Online(), events)
	})
}

// shownOf is a recording's fallbacks judged (shown): as its writes
// passed, or else now, with these rules' bound and tolerance.
func (c Config) shownOf(j *judge.Judging) *shown {
	f := c.factsOf(j)
	if f.shown != nil {
		return f.shown
	}
	return judge.Facts(j, shownKey{c.factsKey()}, func([]timeline.Event) *shown {
		s := newShown(c)
		for _, e := range f.api {
			s.read(e)
		}
		s.finish()
		return s
	})
}

type shownKey struct{ factsKey }

// Queries the rules share.

func monitorActor(node string) string { return "startup-monitor/" + node }

const operatorActor = "operator"

// next is the install after the i-th, nil if none.
func (n *node) next(i int) *install {
	if i+1 < len(n.installs) {
		return n.installs[i+1]
	}
	return nil
}

// window is where the i-th install is the latest: its end position (the next
// install's, or past the timeline) and end time (the next install's, or
// the run's end).
func (n *node) window(i int, j *judge.Judging) (int, time.Time) {
	if nx := n.next(i); nx != nil {
		return nx.pos, nx.at()
	}
	return n.events, j.End
}

// stopping says what ended the i-th install's window: the next manifest,
// or the end of the run.
func (n *node) stopping(i int, j *judge.Judging) string {
	if nx := n.next(i); nx != nil {
		return fmt.Sprintf("the next manifest, revision %d, at %s", nx.note.revision, j.Offset(nx.at()))
	}
	return "the end of the run at " + j.Offset(j.End)
}

// failedRevision is the revision the i-th install (a fallback) replaced:
// the one before it; on a timeline that starts with a fallback, the
// revision it names; 0 if unknown.
func (n *node) failedRevision(i int) int {
	if i > 0 {
		return n.installs[i-1].note.revision
	}
	return revisionNumber(n.installs[i].note.forRevision)
}

// firstPod is the first mirror pod write strictly between positions from
// and to for which ok holds.
func (n *node) firstPod(from, to int, ok func(pod) bool) *podWrite {
	for k := range n.pods {
		if w := &n.pods[k]; w.pos > from && w.pos < to && ok(w.pod) {
			return w
		}
	}
	return nil
}

// readyAt tells whether a mirror pod write between from and to (-1:
// from the timeline's start) showed the operand of rev ready.
func (n *node) readyAt(rev, from, to int) bool {
	return from < 0 && n.earlyReady.has(rev) || n.firstPod(from, to, func(p pod) bool { return p.readyAt(rev) }) != nil
}

// seen is the first mirror pod write after the i-th install (a fallback)
// and before the next that carries the fallback annotations: when the
// operator, which reads the mirror pod, can know of the fallback.
func (n *node) seen(i int, j *judge.Judging) *podWrite {
	end, _ := n.window(i, j)
	return n.firstPod(n.installs[i].pos, end, pod.fallenBack)
}

// heldAfter is the installer lock's span holding it just after the event
// at pos, if an actor other than except holds it then.
func (n *node) heldAfter(pos int, except string) (lockSpan, bool) {
	for _, s := range n.locks {
		if s.holder != except && s.lockPos <= pos && (s.unlockPos < 0 || s.unlockPos > pos) {
			return s, true
		}
	}
	return lockSpan{}, false
}

// heldAt is the installer lock's span covering t if an actor other than
// except holds it then.
func (n *node) heldAt(t time.Time, except string) (lockSpan, bool) {
	for _, s := range n.locks {
		if s.holder != except && !s.lock.Time.After(t) && (s.unlockPos < 0 || s.unlock.Time.After(t)) {
			return s, true
		}
	}
	return lockSpan{}, false
}
