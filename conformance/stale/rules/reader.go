package rules

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// reader classifies a timeline's writes to ClusterOperators as they come,
// object by object, and collects process outages and when the detector
// was up. It keeps, per ClusterOperator, one fact per write that moved a
// watched condition (the rules look back and forth along them): that is
// what grows with a timeline, so a fact is small (write) and everything
// that repeats across writes (who wrote what to which object, the watched
// conditions before and after, the change itself: a fleet's challenges and
// answers come back cycle after cycle) is kept once and shared.
type reader struct {
	state      timeline.State
	watched    map[timeline.ObjectRef]map[string]timeline.Condition // watched(state[o]), as last computed
	byName     map[string]*history
	challenged map[string]bool // a challenge since the last movement
	operated   map[string]bool // the operator role wrote it (history.operatedAt)
	procs      processes
	detector   life
	shared     sharing
	// A stream's reader (newStreamReader) may judge online (online.go)
	// once it has kept onlineAfter facts of a timeline without process
	// events; cfg is what its rules judge against, start where offsets
	// count from.
	cfg       *Config
	streaming bool
	start     time.Time
	kept      int
	on        *online
	processes bool // a process event was seen
}

func newReader() *reader {
	return &reader{state: timeline.State{}, watched: map[timeline.ObjectRef]map[string]timeline.Condition{},
		byName: map[string]*history{}, challenged: map[string]bool{}, operated: map[string]bool{}, procs: processes{}, shared: newSharing()}
}

// newStreamReader is a reader for a stream judged with cfg's rules.
func newStreamReader(cfg Config) *reader {
	r := newReader()
	r.cfg = &cfg
	return r
}

// Streaming tells the reader that it reads a stream whose rules' tolerance
// is fixed (judge.Stream), and where offsets count from: it may then
// judge online.
func (r *reader) Streaming(start time.Time) { r.streaming, r.start = true, start }

// Read takes the next event.
func (r *reader) Read(e timeline.Event) {
	if e.Object.Kind == timeline.KindProcess {
		if r.on != nil && r.on.broken == "" {
			r.on.broken = fmt.Sprintf("a process event (%s %s at %s) came after %d ClusterOperator writes were judged as they streamed, as a recording without process events",
				e.Actor, e.Verb, r.on.off(e.Time), r.kept)
		}
		r.processes = true
		r.procs.note(e)
		if e.Role == RoleDetector {
			r.detector = r.detector.noteDetector(e)
		}
		return
	}
	if e.Object.Kind != clusterOperatorKind || !e.IsWrite() {
		return
	}
	before, ok := r.watched[e.Object]
	if !ok {
		before = r.shared.state(r.state[e.Object])
	}
	r.state.Apply(e)
	if e.Role == RoleOperator {
		r.operated[e.Object.Name] = true
	}
	after := r.shared.state(r.state[e.Object])
	if e.Verb == timeline.VerbDelete {
		delete(r.watched, e.Object)
	} else {
		r.watched[e.Object] = after
	}
	f := fact{before: before, after: after, kind: classify(e, before, after, r.challenged[e.Object.Name])}
	if f.kind == move && sameConditions(before, after) {
		return // a write that moved nothing watched
	}
	h := r.byName[e.Object.Name]
	if h == nil {
		h = &history{name: e.Object.Name}
		r.byName[e.Object.Name] = h
	}
	f.w = r.shared.write(e)
	r.challenged[e.Object.Name] = f.kind == challenge || (f.kind != move && r.challenged[e.Object.Name])
	r.kept++
	if !h.operated && r.operated[e.Object.Name] {
		h.operated, h.operatedFrom = true, len(h.facts)
	}
	if r.on != nil {
		j := r.on.obj(h.name)
		j.operated = h.operated
		j.read(f)
		return
	}
	h.facts = append(h.facts, f)
	if r.streaming && r.cfg != nil && r.kept >= onlineAfter && !r.processes {
		r.goOnline()
	}
}

