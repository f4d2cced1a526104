package record

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
	"time"
)

// FuzzOpen feeds any bytes to Open and both readers behind it (opcert's
// JSON lines, kubectl's -w -o json stream): no input panics, and what is
// read is events with an actor and a verb, numbered, never going back in
// time.
func FuzzOpen(f *testing.F) {
	for _, s := range []string{
		`{"seq":1,"time":"2026-01-01T00:00:00Z","actor":"a","verb":"start","object":{"kind":"Process","name":"a"}}`,
		`{"apiVersion":"config.openshift.io/v1","kind":"ClusterOperator","metadata":{"name":"etcd","resourceVersion":"5","managedFields":[{"manager":"op","operation":"Update","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{}}]},"status":{"conditions":[{"type":"Available","status":"True","message":"ok","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}
{"apiVersion":"config.openshift.io/v1","kind":"ClusterOperator","metadata":{"name":"etcd","resourceVersion":"6","managedFields":[{"manager":"detector","operation":"Update","subresource":"status","time":"2026-01-01T00:10:00Z"}]},"status":{"conditions":[{"type":"Available","status":"True","message":"Checking: ok","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`,
		`{"type":"DELETED","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}}`,
		`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","managedFields":[{"manager":"m","time":"bad"}]}}]}`,
		`{"apiVersion":"v1","kind":"X","metadata":{"name":"x","managedFields":"no"}}`,
		`{"verb":`, `{}`, `null`, ` `,
		`{"apiVersion":"config.openshift.io/v1","kind":"ClusterOperator","metadata":{"name":"etcd","resourceVersion":"5","managedFields":[{"manager":"op","operation":"Update","time":"2026-01-01T00:00:00+24:00"}]},"status":{"conditions":[{"type":"Available","status":"True","lastTransitionTime":"2026-01-01T00:00:00-24:00"}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		src, err := Open(bytes.NewReader(data), testRecording())
		if err != nil {
			return
		}
		var prev int
		var last time.Time
		for range 10_000 {
			e, err := src.Next()
			if err == io.EOF || err != nil {
				return
			}
			if e.Actor == "" || e.Verb == "" {
				t.Fatalf("event without an actor or a verb: %+v", e)
			}
			if _, err := json.Marshal(e); err != nil {
				t.Fatalf("an event opcert cannot write: %v", err)
			}
			if src.Format() == FormatKubectl && e.Seq != prev+1 {
				t.Fatalf("seq %d after %d", e.Seq, prev)
			}
			prev = e.Seq
			if e.Time.Before(last) {
				t.Fatalf("time goes back: %v after %v", e.Time, last)
			}
			last = e.Time
		}
	})
}
