package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// shown judges a recording's fallbacks (STATICPOD-008, STATICPOD-015) as
// its writes pass, in memory that does not grow with them. A recording
// shows nothing of the nodes, so a fallback is the mirror pod showing it
// (doc.go, "A recording"): from the first write that carries its
// annotations until it is over. shown keeps per node the mirror pod as
// last written, the condition as it stands and its writes of the instant
// being read, the fallbacks not settled yet, and those settled with a
// problem (their evidence); a fallback settled without one leaves its
// count and its reaction only.
//
// What the rules read of the condition is where it stood at an instant
// (the fallback shown, the reaction bound after it, the bound after its
// end) and its writes while a fallback was outstanding. An instant's
// writes are judged once the instant is over, as whether a fallback is
// still outstanding then may be decided by a later write at that instant;
// where the condition stood at a deadline is known at the first write
// after it, the timeline being in time order, and a fallback is settled
// once the bound after its end has passed so. The run is taken to end no
// earlier than its last write: a deadline that passed before a later write
// is not "after the end".
type shown struct {
	condition string
	late      time.Duration
	libraryGo bool
	// pods is per node the mirror pod as last written.
	pods     map[string]pod
	standing *coWrite // the condition's last write, nil if none
	// at is the instant being read, and pending the condition's writes at
	// it.
	at      time.Time
	pending []*coWrite
	open    []*shownFallback
	// failed are the fallbacks settled with a problem, and judged the
	// count of those settled without one, per rule (STATICPOD-008, 015).
	failed    []*shownFallback
	judged    [2]int
	reactions judge.Latencies
	count     int // fallbacks so far: their order on the timeline
}

// shownFallback is one fallback a mirror pod showed, and what the
// condition said of it.
type shownFallback struct {
	node    string
	order   int
	failed  int
	message string
	seen    timeline.Event  // the mirror pod write that first showed it
	clear   *timeline.Event // the write after which it was over, nil while it is not
	// atSeen, atSet, atClear are the condition as it stood when the mirror
	// pod showed the fallback, the reaction bound after that, and the
	// bound after its end; each is known (the flags) once a later write
	// came, or the timeline ended.
	atSeen, atSet, atClear          *coWrite
	seenKnown, setKnown, clearKnown bool
	// another: a fallback other than this one was outstanding at the bound
	// after this one's end (the condition stays True for it).
	another bool
	// reported: its reaction, the condition True with its message, was
	// measured.
	reported bool
	// kept is the first write, past the bound, that set the condition to
	// anything but True while it was outstanding; nil if none.
	kept *coWrite
}

func newShown(c Config) *shown {
	return &shown{condition: c.condition(), late: c.late(), libraryGo: c.libraryGo(), pods: map[string]pod{}}
}

// read takes the next write of a mirror pod or of the operator's
// ClusterOperator.
func (s *shown) read(e timeline.Event) {
	if e.Time.After(s.at) {
		s.pass(e.Time, false)
	}
	if e.Object.Kind == "Pod" {
		s.podWrite(strings.TrimPrefix(e.Object.Name, mirrorPrefix), e)
		return
	}
	for _, w := range coWrites(e, s.condition) {
		s.pending = append(s.pending, &w)
	}
}

// finish ends the timeline: every instant the rules read is over.
func (s *shown) finish() { s.pass(time.Time{}, true) }

// podWrite notes a write of node's mirror pod: a fallback it ends, one it
// shows.
func (s *shown) podWrite(node string, e timeline.Event) {
	was := s.pods[node]
	now := was.after(e)
	s.pods[node] = now
	for _, f := range s.open {
		if f.node == node && f.clear == nil && s.over(f, now) {
			f.clear = &e
		}
	}
	fresh := now.fallenBack() && (!was.fallenBack() || e.Verb == timeline.VerbCreate ||
		now.ann[annotationFallbackFor] != was.ann[annotationFallbackFor] || now.ann[annotationFallbackMessage] != was.ann[annotationFallbackMessage])
	if fresh {
		s.count++
		s.open = append(s.open, &shownFallback{node: node, order: s.count, failed: revisionNumber(now.ann[annotationFallbackFor]),
			message: now.ann[annotationFallbackMessage], seen: e})
	}
}

// over tells whether the mirror pod p ends fallback f: a revision at least
// the failed one ready without the annotations; for library-go, the
// annotations gone.
func (s *shown) over(f *shownFallback, p pod) bool {
	if s.libraryGo {
		return !p.fallenBack()
	}
	return p.ready && p.revision >= f.failed && !p.fallenBack()
}

// pass ends the instant being read, before the next at next (or, final,
// the timeline's end): its condition writes are judged against the
// fallbacks outstanding at it, then every deadline before next learns
// where the condition stood, and the fallbacks whose last deadline passed
// are settled.
func (s *shown) pass(next time.Time, final bool) {
	t := s.at
	for _, w := range s.pending {
		s.standing = w
		for _, f := range s.open {
			if f.clear != nil && !f.clear.Time.After(t) {
				continue // over
			}
			if !f.reported && f.seenKnown && t.After(f.seen.Time) && w.is("True") && strings.Contains(w.cond.Message, f.message) {
				f.reported = true
				s.reactions.Add(t.Sub(f.seen.Time))
			}
			if f.kept == nil && t.After(f.seen.Time.Add(s.late)) && !w.is("True") {
				f.kept = w
			}
		}
	}
	s.pending = nil
	before := func(d time.Time) bool { return final || d.Before(next) }
	for _, f := range s.open {
		if !f.seenKnown && before(f.seen.Time) {
			f.seenKnown, f.atSeen = true, s.standing
			if w := s.standing; w.is("True") && strings.Contains(w.cond.Message, f.message) {
				f.reported = true
				s.reactions.Add(w.ev.Time.Sub(f.seen.Time))
			}
		}
		if !f.setKnown && before(f.seen.Time.Add(s.late)) {
			f.setKnown, f.atSet = true, s.standing
		}
		if f.clear != nil && !f.clearKnown && before(f.clear.Time.Add(s.late)) {
			f.clearKnown, f.atClear = true, s.standing
			// Every other fallback's end known by now came before this
			// deadline: those not over are outstanding at it.
			f.another = slices.ContainsFunc(s.open, func(g *shownFallback) bool { return g != f && g.clear == nil })
		}
	}
	if !final {
		s.settle()
	}
	s.at = next
}

