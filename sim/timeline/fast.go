package timeline

import (
	"errors"
	"strconv"
	"time"
	"unicode/utf8"
)

// A fast path for reading events: encoding/json reads a typical event (four
// conditions before and after a write, about 1.5 KB) in tens of
// microseconds, too slow for a million-event recording (opcert analyze's
// target is 10 s). fastDecode reads the lines WriteJSONL writes, in the
// shape it writes them (lowercase keys, each once, no nulls, no registered
// fields), and gives up on anything else with errSlow, for encoding/json to
// read (and to word the error if the line is wrong). Where it succeeds it
// gives what encoding/json gives: FuzzFastDecode holds the two to it.
// Repeated strings (actors, kinds, names, messages) and times are shared
// across lines, which also keeps what the rules hold of a long timeline
// small.

var errSlow = errors.New("not on the fast path")

// fastDecoder carries what lines share: strings and parsed times.
type fastDecoder struct {
	strs  map[string]string
	times map[string]time.Time
}

// maxShared bounds the shared strings and times: past it they start anew,
// so that a timeline of ever new messages does not grow them without end.
const maxShared = 1 << 16

func newFastDecoder() *fastDecoder {
	return &fastDecoder{strs: map[string]string{}, times: map[string]time.Time{}}
}

// scan is one line being read.
type scan struct {
	b []byte
	i int
	d *fastDecoder
}

func (d *fastDecoder) decode(b []byte) (Event, error) {
	s := scan{b: b, d: d}
	var e Event
	err := s.object(func(key []byte) error {
		switch string(key) {
		case "seq":
			n, err := s.int()
			e.Seq = n
			return err
		case "time":
			t, err := s.time()
			e.Time = t
			return err
		case "written":
			t, err := s.time()
			e.Written = t
			return err
		case "actor":
			return s.str(&e.Actor)
		case "role":
			return s.str(&e.Role)
		case "verb":
			return s.str(&e.Verb)
		case "target":
			return s.str(&e.Target)
		case "detail":
			return s.str(&e.Detail)
		case "failed":
			return s.bool(&e.Failed)
		case "object":
			return s.object(func(k []byte) error {
				switch string(k) {
				case "kind":
					return s.str(&e.Object.Kind)
				case "group":
					return s.str(&e.Object.Group)
				case "namespace":
					return s.str(&e.Object.Namespace)
				case "name":
					return s.str(&e.Object.Name)
				}
				return errSlow
			})
		case "conditions":
			e.Conditions = make([]ConditionChange, 0, 4) // a ClusterOperator's usual four
			return s.array(func() error {
				var c ConditionChange
				var sides *[2]Condition // both sides in one allocation
				err := s.object(func(k []byte) error {
					if sides == nil {
						sides = new([2]Condition)
					}
					switch string(k) {
					case "type":
						return s.str(&c.Type)
					case "before":
						c.Before = &sides[0]
						return s.condition(c.Before)
					case "after":
						c.After = &sides[1]
						return s.condition(c.After)
					}
					return errSlow
				})
				e.Conditions = append(e.Conditions, c)
				return err
			})
		}
		return errSlow
	})
	if err != nil {
		return Event{}, err
	}
	s.space()
	if s.i != len(s.b) {
		return Event{}, errSlow
	}
	return e, nil
}

func (s *scan) condition(c *Condition) error {
	return s.object(func(k []byte) error {
		switch string(k) {
		case "type":
			return s.str(&c.Type)
		case "status":
			return s.str(&c.Status)
		case "reason":
			return s.str(&c.Reason)
		case "message":
			return s.str(&c.Message)
		case "lastTransitionTime":
			t, err := s.time()
			c.LastTransitionTime = t
			return err
		}
		return errSlow
	})
}

