package rules

import (
	"strconv"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// Online reads a timeline for the STALE rules one event at a time: the
// batch rules fold the timeline through the same reader (Config.verdicts),
// so that the rules are written once (judging.go). Read as a stream whose
// rules' tolerance is fixed (judge.Streaming), it judges as the events
// pass, keeping per ClusterOperator what a later write can still change
// (judging.go); otherwise it keeps the classified writes and the process
// events, compactly, for the rules to judge at the end with their own
// thresholds.
func Online(cfg Config) judge.Online {
	return judge.Online{Key: factsKey{}, New: func() judge.Reader { return newReader(cfg) }}
}

type factsKey struct{}

// reader classifies a timeline's writes to ClusterOperators as they come,
// object by object, into facts (what repeats across writes kept once and
// shared: sharing), and hands them, with the process events, to the rules'
// judging in timeline order, or keeps them for it.
type reader struct {
	cfg        Config
	state      timeline.State
	watched    map[timeline.ObjectRef]map[string]timeline.Condition // watched(state[o]), as last computed
	challenged map[string]bool                                      // a challenge since the last movement
	operated   map[string]bool                                      // the operator role wrote it (objJudge.operated)
	shared     sharing
	pos        int // the next event's position on the timeline
	// judged is the rules' judging as the events pass, once the stream
	// said where offsets count from (Streaming); until then kept holds
	// what it reads.
	judged *judging
	kept   []item
}

// item is a fact about a ClusterOperator, or a process event (proc) at
// position pos.
type item struct {
	name     string
	f        fact
	operated bool
	proc     *timeline.Event
	pos      int
}

func newReader(cfg Config) *reader {
	return &reader{cfg: cfg, state: timeline.State{}, watched: map[timeline.ObjectRef]map[string]timeline.Condition{},
		challenged: map[string]bool{}, operated: map[string]bool{}, shared: newSharing()}
}

// Streaming tells the reader that it reads a stream whose rules' tolerance
// is fixed (judge.Stream), and where offsets count from: it judges as the
// events pass from then on.
func (r *reader) Streaming(start time.Time) { r.judged = newJudging(r.cfg, start, true) }

// Read takes the next event.
func (r *reader) Read(e timeline.Event) {
	pos := r.pos
	r.pos++
	if e.Object.Kind == timeline.KindProcess {
		r.put(item{proc: &e, pos: pos})
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
	f.w = r.shared.write(e)
	r.challenged[e.Object.Name] = f.kind == challenge || (f.kind != move && r.challenged[e.Object.Name])
	r.put(item{name: e.Object.Name, f: f, operated: r.operated[e.Object.Name], pos: pos})
}

// put hands an item to the judging, or keeps it.
func (r *reader) put(it item) {
	if r.judged != nil {
		r.judged.read(it)
		return
	}
	r.kept = append(r.kept, it)
}

// Facts is what the rules read, once every event is in.
func (r *reader) Facts() any { return read{judged: r.judged, items: r.kept} }

// read is what a reader made of a timeline: its rules' judging, or the
// items for one.
type read struct {
	judged *judging
	items  []item
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
