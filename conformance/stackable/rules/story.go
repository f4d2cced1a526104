package rules

import (
	"maps"
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// story is one cluster's part of the timeline: its events (the cluster's
// writes and those of the workloads and pods labelled with its name) and
// the scene after each, numbered from the story's first event. Only a
// window of it is kept (from base on): what a rule may still read, the
// events of the last reaction bound and those of the changes whose
// deadline has not come (stream.go trims the rest).
type story struct {
	ref    timeline.ObjectRef
	base   int // the number of events[0]
	events []timeline.Event
	after  []scene
	// cur is the scene after the last event (empty before the first).
	cur scene
}

// next is the number the story's next event gets.
func (s *story) next() int { return s.base + len(s.events) }

// ev is the story's event i, which the window holds.
func (s *story) ev(i int) timeline.Event { return s.events[i-s.base] }

// at is the scene after the story's event i, which the window holds.
func (s *story) at(i int) scene { return s.after[i-s.base] }

// before is the scene just before the story's event i (i-1 in the
// window, or i the first).
func (s *story) before(i int) scene {
	if i == 0 {
		return scene{}
	}
	return s.at(i - 1)
}

// last is the number of the story's last event from i on at or before t
// (before t when !inclusive), or i-1 when there is none; i is in the
// window, or the window's start.
func (s *story) last(i int, t time.Time, inclusive bool) int {
	for i < s.next() && (s.ev(i).Time.Before(t) || inclusive && s.ev(i).Time.Equal(t)) {
		i++
	}
	return i - 1
}

// cut drops the window's events before i.
func (s *story) cut(i int) {
	k := i - s.base
	// Copied when most of it goes, so that what was dropped is freed.
	s.events = append([]timeline.Event(nil), s.events[k:]...)
	s.after = append([]scene(nil), s.after[k:]...)
	s.base = i
}

// add appends e to the story and the scene it leaves, and returns its
// number.
func (s *story) add(e timeline.Event) int {
	sc := s.cur
	gone := e.Verb == timeline.VerbDelete
	switch {
	case isCluster(e.Object):
		if gone {
			sc.cluster = nil
			break
		}
		var c cluster
		if sc.cluster != nil && e.Verb != timeline.VerbCreate {
			c = *sc.cluster
		}
		c = c.with(e)
		sc.cluster = &c
	case isWorkload(e.Object):
		sc.workloads = maps.Clone(sc.workloads)
		if sc.workloads == nil {
			sc.workloads = map[timeline.ObjectRef]workload{}
		}
		if gone {
			delete(sc.workloads, e.Object)
			break
		}
		sc.workloads[e.Object] = sc.workloads[e.Object].with(e)
	case isPod(e.Object):
		sc.pods = maps.Clone(sc.pods)
		if sc.pods == nil {
			sc.pods = map[timeline.ObjectRef]pod{}
		}
		if gone {
			delete(sc.pods, e.Object)
			break
		}
		sc.pods[e.Object] = sc.pods[e.Object].with(e)
	}
	s.events = append(s.events, e)
	s.after = append(s.after, sc)
	s.cur = sc
	return s.next() - 1
}

// adopt puts into the story's scene, as they stand, a workload or pod
// written before the story's cluster was: its label named a cluster not
// yet seen.
func (s *story) adopt(ref timeline.ObjectRef, o orphan) {
	if o.pod {
		s.cur.pods = maps.Clone(s.cur.pods)
		if s.cur.pods == nil {
			s.cur.pods = map[timeline.ObjectRef]pod{}
		}
		s.cur.pods[ref] = o.p
		return
	}
	s.cur.workloads = maps.Clone(s.cur.workloads)
	if s.cur.workloads == nil {
		s.cur.workloads = map[timeline.ObjectRef]workload{}
	}
	s.cur.workloads[ref] = o.w
}

// orphan is a workload or pod labelled with a cluster's name that no
// cluster seen so far has, as it stands.
type orphan struct {
	instance string // its instance label
	pod      bool
	w        workload
	p        pod
}

// with is the orphan after e.
func (o orphan) with(e timeline.Event) orphan {
	if o.pod {
		o.p = o.p.with(e)
		o.instance = o.p.labels[labelInstance]
	} else {
		o.w = o.w.with(e)
		o.instance = o.w.labels[labelInstance]
	}
	return o
}
