package rules

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// Online reads the facts one event at a time (judge.Stream), so that
// a timeline is judged without its events being held; the batch rules fold
// every event through the same reader (factsOf).
func (c Config) Online() judge.Online {
	return judge.Online{Key: c.factsKey(), New: func() judge.Reader { return newFactsReader(c) },
		Grows: "each ClusterOperator or mirror pod write and each node file event of a timeline that shows the nodes, a run's; of a recording, nothing"}
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
	present  revisions
	// removed are the revisions whose directory was removed and not
	// written since.
	removed map[int]bool
	held    int // index in n.locks of the span holding the lock, -1 if free
	term    termination
	// prevAt is the time of the timeline's event before the one read.
	prevAt time.Time
	// earlyHeld is the last change of the holdings before the timeline
	// showed a node.
	earlyHeld earlyHeld
}

type earlyHeld struct {
	at  time.Time
	pos int
	set bool
}

// factsReader derives the facts event by event. It keeps, per node, the
// changes the rules look back and forth along: each manifest write
// (install) with the operand's truth and holdings before it, each mirror
// pod write with the pod after it, each node file event, the installer
// lock's spans, the operator's asks and the log of holdings; per node, the
// latest probe answers only (a probe answer is kept with the install it
// precedes, not one by one); the writes that changed the operator's
// fallback condition; each process's down spans and its process events.
// Events of other kinds, probe answers and writes of other objects cost
// only the count that positions the next event. What grows is the
// changes of what the rules read: a node that probes and runs steadily
// keeps nothing more.
//
// Until the timeline shows a node (a file, probe or process event), it may
// be a recording of the API server, which never does: of the mirror pod
// and ClusterOperator writes read so far it keeps only what the rules can
// still read once a node shows (the condition's last write, each node's
// last ask, per revision whether a mirror pod showed it ready and when one
// first showed its termination message, the last holdings), since every
// deadline a node's rules judge comes after a node's first change. What a
// recording's rules read (STATICPOD-008, 015) is judged as the writes pass
// (shown) on a stream whose tolerance was given ahead (judge.Streaming);
// otherwise those writes are kept (api) and judged at the end, with the
// tolerance the rules are given.
type factsReader struct {
	f         facts
	readers   map[string]*reader
	c         Config
	condition string
	pos       int
	last      time.Time
	nodeSeen  bool // a file, probe or process event was read
	shown     *shown
	api       []timeline.Event
}

func newFactsReader(c Config) *factsReader {
	return &factsReader{f: facts{procs: judge.Processes{}}, readers: map[string]*reader{}, c: c, condition: c.condition()}
}

// Streaming judges a recording's fallbacks as the writes pass.
func (fr *factsReader) Streaming(time.Time) {
	if fr.pos == 0 {
		fr.shown = newShown(fr.c)
	}
}

func (fr *factsReader) on(name string) *reader {
	r := fr.readers[name]
	if r == nil {
		r = &reader{n: &node{name: name, earlyShown: map[int]time.Time{}}, probes: map[string]probe{}, removed: map[int]bool{}, held: -1}
		fr.readers[name] = r
	}
	r.prevAt = fr.last
	return r
}

// Read takes the next event.
func (fr *factsReader) Read(e timeline.Event) {
	pos := fr.pos
	defer func() { fr.pos, fr.last = pos+1, e.Time }()
	f, o := &fr.f, e.Object
	if !fr.nodeSeen && (o.Kind == timeline.KindProcess || o.Kind == timeline.KindFile || o.Kind == timeline.KindProbe) {
		fr.showsNode()
	}
	early := !fr.nodeSeen
	switch {
	case o.Kind == timeline.KindProcess:
		f.procs.Note(e, pos)
	case o.Kind == timeline.KindFile && !e.Failed:
		r := fr.on(o.Namespace)
		r.file(e, pos)
		r.noteHoldings(e, pos)
	case o.Kind == timeline.KindProbe && e.Verb == timeline.VerbProbe:
		fr.on(o.Namespace).probes[o.Name] = parseProbe(e)
	case o.Kind == "Pod" && o.Group == "" && o.Namespace == mirrorNamespace && e.IsWrite():
		if name, ok := strings.CutPrefix(o.Name, mirrorPrefix); ok && name != "" {
			r := fr.on(name)
			r.podWrite(e, pos, early)
			fr.apiWrite(e)
		}
	case o.Kind == "ClusterOperator" && o.Group == configGroup && o.Name == clusterOperator && e.IsWrite():
		f.condition = append(f.condition, coWrites(e, fr.condition)...)
		if n := len(f.condition); early && n > 1 {
			f.condition = []coWrite{f.condition[n-1]}
		}
		if e.Role == RoleOperator {
			f.asksOf(e, pos, fr.on, early)
		}
		fr.apiWrite(e)
	}
}

// showsNode is the timeline's first node event: it is no recording, and
// what was kept of its writes before is all the rules read of them.
func (fr *factsReader) showsNode() {
	fr.nodeSeen, fr.shown, fr.api = true, nil, nil
	for _, r := range fr.readers {
		if h := r.earlyHeld; h.set {
			r.n.held = append(r.n.held, holdingsAt{at: h.at, pos: h.pos, holdings: r.holdings()})
		}
	}
}