func (s *scan) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scan) expect(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// object reads {"key": value, ...}, each key once, field reading a value.
func (s *scan) object(field func(key []byte) error) error {
	if !s.expect('{') {
		return errSlow
	}
	if s.expect('}') {
		return nil
	}
	var seen [16][]byte // an event's object has at most 11 keys
	n := 0
	for {
		s.space()
		key, err := s.raw()
		if err != nil {
			return err
		}
		for _, k := range seen[:n] {
			if string(k) == string(key) {
				return errSlow // encoding/json merges repeated objects: leave it to it
			}
		}
		if n == len(seen) {
			return errSlow
		}
		seen[n], n = key, n+1
		if !s.expect(':') {
			return errSlow
		}
		s.space()
		if err := field(key); err != nil {
			return err
		}
		if s.expect(',') {
			continue
		}
		if s.expect('}') {
			return nil
		}
		return errSlow
	}
}

func (s *scan) array(elem func() error) error {
	if !s.expect('[') {
		return errSlow
	}
	if s.expect(']') {
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		if s.expect(',') {
			continue
		}
		if s.expect(']') {
			return nil
		}
		return errSlow
	}
}

// raw reads a string with no escape and valid UTF-8, returning its bytes
// in the line; anything else is errSlow... unless it has escapes, which
// str handles.
func (s *scan) raw() ([]byte, error) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, errSlow
	}
	start := s.i + 1
	ascii := true
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			if !ascii && !utf8.Valid(s.b[start:j]) {
				return nil, errSlow
			}
			return s.b[start:j], nil
		case c == '\\' || c < 0x20:
			return nil, errSlow
		case c >= 0x80:
			ascii = false
		}
	}
	return nil, errSlow
}

// str reads a string value into *dst, shared with earlier lines.
func (s *scan) str(dst *string) error {
	start := s.i
	b, err := s.raw()
	if err == errSlow && s.i == start {
		b, err = s.unescape()
	}
	if err != nil {
		return err
	}
	*dst = s.d.share(b)
	return nil
}

// unescape reads a string with escapes (messages quote: \"True\"), as
// encoding/json would, giving up on surrogates and bad UTF-8.
func (s *scan) unescape() ([]byte, error) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, errSlow
	}
	var out []byte
	for j := s.i + 1; j < len(s.b); j++ {
		c := s.b[j]
		switch {
		case c == '"':
			if !utf8.Valid(out) {
				return nil, errSlow
			}
			s.i = j + 1
			return out, nil
		case c < 0x20:
			return nil, errSlow
		case c != '\\':
			out = append(out, c)
			continue
		}
		if j+1 >= len(s.b) {
			return nil, errSlow
		}
		j++
		switch s.b[j] {
		case '"', '\\', '/':
			out = append(out, s.b[j])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if j+4 >= len(s.b) {
				return nil, errSlow
			}
			r, err := strconv.ParseUint(string(s.b[j+1:j+5]), 16, 32)
			if err != nil || (r >= 0xD800 && r <= 0xDFFF) {
				return nil, errSlow
			}
			out = utf8.AppendRune(out, rune(r))
			j += 4
		default:
			return nil, errSlow
		}
	}
	return nil, errSlow
}

func (d *fastDecoder) share(b []byte) string {
	if v, ok := d.strs[string(b)]; ok {
		return v
	}
	if len(d.strs) >= maxShared {
		clear(d.strs)
	}
	v := string(b)
	d.strs[v] = v
	return v
}

// time reads a time as time.Time's UnmarshalJSON does (RFC 3339).
func (s *scan) time() (time.Time, error) {
	start := s.i
	b, err := s.raw()
	if err != nil {
		return time.Time{}, err
	}
	if t, ok := s.d.times[string(b)]; ok {
		return t, nil
	}
	var t time.Time
	if err := t.UnmarshalJSON(s.b[start:s.i]); err != nil {
		return time.Time{}, errSlow
	}
	if len(s.d.times) >= maxShared {
		clear(s.d.times)
	}
	s.d.times[string(b)] = t
	return t, nil
}

func (s *scan) int() (int, error) {
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	digits := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	if s.i == digits || (s.b[digits] == '0' && s.i-digits > 1) {
		return 0, errSlow
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return 0, errSlow
	}
	n, err := strconv.Atoi(string(s.b[start:s.i]))
	if err != nil {
		return 0, errSlow
	}
	return n, nil
}

func (s *scan) bool(dst *bool) error {
	switch {
	case len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "true":
		*dst, s.i = true, s.i+4
	case len(s.b)-s.i >= 5 && string(s.b[s.i:s.i+5]) == "false":
		*dst, s.i = false, s.i+5
	default:
		return errSlow
	}
	return nil
}
