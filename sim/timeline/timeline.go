package timeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
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

// Events returns a copy of the events recorded so far.
func (t *Timeline) Events() []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Event(nil), t.events...)
}

// WriteJSONL writes one event per line.
func (t *Timeline) WriteJSONL(w io.Writer) error {
	enc := json.NewEncoder(w)
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
	sc := bufio.NewScanner(r)
	// Room for the line and a "\r\n": the scanner fails only past that, and
	// the length check below is exact.
	sc.Buffer(make([]byte, 64*1024), maxLine+2)
	line := 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) > maxLine {
			return nil, tooLong(line)
		}
		if len(sc.Bytes()) == 0 {
			continue
		}
		var e Event
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("timeline line %d: %w", line, err)
		}
		if _, err := dec.Token(); err != io.EOF {
			return nil, fmt.Errorf("timeline line %d: more than one event on the line", line)
		}
		if e.Actor == "" || e.Verb == "" {
			return nil, fmt.Errorf("timeline line %d: event needs an actor and a verb", line)
		}
		if n := len(t.events); n > 0 && e.Time.Before(t.events[n-1].Time) {
			return nil, fmt.Errorf("timeline line %d: time %s goes back before %s", line, e.Time, t.events[n-1].Time)
		}
		t.Append(e)
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, tooLong(line + 1)
	} else if err != nil {
		return nil, fmt.Errorf("timeline line %d: %w", line+1, err)
	}
	return t, nil
}

func tooLong(line int) error {
	return fmt.Errorf("timeline line %d: longer than %d MiB, the most a line may hold; is this a timeline (one JSON event per line)?", line, maxLine>>20)
}
