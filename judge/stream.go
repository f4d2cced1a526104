package judge

import (
	"time"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// Online is one kind of a mechanism's facts (what Facts derives under Key)
// read one event at a time: a Stream feeds it every event and, at the end,
// hands its Facts to the rules, so that the events need not be kept.
type Online struct {
	// Key is what the facts are filed under, the Facts key their rules read.
	Key any
	// New returns a fresh Reader, one per stream.
	New func() Reader
	// Grows says what the readers keep grows with, when they keep, along
	// the timeline, the changes their rules look back along (each write of
	// the objects the rules read): the events are not held, but a longer
	// recording of such changes takes more memory (opcert analyze --help
	// says so). Empty: what they keep is bounded by the objects, not by
	// the events.
	Grows string
}

// Fold reads events with a new reader of o and returns its facts: what a
// rule's Facts derives in batch, so that a mechanism's facts are computed
// one way, whether the timeline is held or streams past.
func Fold[T any](o Online, events []timeline.Event) T {
	r := o.New()
	for _, e := range events {
		r.Read(e)
	}
	return r.Facts().(T)
}

// Reader derives facts from a timeline's events, in order.
type Reader interface {
	// Read takes the timeline's next event.
	Read(e timeline.Event)
	// Facts is what the rules get, under the Online's Key, once every
	// event has been read.
	Facts() any
}

// Rulebook is what judges one mechanism's timelines: its rules, the facts
// they read online, and the same rules given slack for a recording's lag.
type Rulebook struct {
	// Rules are the mechanism's rules.
	Rules []Rule
	// Online are the kinds of facts the rules read, each derived one event at a time.
	Online []Online
	// Tolerant is the rulebook with d of slack on its deadlines, as a
	// real-time recording needs (the recorder's latency, the API server's
	// second-truncated times); nil: its rules take none.
	Tolerant func(d time.Duration) Rulebook
}

// Stream judges a timeline as it streams past (opcert analyze, opcert
// watch): a rulebook with Online facts keeps only what its readers keep;
// one without keeps the events. Gaps, the EXPECT case and the recording's
// lag (the tolerance its rules are given) are read here for every
// mechanism.
type Stream struct {
	book    Rulebook
	readers []Reader
	events  []timeline.Event // only for a mechanism with no Online facts
	gaps    gapReader
	expect  ExpectTally
	lag     timeline.Lag
	// Start is the instant offsets count from: the first event's time
	// unless set before the first Add.
	Start time.Time
	// Strict judges strictly (Judging.Strict): the failures of convention
	// rules fail instead of warning.
	Strict bool
	last   time.Time
	count  int64
	// fixed says the tolerance was given ahead (Tolerate): judged is the
	// mechanism judged with it, whose readers may judge as events pass.
	fixed  bool
	tol    time.Duration
	judged Rulebook
}

// Streaming is what a Reader implements to learn, at the first event, that
// it reads a stream whose rules' tolerance is fixed (Tolerate) and where
// offsets count from: it may then judge as the events pass, keeping
// nothing of them.
type Streaming interface {
	// Streaming is told, before the first event, where the stream's offsets count from.
	Streaming(start time.Time)
}

// Tolerate fixes, before the first event, the tolerance the rules are
// given (the recording's, measured ahead with timeline.ScanLag), so that a
// mechanism's readers may judge online. Without it the tolerance is
// measured as events pass, and applied when the rules run at the end.
func (s *Stream) Tolerate(d time.Duration) {
	b := s.book
	if d > 0 && b.Tolerant != nil {
		b = b.Tolerant(d)
	}
	s.fixed, s.tol, s.judged = true, d, b
	s.readers = s.readers[:0]
	for _, o := range b.Online {
		s.readers = append(s.readers, o.New())
	}
}

// NewStream prepares to judge one timeline with b's rules.
func NewStream(b Rulebook) *Stream {
	s := &Stream{book: b}
	for _, o := range b.Online {
		s.readers = append(s.readers, o.New())
	}
	return s
}

// Add reads the next event.
func (s *Stream) Add(e timeline.Event) {
	if s.count == 0 {
		if s.Start.IsZero() {
			s.Start = e.Time
		}
		for _, r := range s.readers {
			if st, ok := r.(Streaming); ok && s.fixed {
				st.Streaming(s.Start)
			}
		}
	}
	s.count++
	s.last = e.Time
	s.gaps.read(e)
	s.expect.Read(e)
	s.lag.Add(e)
	if len(s.readers) == 0 {
		s.events = append(s.events, e)
		return
	}
	for _, r := range s.readers {
		r.Read(e)
	}
}

// Count is the number of events read.
func (s *Stream) Count() int64 { return s.count }

// Last is the time of the last event read.
func (s *Stream) Last() time.Time { return s.last }

// Lag is the recording's lag (zero for a timeline that is not one).
func (s *Stream) Lag() *timeline.Lag { return &s.lag }

// Tolerance is the slack the rules are given: the recording's (given
// ahead, or measured), zero for a virtual timeline.
func (s *Stream) Tolerance() time.Duration {
	if s.fixed {
		return s.tol
	}
	return s.lag.Tolerance()
}

// Judge judges what was read as a timeline that covers time up to end,
// with the tolerance the recording needs (the rulebook's Tolerant), and
// returns its cases, the scenario's expectations last.
func (s *Stream) Judge(end time.Time) ([]reports.Case, []Gap) {
	b := s.book
	switch tol := s.Tolerance(); {
	case s.fixed:
		b = s.judged
	case tol > 0 && b.Tolerant != nil:
		b = b.Tolerant(tol)
	}
	j := &Judging{Events: s.events, End: end, Start: s.Start, Gaps: s.gaps.upTo(end), Strict: s.Strict, facts: map[any]any{}}
	for i, o := range b.Online {
		j.facts[o.Key] = s.readers[i].Facts()
	}
	return append(JudgeWith(b.Rules, j), s.expect.Result()), j.Gaps
}
