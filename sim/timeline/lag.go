package timeline

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"time"
)

// Lag measures how late a recording saw the writes it recorded: for each
// event with Written set, Time - Written. The API server keeps Written to
// the second, so a lag is the recorder's latency plus up to a second of
// truncation, plus the skew between the recorder's clock and the server's.
// Figures are kept in millisecond buckets up to a minute (and the exact
// extremes), so that measuring a long recording takes constant memory.
type Lag struct {
	n        int
	buckets  [lagBuckets]int
	min, max time.Duration
}

const lagBuckets = 60_000 // one per millisecond, the last holding a minute and more

// Add counts one event, if it is a recorded write.
func (l *Lag) Add(e Event) {
	if e.Written.IsZero() {
		return
	}
	d := e.Time.Sub(e.Written)
	if l.n == 0 || d < l.min {
		l.min = d
	}
	if l.n == 0 || d > l.max {
		l.max = d
	}
	l.n++
	l.buckets[max(0, min(int(d/time.Millisecond), lagBuckets-1))]++
}

// Count is the number of writes measured.
func (l *Lag) Count() int { return l.n }

// Min is the smallest lag measured.
func (l *Lag) Min() time.Duration { return l.min }

// Max is the largest lag measured.
func (l *Lag) Max() time.Duration { return l.max }

// Quantile is the nearest-rank q quantile, to the millisecond (a negative
// lag, the recorder's clock behind the server's, counts as zero).
func (l *Lag) Quantile(q float64) time.Duration {
	if l.n == 0 {
		return 0
	}
	rank := max(1, min(l.n, int(q*float64(l.n)+0.999999)))
	seen := 0
	for i, c := range l.buckets {
		if seen += c; seen >= rank {
			if i == lagBuckets-1 {
				return l.max
			}
			return time.Duration(i) * time.Millisecond
		}
	}
	return l.max
}

// Tolerance is the slack rules must allow on the deadlines they judge on
// this recording: two recorded instants can be off from the truth by the
// largest lag less the smallest (what the recorder's latency and the clock
// skew can do to an interval; a smallest above zero is not subtracted,
// since it may be latency), plus the second the server truncates. Zero for
// a timeline that is not a recording (no Written anywhere): virtual time
// is exact.
func (l *Lag) Tolerance() time.Duration {
	if l.n == 0 {
		return 0
	}
	t := max(l.max, 0) - min(l.min, 0) + time.Second
	return (t + time.Millisecond - 1).Truncate(time.Millisecond)
}

// ScanLag measures the lag of a timeline in opcert's JSON lines without
// decoding its events: the "time" and "written" of each line that has a
// "written". It reads in a fraction of the time a decoding takes, so that
// a long recording's tolerance is known before it is judged as it streams
// (judge.Stream.Tolerate).
func ScanLag(r io.Reader) (*Lag, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), maxLine+2)
	var l Lag
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		w, ok, err := timeField(b, `"written":`)
		if err != nil || !ok {
			if err != nil {
				return nil, fmt.Errorf("timeline line %d: %w", line, err)
			}
			continue
		}
		t, _, err := timeField(b, `"time":`)
		if err != nil {
			return nil, fmt.Errorf("timeline line %d: %w", line, err)
		}
		l.Add(Event{Time: t, Written: w})
	}
	return &l, sc.Err()
}

// timeField finds key at the top level of a line as WriteJSONL writes it
// and reads its time.
func timeField(b []byte, key string) (time.Time, bool, error) {
	i := bytes.Index(b, []byte(key+`"`))
	if i < 0 {
		return time.Time{}, false, nil
	}
	v := b[i+len(key):]
	end := bytes.IndexByte(v[1:], '"')
	if end < 0 {
		return time.Time{}, false, fmt.Errorf("%s: no closing quote", key)
	}
	var t time.Time
	if err := t.UnmarshalJSON(v[:end+2]); err != nil {
		return time.Time{}, false, fmt.Errorf("%s %w", key, err)
	}
	return t, true, nil
}