// apiWrite hands a write of the mirror pods or the ClusterOperator to the
// judging of a recording's fallbacks, until the timeline shows a node.
func (fr *factsReader) apiWrite(e timeline.Event) {
	switch {
	case fr.nodeSeen:
	case fr.shown != nil:
		fr.shown.read(e)
	default:
		fr.api = append(fr.api, e)
	}
}

// Facts is the facts, their nodes by name, each knowing how many events
// the timeline has and the time of its last.
func (fr *factsReader) Facts() any {
	f := fr.f
	f.nodes = nil
	for _, name := range slices.Sorted(maps.Keys(fr.readers)) {
		n := fr.readers[name].n
		n.events, n.lastAt = fr.pos, fr.last
		f.nodes = append(f.nodes, n)
	}
	f.events, f.recorded = fr.pos, !fr.nodeSeen
	if f.recorded && fr.shown != nil {
		fr.shown.finish()
	}
	f.shown, f.api = fr.shown, fr.api
	return f
}

// coWrites are the writes of the operator's fallback condition an event
// of its ClusterOperator makes: its deletion, or each change of the
// condition.
func coWrites(e timeline.Event, condition string) []coWrite {
	if e.Verb == timeline.VerbDelete {
		return []coWrite{{ev: e}}
	}
	var out []coWrite
	for _, c := range e.Conditions {
		if c.Type == condition {
			out = append(out, coWrite{ev: e, cond: c.After})
		}
	}
	return out
}

// asksOf notes the asks a write of the operator's status makes: each node
// whose count of asks grows asks its target revision.
func (f *facts) asksOf(e timeline.Event, pos int, on func(string) *reader, early bool) {
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
				a := ask{ev: e, pos: pos, revision: ns.TargetRevision}
				if early {
					n.asks = n.asks[:0] // replaced before any installer could act
				}
				n.asks = append(n.asks, a)
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
			r.present.add(rev)
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
		r.present = slices.DeleteFunc(r.present, func(rev int) bool {
			gone := within(revisionDir(rev), p)
			if gone {
				r.removed[rev] = true
			}
			return gone
		})
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
		prevAt:    r.prevAt,
	}
	r.n.installs = append(r.n.installs, in)
	r.starts = 0 // a new manifest: its operand's start attempts count afresh
	r.term = termination{}
	if note.revision > 0 {
		r.present.add(note.revision)
	}
}

// holdings is what the node holds now to fall back to.
func (r *reader) holdings() holdings {
	h := holdings{present: slices.Clone(r.present)}
	if rev, ok := revisionOf(r.link); ok && r.link == revisionDir(rev) && r.present.has(rev) {
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

// after is the mirror pod as the write e leaves it.
func (p pod) after(e timeline.Event) pod {
	if e.Verb == timeline.VerbCreate || e.Verb == timeline.VerbDelete {
		p = pod{} // a new mirror pod, or none
	}
	if e.Verb == timeline.VerbDelete {
		return p
	}
	p.exists = true
	for _, c := range e.Conditions {
		if c.Type == "Ready" {
			p.ready = c.After != nil && c.After.Status == "True"
		}
	}
	for _, fc := range e.Fields {
		switch fc.Path {
		case "metadata.annotations":
			p.ann = annotations(fc.After)
			p.revision = revisionNumber(p.ann[revisionAnnotation])
		case "status.phase":
			p.phase = jsonString(fc.After)
		case "status.containerStatuses":
			p.terminated = lastTerminated(fc.After)
		}
	}
	return p
}

// podWrite follows the node's mirror pod. Before the timeline shows a
// node, only what the rules can still read once one shows is kept of it
// (early): per revision, whether a write showed it ready and when one
// first showed its termination message.
func (r *reader) podWrite(e timeline.Event, pos int, early bool) {
	r.pod = r.pod.after(e)
	added := false
	if r.pod.exists {
		if r.pod.terminated != "" {
			r.term.shown = true
		}
		if rev := r.pod.revision; rev > 0 && !r.removed[rev] {
			added = r.present.add(rev)
		}
	}
	if !early {
		r.n.pods = append(r.n.pods, podWrite{ev: e, pos: pos, pod: r.pod})
		r.noteHoldings(e, pos)
		return
	}
	if added || !r.earlyHeld.set {
		// Of the holdings' log only its last entry can be read once a node
		// shows: it is written then (factsReader.showsNode).
		r.earlyHeld = earlyHeld{at: e.Time, pos: pos, set: true}
	}
	p := r.pod
	if p.readyAt(p.revision) {
		r.n.earlyReady.add(p.revision)
	}
	if _, ok := r.n.earlyShown[p.revision]; !ok && p.exists && p.terminated != "" {
		r.n.earlyShown[p.revision] = e.Time
	}
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

// revisions is a set of revisions, ascending: a word each.
type revisions []int

func (rs revisions) has(rev int) bool {
	_, found := slices.BinarySearch(rs, rev)
	return found
}

// add puts rev in the set and tells whether it was not there.
func (rs *revisions) add(rev int) bool {
	k, found := slices.BinarySearch(*rs, rev)
	if !found {
		*rs = slices.Insert(*rs, k, rev)
	}
	return !found
}
