package judge

import (
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// Joint is a mechanism's rules judging one timeline together, one event
// at a time: what it holds is what the rules found so far and what a
// later event can still change, not the events, so that batch judging is
// the same fold as a stream's.
type Joint interface {
	// Ends tells, before the first event, where a timeline held whole
	// ends: a change owed after it is not judged. A stream's end is
	// known only when it is judged.
	Ends(end time.Time)
	// Read folds the next event in, keeping of it only what a rule can
	// still read.
	Read(e timeline.Event)
	// Verdicts are the rules' verdicts, in their order, on the timeline
	// read so far ending at end. It is asked once for each end.
	Verdicts(end time.Time) []Verdict
}

// Jointly is a mechanism's rules judged in one fold (a Joint) with their
// configuration: it gives the rules' Checks their verdicts (Verdicts, the
// i-th rule's the i-th), and the stream the reader that folds the events
// as they pass (Online), so that no mechanism writes that plumbing again.
// The configuration's type keys the facts, so two mechanisms' folds never
// meet.
type Jointly[C comparable] struct {
	// Config is the rules' configuration: a fold made with another is
	// not theirs.
	Config C
	// Open starts the fold with offsets counted from start.
	Open func(c C, start time.Time) Joint
	// Grows is Online.Grows.
	Grows string
}

// Rules gives each of rules, in order, its Check: the i-th verdict of the
// fold.
func (jt Jointly[C]) Rules(rules ...Rule) []Rule {
	for i := range rules {
		rules[i].Check = func(j *Judging) Verdict { return jt.Verdicts(j)[i] }
	}
	return rules
}

// Online is the rules' reader of a stream (Stream): it folds the events as
// they pass once the stream says where offsets count from (Streaming, a
// stream whose tolerance was given ahead), and keeps them otherwise.
func (jt Jointly[C]) Online() Online {
	return Online{Key: keptKey[C]{}, New: func() Reader { return &jointReader[C]{jt: jt} }, Grows: jt.Grows}
}

// Verdicts are the rules' verdicts on j: its reader's fold, made as the
// events passed with this configuration, or the events folded now.
func (jt Jointly[C]) Verdicts(j *Judging) []Verdict {
	f := Facts(j, foldKey[C]{jt.Config}, func([]timeline.Event) *folded[C] {
		k := Facts(j, keptKey[C]{}, func(events []timeline.Event) kept[C] { return kept[C]{events: events} })
		if k.fold != nil && k.fold.c == jt.Config && k.fold.start.Equal(j.Start) {
			return k.fold
		}
		f := jt.open(j.Start)
		f.Ends(j.End)
		for _, e := range k.events {
			f.Read(e)
		}
		return f
	})
	return f.verdicts(j.End)
}

func (jt Jointly[C]) open(start time.Time) *folded[C] {
	return &folded[C]{Joint: jt.Open(jt.Config, start), c: jt.Config, start: start}
}

// folded is a fold with what it was opened with, and its verdicts once
// asked (a fold ends once).
type folded[C comparable] struct {
	Joint
	c     C
	start time.Time
	end   time.Time
	done  []Verdict
}

func (f *folded[C]) verdicts(end time.Time) []Verdict {
	if f.done == nil || !f.end.Equal(end) {
		f.end, f.done = end, f.Verdicts(end)
	}
	return f.done
}

// keptKey is the key of what a stream's reader kept among a judging's
// facts; foldKey that of the fold with one configuration.
type (
	keptKey[C comparable] struct{}
	foldKey[C comparable] struct{ c C }
)

// kept is what a reader kept: the fold as the events passed, or, when it
// could not fold them as they passed, the events.
type kept[C comparable] struct {
	fold   *folded[C]
	events []timeline.Event
}

// jointReader is Jointly's Online reader.
type jointReader[C comparable] struct {
	jt     Jointly[C]
	fold   *folded[C]
	events []timeline.Event
}

// Streaming starts folding as the events pass.
func (r *jointReader[C]) Streaming(start time.Time) { r.fold = r.jt.open(start) }

func (r *jointReader[C]) Read(e timeline.Event) {
	if r.fold != nil {
		r.fold.Read(e)
		return
	}
	r.events = append(r.events, e)
}

func (r *jointReader[C]) Facts() any { return kept[C]{fold: r.fold, events: r.events} }
