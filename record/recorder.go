package record

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/opcert/opcert/redact"
	"github.com/opcert/opcert/sim/timeline"
)

// Options configure a Recorder.
type Options struct {
	// Config reaches the API server. The recorder only reads: wrap it with
	// ReadOnly to make sure of it.
	Config *rest.Config
	// Recording is the mechanism's: the kinds to watch, the fields to
	// record, the roles of field managers.
	Recording *Recording
	// Sink receives every event, numbered and in order, one at a time,
	// with the object as the write left it (as it was, for a delete; nil
	// for the recorder's own events); an error from it stops the
	// recording.
	Sink Sink
	// Now is the recorder's clock (time.Now if nil).
	Now func() time.Time
	// Ready, if set, is called once every kind is listed and the watches
	// start: from then on every write is seen.
	Ready func()
	// Namespace, if set, limits the namespaced kinds to that namespace:
	// what a user with rights in that namespace only may list and watch.
	Namespace string
	// Lost, if set, is told of each recording gap as it opens (the kind,
	// and why): a recording that has lost its cluster says so while it
	// waits for it.
	Lost func(kind, why string)
	// Resumed, if set, is told of each recording gap as it closes.
	Resumed func(kind string)
}

// Recorder records a live API server's writes to a mechanism's kinds.
type Recorder struct {
	opts     Options
	observer *Observer
	mu       sync.Mutex // guards observer, seq, last, held: kinds run concurrently
	seq      int
	last     time.Time
	// held are writes waiting for earlier ones of other kinds (merge.go);
	// timer hands them on; failed is the sink's error meanwhile.
	held   []held
	timer  *time.Timer
	failed error
	// For tests: breakWatch, when signalled, drops the kind's watch as a
	// server timeout does; rewatchRV then picks the resourceVersion the
	// next watch starts from (an expired one forces a 410).
	breakWatch chan struct{}
	rewatchRV  func(rv string) string
}

// New prepares a recorder; Run records.
func New(opts Options) (*Recorder, error) {
	if opts.Recording == nil || len(opts.Recording.Kinds) == 0 {
		return nil, errors.New("record: the mechanism names no kinds to record")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Recorder{opts: opts, observer: NewObserver(opts.Recording)}, nil
}

// now is the recorder's clock to the millisecond, as timelines keep it.
func (r *Recorder) now() time.Time { return r.opts.Now().UTC().Truncate(time.Millisecond) }

// Run lists every kind, records its objects as they are, then watches
// them until ctx is done, when it records the end and returns nil. It
// returns an error only when it cannot start (the server does not serve a
// kind) or the sink fails.
func (r *Recorder) Run(ctx context.Context) error {
	httpClient, err := rest.HTTPClientFor(r.opts.Config)
	if err != nil {
		return err
	}
	mapper, err := apiutil.NewDynamicRESTMapper(r.opts.Config, httpClient)
	if err != nil {
		return fmt.Errorf("discovering the API server's kinds: %w", err)
	}
	dyn, err := dynamic.NewForConfigAndClient(r.opts.Config, httpClient)
	if err != nil {
		return err
	}
	var kinds []kindWatch
	for _, gvk := range r.opts.Recording.Kinds {
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return fmt.Errorf("the API server at %s does not serve %s (%s): %w", redact.URLs(r.opts.Config.Host), gvk.Kind, gvk.GroupVersion(), err)
		}
		var res dynamic.ResourceInterface = dyn.Resource(m.Resource)
		if r.opts.Namespace != "" && m.Scope.Name() == meta.RESTScopeNameNamespace {
			res = dyn.Resource(m.Resource).Namespace(r.opts.Namespace)
		}
		kinds = append(kinds, kindWatch{gvk: gvk, res: res, name: kindName(gvk)})
	}
	all := KindNames(r.opts.Recording)
	if err := r.emit(timeline.Event{Time: r.now(), Actor: RecorderActor, Verb: timeline.VerbRecord,
		Object: timeline.ObjectRef{Kind: timeline.KindRecording, Name: all},
		Detail: fmt.Sprintf("listing and watching %s on %s", all, redact.URLs(r.opts.Config.Host))}); err != nil {
		return err
	}
	rvs := make([]string, len(kinds))
	for i, k := range kinds {
		if rvs[i], err = r.list(ctx, k, Listed); err != nil {
			if ctx.Err() != nil {
				break
			}
			return fmt.Errorf("listing %s: %w", k.name, err)
		}
	}
	if r.opts.Ready != nil && ctx.Err() == nil {
		r.opts.Ready()
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	var failed error // a kind's watch failed: the others stop too
	var once sync.Once
	for i, k := range kinds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.watch(ctx, k, rvs[i]); err != nil {
				once.Do(func() { failed = err })
				stop()
			}
		}()
	}
	wg.Wait()
	if failed != nil {
		return failed
	}
	r.mu.Lock()
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	r.mu.Unlock()
	return r.emit(timeline.Event{Time: r.now(), Actor: RecorderActor, Verb: timeline.VerbStop,
		Object: timeline.ObjectRef{Kind: timeline.KindRecording, Name: all}, Detail: "the recording ended"})
}