// settle puts away the fallbacks whose every deadline has passed: those
// with a problem to show, whole; the others, as a count.
func (s *shown) settle() {
	s.open = slices.DeleteFunc(s.open, func(f *shownFallback) bool {
		if !f.clearKnown {
			return false
		}
		set := f.clear.Time.After(f.seen.Time.Add(s.late))
		ok008 := f.kept == nil && (!set || f.atSet.is("True") && strings.Contains(f.atSet.cond.Message, f.message))
		ok015 := f.another || f.atClear.is("False")
		switch {
		case !ok008 || !ok015:
			s.failed = append(s.failed, f)
		default:
			if set {
				s.judged[0]++
			}
			if !f.another {
				s.judged[1]++
			}
		}
		return true
	})
}

// unsettled are the fallbacks to judge at the end: those settled with a
// problem and those not settled, in the order the rules give them (by
// node, then as shown).
func (s *shown) unsettled() []*shownFallback {
	out := append(slices.Clone(s.failed), s.open...)
	slices.SortFunc(out, func(a, b *shownFallback) int {
		return cmp.Or(strings.Compare(a.node, b.node), cmp.Compare(a.order, b.order))
	})
	return out
}

func (f *shownFallback) what(j *judge.Judging) string {
	return fmt.Sprintf("%s fell back from revision %d at %s", f.node, f.failed, j.Offset(f.seen.Time))
}

// evidence is the mirror pod write at stake and the condition's write,
// if any, after the fallback's showing.
func (f *shownFallback) evidence(p timeline.Event, w *coWrite) []timeline.Event {
	out := []timeline.Event{f.seen, p}
	if w != nil {
		out = append(out, w.ev)
	}
	return out
}

// shownDegraded is STATICPOD-008 on a recording (Config.degraded).
func (c Config) shownDegraded(s *shown, j *judge.Judging) judge.Verdict {
	var v finding
	v.Judged = s.judged[0]
	for _, f := range s.unsettled() {
		what := f.what(j)
		set := c.shownSet(f, what, j, &v)
		if f.kept != nil {
			v.Fail(fmt.Sprintf("ClusterOperator/%s %s set to %s at %s, but the fallback (%s) was not over", clusterOperator, c.condition(), f.kept.status(), j.Offset(f.kept.ev.Time), what),
				f.evidence(f.seen, f.kept)...)
		}
		if set || f.kept != nil {
			v.Judged++
		}
	}
	out := v.verdict("no fallback reached the mirror pod in this run")
	if s.reactions.Count() > 0 {
		out.Measures = []reports.Measure{s.reactions.Measure("fallback shown to "+c.condition()+"=True", c.late())}
	}
	return out
}

// shownSet: when the mirror pod shows the fallback, the condition is True
// and carries the fallback message (Config.judgeSet). It tells whether it
// judged.
func (c Config) shownSet(f *shownFallback, what string, j *judge.Judging, v *finding) bool {
	set := f.seen.Time.Add(c.late())
	switch {
	case f.clear != nil && !f.clear.Time.After(set):
		return false // over before the condition was due: nothing owed
	case set.After(j.End):
		v.Skip(what + ": the run ended before the condition was due")
		return false
	}
	switch w := f.atSet; {
	case !w.is("True"):
		v.Fail(fmt.Sprintf("ClusterOperator/%s was not %s=True at %s, the reaction bound %s after the mirror pod showed that %s", clusterOperator, c.condition(), j.Offset(set), c.Reaction, what), f.evidence(f.seen, w)...)
	case !strings.Contains(w.cond.Message, f.message):
		v.Fail(fmt.Sprintf("ClusterOperator/%s %s message %q at %s does not carry the fallback message %q (%s)", clusterOperator, c.condition(), w.cond.Message, j.Offset(set), f.message, what), f.evidence(f.seen, w)...)
	}
	return true
}

// shownCleared is STATICPOD-015 on a recording (Config.degradedCleared).
func (c Config) shownCleared(s *shown, j *judge.Judging) judge.Verdict {
	var v finding
	v.Judged = s.judged[1]
	for _, f := range s.unsettled() {
		if f.clear == nil || f.another {
			continue // not over, or the condition stays True for another
		}
		what := f.what(j)
		at := f.clear.Time.Add(c.late())
		if at.After(j.End) {
			v.Skip(what + ": the run ended before the condition was due to clear")
			continue
		}
		v.Judged++
		if w := f.atClear; !w.is("False") {
			v.Fail(fmt.Sprintf("ClusterOperator/%s %s was %s at %s, but the fallback (%s) was over at %s", clusterOperator, c.condition(), w.status(), j.Offset(at), what, j.Offset(f.clear.Time)),
				f.evidence(*f.clear, w)...)
		}
	}
	return v.verdict("no fallback was over in this run")
}
