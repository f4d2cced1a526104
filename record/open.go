package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/opcert/opcert/sim/timeline"
)

// Formats Open tells apart.
const (
	FormatJSONL   = "opcert-jsonl"       // opcert's timeline, one event per line
	FormatKubectl = "kubectl-watch-json" // kubectl get KIND -w -o json [--output-watch-events]
)

// Source is a captured timeline read one event at a time.
type Source interface {
	// Next returns the next event, or io.EOF after the last.
	Next() (timeline.Event, error)
	// Format names the format the source reads: FormatJSONL or FormatKubectl.
	Format() string
}

// maxValue bounds one JSON value of a kubectl stream (an object with its
// managedFields, conditions and messages of 32 KiB each), as the JSONL
// reader bounds a line.
const maxValue = 16 << 20

// Open reads a captured timeline from r, telling the format from its first
// JSON value: an event (it has "verb") is opcert's JSON lines; an object
// (it has "apiVersion" and "kind"), a watch event ("type" and "object") or
// a list is the stream kubectl prints with -w -o json. rec is the
// mechanism's Recording, which maps field managers to roles for a kubectl
// stream. Nothing is read past the first value before Next is called.
func Open(r io.Reader, rec *Recording) (Source, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var seen bytes.Buffer
	dec := json.NewDecoder(io.TeeReader(io.LimitReader(br, maxValue), &seen))
	var first map[string]json.RawMessage
	err := dec.Decode(&first)
	replay := io.MultiReader(&seen, br)
	switch {
	case err == io.EOF:
		return jsonl{timeline.NewDecoder(replay)}, nil // empty: an empty timeline
	case err != nil:
		return nil, fmt.Errorf("neither an opcert timeline nor a kubectl -o json stream: the first value does not parse: %w", err)
	case first["verb"] != nil:
		return jsonl{timeline.NewDecoder(replay)}, nil
	case first["apiVersion"] != nil && first["kind"] != nil, first["type"] != nil && first["object"] != nil:
		return newKubectl(replay, rec), nil
	}
	return nil, errors.New(`neither an opcert timeline (events with "verb") nor a kubectl -o json stream (objects with "apiVersion" and "kind", or watch events with "type" and "object")`)
}

type jsonl struct{ d *timeline.Decoder }

func (j jsonl) Next() (timeline.Event, error) { return j.d.Next() }
func (jsonl) Format() string                  { return FormatJSONL }

// kubectl reads the concatenated JSON values `kubectl get KIND -w -o json`
// prints: full objects, one per version (or, with --output-watch-events,
// {"type": ..., "object": ...}, which also says which were deletions;
// a List's items count as versions too). Each version is diffed against
// the one before it of the same object (Observer). A version's time is
// the newest managedFields entry that changed, to the second: kubectl
// prints no other clock, so the stream must carry managedFields (kubectl
// leaves them out unless given --show-managed-fields). Times never go
// back: a version whose entry is older than the previous event's time is
// recorded at that time.
type kubectl struct {
	dec     *json.Decoder
	obs     *Observer
	pending []timeline.Event
	last    time.Time
	seq     int
	values  int
}

func newKubectl(r io.Reader, rec *Recording) *kubectl {
	b := &bounded{r: r}
	k := &kubectl{dec: json.NewDecoder(b), obs: NewObserver(rec)}
	b.dec = k.dec
	return k
}

// bounded fails a read once the decoder holds more than maxValue bytes of
// one value: a stream with no end to a value is not buffered without end.
type bounded struct {
	r   io.Reader
	n   int64
	dec *json.Decoder
}

func (b *bounded) Read(p []byte) (int, error) {
	if b.n-b.dec.InputOffset() > maxValue {
		return 0, fmt.Errorf("a value longer than %d MiB: is this a kubectl -o json stream?", maxValue>>20)
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	return n, err
}

func (*kubectl) Format() string { return FormatKubectl }

// value is one JSON value of the stream, as any of its shapes.
type value struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Type       string            `json:"type"`
	Object     json.RawMessage   `json:"object"`
	Items      []json.RawMessage `json:"items"`
}

func (k *kubectl) Next() (timeline.Event, error) {
	for len(k.pending) == 0 {
		var raw json.RawMessage
		if err := k.dec.Decode(&raw); err != nil {
			if err == io.EOF {
				return timeline.Event{}, io.EOF
			}
			return timeline.Event{}, fmt.Errorf("kubectl stream value %d: %w", k.values+1, err)
		}
		k.values++
		if len(raw) > maxValue {
			return timeline.Event{}, fmt.Errorf("kubectl stream value %d: longer than %d MiB", k.values, maxValue>>20)
		}
		if err := k.value(raw); err != nil {
			return timeline.Event{}, fmt.Errorf("kubectl stream value %d: %w", k.values, err)
		}
	}
	e := k.pending[0]
	k.pending = k.pending[1:]
	return e, nil
}

// value turns one value of the stream into events.
func (k *kubectl) value(raw json.RawMessage) error {
	var v value
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	switch {
	case v.Type != "" && v.Object != nil:
		how, ok := map[string]Change{"ADDED": Added, "MODIFIED": Modified, "DELETED": Deleted}[v.Type]
		if !ok {
			return fmt.Errorf("watch event type %q: want ADDED, MODIFIED or DELETED", v.Type)
		}
		return k.object(v.Object, how)
	case v.Items != nil || (len(v.Kind) > 4 && v.Kind[len(v.Kind)-4:] == "List"):
		for _, item := range v.Items {
			if err := k.object(item, Modified); err != nil {
				return err
			}
		}
		return nil
	case v.APIVersion != "" && v.Kind != "":
		return k.object(raw, Modified)
	}
	return errors.New(`not a Kubernetes object ("apiVersion", "kind"), a watch event ("type", "object") or a list ("items")`)
}

func (k *kubectl) object(raw json.RawMessage, how Change) error {
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(raw); err != nil {
		return err
	}
	if obj.GetName() == "" {
		return errors.New("an object without metadata.name")
	}
	entries, err := managedFields(obj)
	if err != nil {
		return err
	}
	if len(entries) == 0 && how != Deleted {
		return fmt.Errorf("%s has no metadata.managedFields, the only clock and writer a kubectl stream carries: capture with kubectl get -w -o json --show-managed-fields", Ref(obj))
	}
	ref := Ref(obj)
	prev := k.obs.last[ref]
	if prev != nil && prev.obj.GetResourceVersion() == obj.GetResourceVersion() && how != Deleted {
		return nil // the same version printed again (kubectl's first list after a reconnect)
	}
	at := k.last
	var written time.Time
	if how != Deleted {
		if w, ok := writer(prevEntries(prev), entries, nil, nil); ok {
			written = w.Time
			at = latest(at, w.Time)
		}
	}
	if prev == nil && how == Modified {
		how = Added // a bare stream's first version of an object: its creation or its state when kubectl began
	}
	e, ok, err := k.obs.Observe(obj, how, at)
	if err != nil || !ok {
		return err
	}
	if !e.Written.Equal(at) || !written.Equal(at) {
		// Held back so as not to go back in time: its lag says nothing
		// of how late kubectl printed it, so it is not measured.
		e.Written = time.Time{}
	}
	k.last = at
	k.seq++
	e.Seq = k.seq
	k.pending = append(k.pending, e)
	return nil
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
