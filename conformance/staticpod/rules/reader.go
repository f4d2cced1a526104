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
	condition := c.condition()
	return judge.Online{Key: factsKey{condition}, New: func() judge.Reader { return newFactsReader(condition) },
		Grows: "each ClusterOperator or mirror pod write, each node file event"}
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
	// prevAt is the time of the timeline's event before the one read.
	prevAt time.Time
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
type factsReader struct {
	f         facts
	readers   map[string]*reader
	condition string
	pos       int
	last      time.Time
	nodeSeen  bool // a file, probe or process event was read
}

func newFactsReader(condition string) *factsReader {
	return &factsReader{f: facts{procs: judge.Processes{}}, readers: map[string]*reader{}, condition: condition}
}

func (fr *factsReader) on(name string) *reader {
	r := fr.readers[name]
	if r == nil {
		r = &reader{n: &node{name: name}, probes: map[string]probe{}, present: map[int]bool{}, removed: map[int]bool{}, held: -1}
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
	if o.Kind == timeline.KindProcess || o.Kind == timeline.KindFile || o.Kind == timeline.KindProbe {
		fr.nodeSeen = true
	}
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
			r.podWrite(e, pos)
			r.noteHoldings(e, pos)
		}
	case o.Kind == "ClusterOperator" && o.Group == configGroup && o.Name == clusterOperator && e.IsWrite():
		f.conditionWrite(e, fr.condition)
		if e.Role == RoleOperator {
			f.asksOf(e, pos, fr.on)
		}
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
		prevAt:    r.prevAt,
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