// kindWatch is one kind being recorded.
type kindWatch struct {
	gvk  schema.GroupVersionKind
	res  dynamic.ResourceInterface
	name string
}

// KindNames names the kinds rec records, as the recording's events do.
func KindNames(rec *Recording) string {
	names := make([]string, 0, len(rec.Kinds))
	for _, gvk := range rec.Kinds {
		names = append(names, kindName(gvk))
	}
	return strings.Join(names, ",")
}

// kindName is "Kind.group", the way kubectl names a resource's kind.
func kindName(gvk schema.GroupVersionKind) string {
	if gvk.Group == "" {
		return gvk.Kind
	}
	return gvk.Kind + "." + gvk.Group
}

// list records every object of k as it is now (how: Listed at the start,
// Relisted after a gap, when objects no longer there are recorded deleted)
// and returns the list's resourceVersion.
func (r *Recorder) list(ctx context.Context, k kindWatch, how Change) (string, error) {
	l, err := k.res.List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err
	}
	at := r.now()
	items := l.Items
	sort.Slice(items, func(i, j int) bool {
		a, b := Ref(&items[i]), Ref(&items[j])
		return compareRefs(a, b) < 0
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	keep := map[timeline.ObjectRef]bool{}
	for i := range items {
		obj := &items[i]
		obj.SetGroupVersionKind(k.gvk)
		keep[Ref(obj)] = true
		e, ok, err := r.observer.Observe(obj, how, at)
		if err != nil {
			return "", err
		}
		if ok {
			if err := r.hold(e, obj, obj.GetResourceVersion()); err != nil {
				return "", err
			}
		}
	}
	if how == Relisted {
		events, objs := r.observer.Forget(k.gvk.GroupKind(), keep, at)
		for i, e := range events {
			if err := r.hold(e, objs[i], ""); err != nil {
				return "", err
			}
		}
	}
	return l.GetResourceVersion(), nil
}

// watch follows k from resourceVersion rv until ctx is done. A watch the
// server ends (its timeout) is started again from the last version seen,
// which loses nothing; one that expires (410 Gone) or cannot be started
// again is a gap: the kind is listed again, and the span from the last
// instant the recorder knew it was current to the new list is marked.
func (r *Recorder) watch(ctx context.Context, k kindWatch, rv string) error {
	current := r.now() // the recorder has seen everything up to here
	first := true
	for ctx.Err() == nil {
		start := rv
		if !first && r.rewatchRV != nil {
			start = r.rewatchRV(rv)
		}
		first = false
		w, err := k.res.Watch(ctx, metav1.ListOptions{ResourceVersion: start, AllowWatchBookmarks: true})
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if rv, err = r.gap(ctx, k, current, "the watch could not start again: "+err.Error()); err != nil {
				return err
			}
			current = r.now()
			continue
		}
		why, err := r.follow(ctx, k, w, &rv, &current)
		w.Stop()
		if err != nil {
			return err
		}
		if why != "" && ctx.Err() == nil {
			if rv, err = r.gap(ctx, k, current, why); err != nil {
				return err
			}
			current = r.now()
		}
	}
	return nil
}

