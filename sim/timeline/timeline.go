package timeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/opcert/opcert/visible"
)

// Timeline is the ordered record of one run of one scenario.
type Timeline struct {
	mu     sync.Mutex
	events []Event
}

// Append adds events in order, numbering them.
func (t *Timeline) Append(events ...Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range events {
		e.Seq = len(t.events) + 1
		t.events = append(t.events, e)
	}
}

// SortByTime puts the events in time order, keeping the order of those at
// the same instant, and numbers them again: a real-time run files writes
// seen on the API server as they are seen and its own as they were sent,
// so it appends them out of order, and a timeline is read in time order.
func (t *Timeline) SortByTime() {
	t.mu.Lock()
	defer t.mu.Unlock()
	slices.SortStableFunc(t.events, func(a, b Event) int { return a.Time.Compare(b.Time) })
	for i := range t.events {
		t.events[i].Seq = i + 1
	}
}

// Events returns a copy of the events recorded so far.
func (t *Timeline) Events() []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Event(nil), t.events...)
}

// WriteJSONL writes one event per line, hidden characters (a C1 control,
// a bidi override in a message) as \u escapes that read back the same
// (visible.JSON).
func (t *Timeline) WriteJSONL(w io.Writer) error {
	enc := json.NewEncoder(visible.JSONWriter(w))
	for _, e := range t.Events() {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return nil
}

// maxLine is the longest line ReadJSONL reads, without its line ending. An
// event carries at most a few conditions before and after a write, each
// message at most 32 KiB as Kubernetes holds them; 16 MiB leaves room for
// any object a timeline records and stops a stream with no newline from
// being buffered without end.
const maxLine = 16 << 20

// ReadJSONL parses a timeline written by WriteJSONL (or captured from a
// cluster in the same format). Errors name the line.
func ReadJSONL(r io.Reader) (*Timeline, error) {
	t := &Timeline{}
	d := NewDecoder(r)
	for {
		e, err := d.Next()
		if err == io.EOF {
			return t, nil
		}
		if err != nil {
			return nil, err
		}
		t.Append(e)
	}
}

// Decoder reads a timeline one event at a time, so that a long one is
// judged without being held (opcert analyze): memory is one line.
type Decoder struct {
	sc   *bufio.Scanner
	fast *fastDecoder
	line int
	last time.Time
	seen bool
}

// NewDecoder reads JSON lines from r.
func NewDecoder(r io.Reader) *Decoder {
	sc := bufio.NewScanner(r)
	// Room for the line and a "\r\n": the scanner fails only past that, and
	// the length check below is exact.
	sc.Buffer(make([]byte, 64*1024), maxLine+2)
	return &Decoder{sc: sc, fast: newFastDecoder()}
}

// Line is the number of the line the last event came from.
func (d *Decoder) Line() int { return d.line }

// Next returns the next event, io.EOF after the last one, or an error that
// names the line. Seq is as the line gives it.
func (d *Decoder) Next() (Event, error) {
	for d.sc.Scan() {
		d.line++
		b := d.sc.Bytes()
		if len(b) > maxLine {
			return Event{}, tooLong(d.line)
		}
		if len(b) == 0 {
			continue
		}
		e, err := d.fast.decode(b)
		if err == nil && (e.Actor == "" || e.Verb == "") {
			err = errSlow // for decodeLine to say what is missing
		}
		if err == errSlow {
			e, err = decodeLine(b)
		}
		if err == nil {
			err = writableTimes(e)
		}
		if err != nil {
			return Event{}, fmt.Errorf("timeline line %d: %w", d.line, err)
		}
		if d.seen && e.Time.Before(d.last) {
			return Event{}, fmt.Errorf("timeline line %d: time %s goes back before %s", d.line, e.Time, d.last)
		}
		d.last, d.seen = e.Time, true
		return e, nil
	}
	if err := d.sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return Event{}, tooLong(d.line + 1)
	} else if err != nil {
		return Event{}, fmt.Errorf("timeline line %d: %w", d.line+1, err)
	}
	return Event{}, io.EOF
}

// decodeLine reads one event strictly: no unknown field, one value, an
// actor and a verb.
func decodeLine(b []byte) (Event, error) {
	var e Event
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return Event{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return Event{}, errors.New("more than one event on the line")
	}
	if e.Actor == "" || e.Verb == "" {
		return Event{}, errors.New("event needs an actor and a verb")
	}
	return e, nil
}

// writableTimes refuses a time that RFC 3339 parsing takes but JSON
// cannot write back: a zone offset of 24 hours or more ("+24:00"). An
// accepted timeline must be one opcert can write again.
func writableTimes(e Event) error {
	times := []time.Time{e.Time, e.Written}
	for _, c := range e.Conditions {
		for _, side := range []*Condition{c.Before, c.After} {
			if side != nil {
				times = append(times, side.LastTransitionTime)
			}
		}
	}
	for _, t := range times {
		if _, off := t.Zone(); off <= -24*3600 || off >= 24*3600 {
			return fmt.Errorf("time %s has a zone offset of 24 hours or more", t.Format(time.RFC3339))
		}
	}
	return nil
}

func tooLong(line int) error {
	return fmt.Errorf("timeline line %d: longer than %d MiB, the most a line may hold; is this a timeline (one JSON event per line)?", line, maxLine>>20)
}
