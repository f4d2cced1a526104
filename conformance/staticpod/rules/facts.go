package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/sim/timeline"
)

// facts is what the STATICPOD rules read of a timeline, derived once per
// timeline and profile for all of them (conformance.Facts).
type facts struct {
	nodes     []*node // by name
	procs     processes
	condition []coWrite // writes that changed the operator's fallback condition
	// asksRecorded: some write of the operator's status carried its node
	// statuses (timeline contract), so its asks are on the timeline.
	asksRecorded bool
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

type factsKey struct{ condition string }

func (c Config) factsOf(j *conformance.Judging) facts {
	return conformance.Facts(j, factsKey{c.condition()}, func(events []timeline.Event) facts {
		return read(events, c.condition())
	})
}

// reader follows one node through the timeline.
type reader struct {
	n       *node
	starts  int
	probes  map[string]probe
	pod     pod
	monitor int // revision of the monitor manifest on the node, 0 if none
	// manifest is the Detail of the operand manifest's last write, which
	// tells its content (timeline contract); "" while there is none.
	manifest string
	link     string // last-known-good's target, "" if none
	present  map[int]bool
	// removed are the revisions whose directory was removed and not
	// written since.
	removed map[int]bool
	held    int // index in n.locks of the span holding the lock, -1 if free
	term    termination
}

func read(events []timeline.Event, condition string) facts {
	f := facts{procs: processes{}}
	readers := map[string]*reader{}
	on := func(name string) *reader {
		r := readers[name]
		if r == nil {
			r = &reader{n: &node{name: name}, probes: map[string]probe{}, present: map[int]bool{}, removed: map[int]bool{}, held: -1}
			readers[name] = r
		}
		return r
	}
	for pos, e := range events {
		o := e.Object
		switch {
		case o.Kind == timeline.KindProcess:
			f.procs.note(e, pos)
		case o.Kind == timeline.KindFile && !e.Failed:
			r := on(o.Namespace)
			r.file(e, pos)
			r.noteHoldings(e, pos)
		case o.Kind == timeline.KindProbe && e.Verb == timeline.VerbProbe:
			on(o.Namespace).probes[o.Name] = parseProbe(e)
		case o.Kind == "Pod" && o.Group == "" && o.Namespace == mirrorNamespace && e.IsWrite():
			if name, ok := strings.CutPrefix(o.Name, mirrorPrefix); ok && name != "" {
				r := on(name)
				r.podWrite(e, pos)
				r.noteHoldings(e, pos)
			}
		case o.Kind == "ClusterOperator" && o.Group == configGroup && o.Name == clusterOperator && e.IsWrite():
			f.conditionWrite(e, condition)
			if e.Role == RoleOperator {
				f.asksOf(e, pos, on)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(readers)) {
		f.nodes = append(f.nodes, readers[name].n)
	}
	return f
}

// conditionWrite notes a write of the operator's ClusterOperator that
// changed the fallback condition.
func (f *facts) conditionWrite(e timeline.Event, condition string) {
	if e.Verb == timeline.VerbDelete {
		f.condition = append(f.condition, coWrite{ev: e})
		return
	}
	for _, c := range e.Conditions {
		if c.Type == condition {
			f.condition = append(f.condition, coWrite{ev: e, cond: c.After})
		}
	}
}

// asksOf notes the asks a write of the operator's status makes: each node
// whose count of asks grows asks its target revision.
func (f *facts) asksOf(e timeline.Event, pos int, on func(string) *reader) {
	for _, fc := range e.Fields {
		if fc.Path != fieldNodeStatuses {
			continue
		}
		f.asksRecorded = true
		before := map[string]int{}
		for _, ns := range nodeStatuses(fc.Before) {
			before[ns.NodeName] = ns.Installs
		}
		for _, ns := range nodeStatuses(fc.After) {
			if ns.NodeName != "" && ns.Installs > before[ns.NodeName] {
				n := on(ns.NodeName).n
				n.asks = append(n.asks, ask{ev: e, pos: pos, revision: ns.TargetRevision})
			}
		}
	}
}

func (r *reader) file(e timeline.Event, pos int) {
	fe := fileEvent{ev: e, pos: pos, path: cleanPath(e.Object.Name), target: cleanPath(e.Target)}
	r.n.files = append(r.n.files, fe)
	p := fe.path
	switch e.Verb {
	case timeline.VerbWrite:
		if rev, ok := revisionOf(p); ok {
			r.present[rev] = true
			delete(r.removed, rev)
		}
		switch p {
		case operandManifest:
			if r.manifest != "" && e.Detail == r.manifest {
				// The same content again (an installer redoing an ask it
				// did not finish): the kubelet keeps the pod it runs,
				// nothing starts, so it is no install.
				break
			}
			r.manifest = e.Detail
			r.install(e, pos)
		case monitorManifest:
			r.monitor = parseManifest(e.Detail).revision
			if in := r.last(); in != nil && !in.note.fallback && in.note.revision == r.monitor {
				in.monitored = true
			}
		case terminationLog:
			if strings.HasPrefix(e.Detail, "append") {
				r.starts++
				r.term.message, r.term.last = appendedMessage(e.Detail), &e
			}
		}
	case timeline.VerbSymlink:
		if p == lastKnownGood {
			r.link = fe.target
		}
	case timeline.VerbRemove:
		for rev := range r.present {
			if within(revisionDir(rev), p) {
				delete(r.present, rev)
				r.removed[rev] = true
			}
		}
		if within(lastKnownGood, p) {
			r.link = ""
		}
		if within(monitorManifest, p) {
			r.monitor = 0
		}
		if within(operandManifest, p) {
			r.manifest = ""
		}
	case timeline.VerbLock, timeline.VerbUnlock:
		if p == lockFile {
			r.lock(fe)
		}
	}
}

func (r *reader) last() *install {
	if len(r.n.installs) == 0 {
		return nil
	}
	return r.n.installs[len(r.n.installs)-1]
}

func (r *reader) install(e timeline.Event, pos int) {
	note := parseManifest(e.Detail)
	// The monitor writes the operand manifest only to fall back, so its
	// write is a fallback even when it lacks the annotations.
	note.fallback = note.fallback || e.Role == RoleStartupMonitor
	in := &install{
		ev: e, pos: pos, note: note,
		monitored: !note.fallback && note.revision > 0 && r.monitor == note.revision,
		monitor:   r.monitor,
		before:    r.truth(),
		holdings:  r.holdings(),
	}
	r.n.installs = append(r.n.installs, in)
	r.starts = 0 // a new manifest: its operand's start attempts count afresh
	r.term = termination{}
	if note.revision > 0 {
		r.present[note.revision] = true
	}
}

// holdings is what the node holds now to fall back to.
func (r *reader) holdings() holdings {
	h := holdings{present: slices.Sorted(maps.Keys(r.present))}
	if rev, ok := revisionOf(r.link); ok && r.link == revisionDir(rev) && r.present[rev] {
		h.lkg = rev
	}
	return h
}

// noteHoldings logs what the node holds after the event at pos, if that
// changed.
func (r *reader) noteHoldings(e timeline.Event, pos int) {
	h := r.holdings()
	if k := len(r.n.held); k > 0 && r.n.held[k-1].lkg == h.lkg && slices.Equal(r.n.held[k-1].present, h.present) {
		return
	}
	r.n.held = append(r.n.held, holdingsAt{at: e.Time, pos: pos, holdings: h})
}

func (r *reader) truth() truth {
	return truth{starts: r.starts, healthz: r.probes[probeHealthz], etcd: r.probes[probeEtcd], readyz: r.probes[probeReadyz], pod: r.pod, term: r.term}
}

func (r *reader) podWrite(e timeline.Event, pos int) {
	if e.Verb == timeline.VerbCreate || e.Verb == timeline.VerbDelete {
		r.pod = pod{} // a new mirror pod, or none
	}
	if e.Verb != timeline.VerbDelete {
		r.pod.exists = true
		for _, c := range e.Conditions {
			if c.Type == "Ready" {
				r.pod.ready = c.After != nil && c.After.Status == "True"
			}
		}
		for _, fc := range e.Fields {
			switch fc.Path {
			case "metadata.annotations":
				r.pod.ann = annotations(fc.After)
				r.pod.revision = revisionNumber(r.pod.ann[revisionAnnotation])
			case "status.phase":
				r.pod.phase = jsonString(fc.After)
			case "status.containerStatuses":
				r.pod.terminated = lastTerminated(fc.After)
			}
		}
		if r.pod.terminated != "" {
			r.term.shown = true
		}
		if r.pod.revision > 0 && !r.removed[r.pod.revision] {
			r.present[r.pod.revision] = true
		}
	}
	r.n.pods = append(r.n.pods, podWrite{ev: e, pos: pos, pod: r.pod})
}

// lock follows the installer lock. It is advisory: a lock taken while
// another actor holds it changes nothing here (STATICPOD-010 reports it).
func (r *reader) lock(fe fileEvent) {
	e := fe.ev
	switch {
	case e.Verb == timeline.VerbLock && r.held < 0:
		r.n.locks = append(r.n.locks, lockSpan{holder: e.Actor, lock: e, lockPos: fe.pos, unlockPos: -1})
		r.held = len(r.n.locks) - 1
	case e.Verb == timeline.VerbUnlock && r.held >= 0 && r.n.locks[r.held].holder == e.Actor:
		s := &r.n.locks[r.held]
		s.unlock, s.unlockPos = e, fe.pos
		r.held = -1
	}
}

// processes holds when each simulated process was down: killed or cut off,
// or not yet started.
type processes map[string][]span

// span is a time a process was down, from its kill or hang (or the start
// of the run) to its start or reconnect (zero while still down), with the
// positions of those events on the timeline (-1 for the start of the
// run), which order what happens at one instant.
type span struct {
	from, to       time.Time
	fromPos, toPos int
}

func (p processes) note(e timeline.Event, pos int) {
	actor := e.Object.Name
	spans, seen := p[actor]
	open := len(spans) > 0 && spans[len(spans)-1].to.IsZero()
	switch e.Verb {
	case timeline.VerbKill, timeline.VerbHang:
		if !open {
			spans = append(spans, span{from: e.Time, fromPos: pos})
		}
	case timeline.VerbStart, timeline.VerbReconnect:
		switch {
		case open:
			spans[len(spans)-1].to, spans[len(spans)-1].toPos = e.Time, pos
		case !seen:
			spans = append(spans, span{to: e.Time, fromPos: -1, toPos: pos}) // not running before its first start
		}
	}
	p[actor] = spans
}

// downDuring tells whether actor was down at any instant of [from, to].
func (p processes) downDuring(actor string, from, to time.Time) bool {
	for _, s := range p[actor] {
		if !s.from.After(to) && (s.to.IsZero() || s.to.After(from)) {
			return true
		}
	}
	return false
}

// downThroughout tells whether actor was down at every instant of [from,
// to), or at the instant from when to is not after it.
func (p processes) downThroughout(actor string, from, to time.Time) bool {
	for _, s := range p[actor] {
		if s.from.After(from) {
			continue
		}
		if s.to.IsZero() || s.to.After(from) && !s.to.Before(to) {
			return true
		}
	}
	return false
}

// downAfter tells whether actor was down just after the event at pos:
// killed or cut off at or before it and not back by it, or not started
// yet.
func (p processes) downAfter(actor string, pos int) bool {
	for _, s := range p[actor] {
		if s.fromPos <= pos && (s.to.IsZero() || s.toPos > pos) {
			return true
		}
	}
	return false
}

// downBetween tells whether actor was down all the while between the
// timeline's positions from and to: killed before the event at from and
// not back before the event at to.
func (p processes) downBetween(actor string, from, to int) bool {
	for _, s := range p[actor] {
		if s.fromPos < from && (s.to.IsZero() || s.toPos > to) {
			return true
		}
	}
	return false
}

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
func (n *node) window(i int, j *conformance.Judging) (int, time.Time) {
	if nx := n.next(i); nx != nil {
		return nx.pos, nx.at()
	}
	return len(j.Events), j.End
}

// stopping says what ended the i-th install's window: the next manifest,
// or the end of the run.
func (n *node) stopping(i int, j *conformance.Judging) string {
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

// readyAt is the first mirror pod write between from and to showing the
// operand of rev ready.
func (n *node) readyAt(rev, from, to int) *podWrite {
	return n.firstPod(from, to, func(p pod) bool { return p.readyAt(rev) })
}

// seen is the first mirror pod write after the i-th install (a fallback)
// and before the next that carries the fallback annotations: when the
// operator, which reads the mirror pod, can know of the fallback.
func (n *node) seen(i int, j *conformance.Judging) *podWrite {
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