// follow records the events of one watch until it ends: why is "" when it
// ended cleanly (the server's timeout, or ctx), else what broke it.
func (r *Recorder) follow(ctx context.Context, k kindWatch, w watch.Interface, rv *string, current *time.Time) (why string, err error) {
	for {
		select {
		case <-ctx.Done():
			return "", nil
		case <-r.breakWatch:
			return "", nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return "", nil
			}
			switch ev.Type {
			case watch.Error:
				status := apierrors.FromObject(ev.Object)
				if apierrors.IsResourceExpired(status) || apierrors.IsGone(status) {
					return "the watch expired (410 Gone): " + status.Error(), nil
				}
				return "the watch failed: " + status.Error(), nil
			case watch.Bookmark:
				if obj, ok := ev.Object.(*unstructured.Unstructured); ok {
					*rv = obj.GetResourceVersion()
				}
				*current = r.now()
			case watch.Added, watch.Modified, watch.Deleted:
				obj, ok := ev.Object.(*unstructured.Unstructured)
				if !ok {
					return fmt.Sprintf("the watch sent a %T", ev.Object), nil
				}
				at := r.now()
				obj.SetGroupVersionKind(k.gvk)
				how := map[watch.EventType]Change{watch.Added: Added, watch.Modified: Modified, watch.Deleted: Deleted}[ev.Type]
				if err := r.observe(obj, how, at); err != nil {
					return "", err
				}
				*rv, *current = obj.GetResourceVersion(), at
			}
		}
	}
}

func (r *Recorder) observe(obj *unstructured.Unstructured, how Change, at time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok, err := r.observer.Observe(obj, how, at)
	if err != nil || !ok {
		return err
	}
	return r.hold(e, obj, obj.GetResourceVersion())
}

// gap marks a recording gap from since, lists k again, and returns the
// new list's resourceVersion. Listing is retried, with a growing pause,
// until it works or ctx is done.
func (r *Recorder) gap(ctx context.Context, k kindWatch, since time.Time, why string) (string, error) {
	ref := timeline.ObjectRef{Kind: timeline.KindRecording, Name: k.name}
	if err := r.emit(timeline.Event{Time: since, Actor: RecorderActor, Verb: timeline.VerbLost, Object: ref, Detail: why}); err != nil {
		return "", err
	}
	if r.opts.Lost != nil {
		r.opts.Lost(k.name, why)
	}
	pause := 200 * time.Millisecond
	for {
		rv, err := r.list(ctx, k, Relisted)
		if err == nil {
			if r.opts.Resumed != nil {
				r.opts.Resumed(k.name)
			}
			return rv, r.emit(timeline.Event{Time: r.now(), Actor: RecorderActor, Verb: timeline.VerbResumed, Object: ref,
				Detail: fmt.Sprintf("listed %s again at resourceVersion %s", k.name, rv)})
		}
		if isSinkError(err) {
			return "", err
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", nil
		case <-t.C:
		}
		pause = min(2*pause, 10*time.Second)
	}
}

// emit hands one of the recorder's own events to the sink, after every
// write held for ordering (merge.go).
func (r *Recorder) emit(e timeline.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hold(e, nil, "")
}

// emitLocked hands one event to the sink, numbered, its time never before
// the previous event's (the kinds' watches run side by side).
func (r *Recorder) emitLocked(e timeline.Event, obj *unstructured.Unstructured) error {
	if r.failed != nil {
		return r.failed
	}
	if e.Time.Before(r.last) {
		e.Time = r.last
	}
	r.last = e.Time
	r.seq++
	e.Seq = r.seq
	if err := r.opts.Sink(e, obj); err != nil {
		r.failed = sinkError{err}
		return r.failed
	}
	return nil
}

// sinkError is the sink's failure: it stops the recording.
type sinkError struct{ error }

func (e sinkError) Unwrap() error { return e.error }

func isSinkError(err error) bool {
	var s sinkError
	return errors.As(err, &s)
}

// ReadOnly returns a copy of cfg whose every request that is not a read
// (GET, HEAD, OPTIONS; a watch is a GET) fails before it leaves the
// process: a recorder of a live cluster must never write to it, whatever
// a client built on the config tries.
func ReadOnly(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.Wrap(func(rt http.RoundTripper) http.RoundTripper { return readOnly{rt} })
	return c
}

type readOnly struct{ next http.RoundTripper }

// ErrReadOnly is what a write through a ReadOnly config fails with.
var ErrReadOnly = errors.New("opcert records read-only: it refused to send a write to the API server")

func (t readOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return t.next.RoundTrip(req)
	}
	if req.Body != nil {
		_ = req.Body.Close()
	}
	return nil, fmt.Errorf("%w (%s %s)", ErrReadOnly, req.Method, req.URL.Path)
}

// Sink takes a recorder's events (Options.Sink).
type Sink func(e timeline.Event, obj *unstructured.Unstructured) error
