package timeline

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzReadJSONL feeds ReadJSONL arbitrary input. It must never panic, it
// must name the line of what it rejects, and what it accepts must survive
// WriteJSONL and ReadJSONL unchanged, its serialization included.
func FuzzReadJSONL(f *testing.F) {
	var valid bytes.Buffer
	if err := sampleTimeline().WriteJSONL(&valid); err != nil {
		f.Fatal(err)
	}
	f.Add(valid.Bytes())
	f.Add([]byte(""))
	f.Add([]byte("\n\r\n\n"))
	for _, broken := range []string{
		`{"actor":"a","verb":`,                              // cut short
		`{"actor":"a","verb":"start","colour":"x"}`,         // unknown field
		`{"time":"2026-01-01T00:00:00Z","verb":"start"}`,    // no actor
		`{"actor":"a","verb":"x"} {"actor":"b","verb":"y"}`, // two on a line
		`{"time":"2026-01-01T00:00:00Z","actor":"a","verb":"v"}` + "\n" + `{"time":"2025-12-31T23:59:59Z","actor":"a","verb":"v"}`,
		`{"time":"2026-01-01T01:00:00+01:00","actor":"a","verb":"v"}` + "\n" + `{"time":"2026-01-01T00:00:00Z","actor":"a","verb":"v"}`,
		`{"time":"0000-01-01T00:00:00+23:59","actor":"a","verb":"v","seq":-5}`,
		`{"actor":"a","verb":"v","conditions":[]}`,
		`{"actor":"a","verb":"v","conditions":[{"type":"A","before":null,"after":{"type":"A","status":"True","lastTransitionTime":null}}]}`,
		"{\"actor\":\"a\",\"verb\":\"v\",\"detail\":\"\xff\xfe bad utf-8 \\ud800\"}",
		`{"ACTOR":"a","Verb":"v","Object":{"KIND":"K","name":"n"}}`,
		`{"actor":"a","verb":"v","seq":1e3}`,
		`{"time":"2026-01-01T00:00:01.5Z","actor":"a","verb":"update","detail":"\"written\":\"x\"","written":"2026-01-01T00:00:00Z"}`,
		`{"actor":"a","verb":"update","object":{"kind":"K","group":"g","name":"n"},"fields":[{"path":"p","before": { "b" : 1e3 , "a":[ ] },"after":null}]}`,
		`{"actor":"a","verb":"rename","object":{"kind":"File","namespace":"n","name":"/a"},"target":"/b","fields":[{"path":"p","after":"<\u2028>"},{"path":""}]}`,
		`{"actor":"a","verb":"v","fields":[{"path":"p","before":}]}`,
		`null`,
		`   `,
		valid.String() + `{"actor":"late","verb":"v","time":"2000-01-01T00:00:00Z"}`,
	} {
		f.Add([]byte(broken))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		tl, err := ReadJSONL(bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "timeline line ") {
				t.Fatalf("error does not name the line: %v", err)
			}
			if tl != nil {
				t.Fatalf("a timeline came back with error %v", err)
			}
			return
		}
		first := tl.Events()
		if lines := bytes.Count(data, []byte("\n")) + 1; len(first) > lines {
			t.Fatalf("%d events from %d lines", len(first), lines)
		}
		for i, e := range first {
			if e.Seq != i+1 || e.Actor == "" || e.Verb == "" {
				t.Fatalf("event %d accepted as %+v", i+1, e)
			}
			if i > 0 && e.Time.Before(first[i-1].Time) {
				t.Fatalf("event %d goes back in time: %v before %v", i+1, e.Time, first[i-1].Time)
			}
		}

		var out bytes.Buffer
		if err := tl.WriteJSONL(&out); err != nil {
			t.Fatalf("WriteJSONL of an accepted timeline: %v", err)
		}
		// analyze measures a recording's lag ahead with ScanLag, without
		// decoding: on what WriteJSONL writes it must agree with the events.
		var lag Lag
		for _, e := range first {
			lag.Add(e)
		}
		scanned, err := ScanLag(bytes.NewReader(out.Bytes()))
		if err != nil || scanned.Count() != lag.Count() || scanned.Tolerance() != lag.Tolerance() {
			t.Fatalf("ScanLag: %v, %d writes (tolerance %s); the events: %d (tolerance %s)", err, scanned.Count(), scanned.Tolerance(), lag.Count(), lag.Tolerance())
		}
		back, err := ReadJSONL(bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatalf("ReadJSONL of WriteJSONL's output: %v\n%s", err, out.String())
		}
		if err := sameEvents(first, back.Events()); err != nil {
			t.Fatalf("round trip changed the events: %v", err)
		}
		var again bytes.Buffer
		if err := back.WriteJSONL(&again); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), again.Bytes()) {
			t.Fatalf("serialization not stable:\n%s\nthen\n%s", out.String(), again.String())
		}
	})
}
