package process

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Lost events (Sieve's unobserved states): while LoseEvents is on, the
// watch events the API server streams to the process are dropped in the
// proxy; the process's caches keep the state they had. When it is turned
// off, the process's watch streams are closed, and a watch that resumes
// from a resourceVersion older than an event it lost is answered as the
// API server answers a watch from a compacted resourceVersion: an ERROR
// event, 410 Expired. Its informer then lists again and learns the state
// as it is now: the states in between, it never sees.
//
// The proxy reads the events, so a watch is asked for in JSON (a client
// that asked for protobuf or CBOR decodes the JSON the answer says it
// is). resourceVersions are compared as numbers: the API server opcert
// runs is etcd's, whose resourceVersions are its revisions; one that is
// not a number is taken as older than any.

// stream is a watch the proxy forwards.
type stream struct {
	path string // the collection watched; its lost events are counted by it
	// initial is true while a watch that asked for its initial events
	// (a watch-list: client-go's informers) sends them: they are the
	// state as it is, a list, not notifications, and pass.
	initial bool
	cancel  context.CancelFunc
}

type streamKey struct{}

// LoseEvents turns the dropping of the process's watch events on or off
// (above).
func (p *Proxy) LoseEvents(on bool) {
	p.mu.Lock()
	was := p.lose
	p.lose = on
	var open []*stream
	if was && !on {
		for s := range p.streams {
			open = append(open, s)
		}
	}
	p.mu.Unlock()
	for _, s := range open {
		s.cancel() // the stream ends; its watcher comes back with its resourceVersion
	}
}

// isWatch tells whether r asks for a watch.
func isWatch(r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	w := r.URL.Query().Get("watch")
	return w == "true" || w == "1"
}

// asJSON makes a watch request ask for JSON, uncompressed: of the media
// types it accepts, the JSON ones (client-go's clientsets accept protobuf
// first, then JSON), else JSON.
func asJSON(r *http.Request) {
	r.Header.Del("Accept-Encoding")
	var kept []string
	for _, t := range strings.Split(r.Header.Get("Accept"), ",") {
		if strings.Contains(t, "json") {
			kept = append(kept, strings.TrimSpace(t))
		}
	}
	if len(kept) == 0 {
		kept = []string{"application/json"}
	}
	r.Header.Set("Accept", strings.Join(kept, ", "))
}

// serveWatch forwards a watch, or answers it 410 Expired if it resumes
// from before an event the process lost.
func (p *Proxy) serveWatch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s := &stream{path: r.URL.Path, initial: q.Get("sendInitialEvents") == "true"}
	if rv := q.Get("resourceVersion"); !s.initial && p.expired(s.path, rv) {
		expired(w, rv)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	s.cancel = cancel
	p.mu.Lock()
	p.streams[s] = struct{}{}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.streams, s)
		p.mu.Unlock()
	}()
	p.rp.ServeHTTP(w, r.WithContext(context.WithValue(ctx, streamKey{}, s)))
}

// expired tells whether a watch of path from resourceVersion rv would
// bring events the process lost: rv is older than the newest one dropped
// there. rv "" and "0" start from the state as it is.
func (p *Proxy) expired(path, rv string) bool {
	if rv == "" || rv == "0" {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	lost, ok := p.lost[path]
	if !ok || p.lose {
		return false
	}
	n, err := strconv.ParseUint(rv, 10, 64)
	return err != nil || n < lost
}

// expired answers a watch with the API server's answer to a watch from a
// compacted resourceVersion.
func expired(w http.ResponseWriter, rv string) {
	st := apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %s", rv)).ErrStatus
	st.Kind, st.APIVersion = "Status", "v1"
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(struct {
		Type   string `json:"type"`
		Object any    `json:"object"`
	}{"ERROR", st})
}

// event is what the proxy reads of a watch event.
type event struct {
	Type   string `json:"type"`
	Object struct {
		Metadata struct {
			ResourceVersion string            `json:"resourceVersion"`
			Annotations     map[string]string `json:"annotations"`
		} `json:"metadata"`
	} `json:"object"`
}

// initialEventsEnd marks the bookmark that ends a watch-list's initial
// events.
const initialEventsEnd = "k8s.io/initial-events-end"

// filter puts the events of a watch's answer through drop, as they come.
// A stream that ends (the API server's end, the client's, or LoseEvents
// turned off) ends the answer where an event ends.
func (p *Proxy) filter(s *stream, res *http.Response) {
	if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("Content-Type"), "json") {
		return
	}
	body := res.Body
	pr, pw := io.Pipe()
	res.Body = pr
	go func() {
		defer body.Close()
		defer pw.Close()
		dec := json.NewDecoder(body)
		for {
			var raw json.RawMessage
			if dec.Decode(&raw) != nil {
				return
			}
			var e event
			if json.Unmarshal(raw, &e) != nil {
				return
			}
			if p.drop(s, &e) {
				continue
			}
			if _, err := pw.Write(append(raw, '\n')); err != nil {
				return
			}
		}
	}()
}

// drop tells whether e is lost, and counts it lost on its path. ERROR
// events pass (they end the stream); bookmarks are lost too, so that a
// watcher does not resume past what it lost.
func (p *Proxy) drop(s *stream, e *event) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.initial {
		if e.Type == "BOOKMARK" && e.Object.Metadata.Annotations[initialEventsEnd] == "true" {
			s.initial = false
		}
		return false
	}
	if !p.lose || e.Type == "ERROR" {
		return false
	}
	if n, err := strconv.ParseUint(e.Object.Metadata.ResourceVersion, 10, 64); err == nil && n > p.lost[s.path] {
		p.lost[s.path] = n
	}
	if _, ok := p.lost[s.path]; !ok {
		p.lost[s.path] = 0 // an event lost: the path's watches from any resourceVersion but a number expire
	}
	return true
}