// goOnline judges the facts kept so far online and keeps no more.
func (r *reader) goOnline() {
	r.on = newOnline(*r.cfg, r.start)
	for _, h := range r.byName {
		j := r.on.obj(h.name)
		for i, f := range h.facts {
			j.operated = h.operatedAt(i)
			j.read(f)
		}
		h.facts, h.operatedFrom = nil, 0
	}
}

// Facts is what the rules read, once every event is in.
func (r *reader) Facts() any {
	out := make([]*history, 0, len(r.byName))
	for _, h := range r.byName {
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return facts{histories: out, procs: r.procs, detector: r.detector.orAlways(), online: r.on}
}

// write is what a fact keeps of its event: its own number and times, and
// the rest shared.
type write struct {
	seq     int
	time    time.Time
	written int64 // Unix nanoseconds, 0 for none
	who     *who
	changes *[]timeline.ConditionChange // shared: never changed
}

// who is the part of an event that repeats from write to write.
type who struct {
	actor, role, verb, target, detail string
	object                            timeline.ObjectRef
}

// event is the write as the timeline recorded it.
func (w write) event() timeline.Event {
	e := timeline.Event{Seq: w.seq, Time: w.time, Actor: w.who.actor, Role: w.who.role, Verb: w.who.verb,
		Object: w.who.object, Target: w.who.target, Detail: w.who.detail, Conditions: *w.changes}
	if w.written != 0 {
		e.Written = time.Unix(0, w.written).UTC()
	}
	return e
}

// sharing keeps one copy of each value that repeats, found by its content.
type sharing struct {
	states  map[string]map[string]timeline.Condition
	whos    map[who]*who
	changes map[string]*[]timeline.ConditionChange
	key     []byte
}

func newSharing() sharing {
	return sharing{states: map[string]map[string]timeline.Condition{}, whos: map[who]*who{}, changes: map[string]*[]timeline.ConditionChange{}}
}

// state is the shared copy of the watched conditions of an object's
// conditions (watched), made only when not seen before.
func (s *sharing) state(all map[string]timeline.Condition) map[string]timeline.Condition {
	s.key = s.key[:0]
	for _, t := range watchedTypes { // a fixed order
		if c, ok := all[t]; ok {
			s.key = appendCondition(s.key, c)
		}
	}
	if v, ok := s.states[string(s.key)]; ok {
		return v
	}
	v := watched(all)
	s.states[string(s.key)] = v
	return v
}

func (s *sharing) write(e timeline.Event) write {
	w := who{actor: e.Actor, role: e.Role, verb: e.Verb, target: e.Target, detail: e.Detail, object: e.Object}
	p, ok := s.whos[w]
	if !ok {
		p = &w
		s.whos[w] = p
	}
	w2 := write{seq: e.Seq, time: e.Time, who: p, changes: s.change(e.Conditions)}
	if !e.Written.IsZero() {
		w2.written = e.Written.UnixNano()
	}
	return w2
}

func (s *sharing) change(cs []timeline.ConditionChange) *[]timeline.ConditionChange {
	s.key = s.key[:0]
	if cs != nil {
		s.key = append(s.key, '[')
	}
	for _, c := range cs {
		s.key = append(s.key, c.Type...)
		for _, side := range []*timeline.Condition{c.Before, c.After} {
			if side == nil {
				s.key = append(s.key, 0, '-')
				continue
			}
			s.key = append(s.key, 0, '+')
			s.key = appendCondition(s.key, *side)
		}
		s.key = append(s.key, 1)
	}
	if v, ok := s.changes[string(s.key)]; ok {
		return v
	}
	s.changes[string(s.key)] = &cs
	return &cs
}

// appendCondition writes a condition into a key, its fields apart.
func appendCondition(b []byte, c timeline.Condition) []byte {
	for _, f := range []string{c.Type, c.Status, c.Reason, c.Message} {
		b = strconv.AppendInt(b, int64(len(f)), 10)
		b = append(b, ':')
		b = append(b, f...)
	}
	b = strconv.AppendInt(b, c.LastTransitionTime.UnixNano(), 10)
	_, off := c.LastTransitionTime.Zone()
	b = append(b, '@')
	return strconv.AppendInt(b, int64(off), 10)
}
