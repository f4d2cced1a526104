package timeline

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"testing"
)

// slowDecode is what the fast path must agree with: encoding/json, strict.
func slowDecode(b []byte) (Event, error) {
	var e Event
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return Event{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return Event{}, io.ErrUnexpectedEOF
	}
	return e, nil
}

// FuzzFastDecode holds the fast path to encoding/json: whatever line it
// reads, encoding/json reads too, to the same event.
func FuzzFastDecode(f *testing.F) {
	var valid bytes.Buffer
	if err := sampleTimeline().WriteJSONL(&valid); err != nil {
		f.Fatal(err)
	}
	for _, line := range bytes.Split(valid.Bytes(), []byte("\n")) {
		f.Add(line)
	}
	for _, s := range []string{
		`{"seq":1,"time":"2026-01-01T00:00:00Z","actor":"a","verb":"v","detail":"say \"True\"\n\u00e9\/"}`,
		`{"seq":-0,"actor":"a","verb":"v"}`, `{"seq":01,"actor":"a","verb":"v"}`, `{"seq":1e3}`,
		`{"actor":"a","actor":"b","verb":"v"}`, `{"object":{"kind":"A"},"object":{"name":"n"}}`,
		`{"conditions":[]}`, `{"conditions":[{"type":"A","before":{},"after":{"type":"A","lastTransitionTime":"2026-01-01T00:00:00+01:00"}}]}`,
		`{"failed":true,"written":"2026-01-01T00:00:00.123Z"}`, "{\"detail\":\"\xff\"}", `{"detail":"\ud800"}`, ` {} `, `{}x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		fast, err := newFastDecoder().decode(line)
		if err != nil {
			if err != errSlow {
				t.Fatalf("the fast path failed with %v, not errSlow", err)
			}
			return
		}
		slow, err := slowDecode(line)
		if err != nil {
			t.Fatalf("the fast path read %q, encoding/json refuses it: %v", line, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q:\nfast %+v\nslow %+v", line, fast, slow)
		}
	})
}
