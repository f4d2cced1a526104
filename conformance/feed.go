package conformance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/record"
	"github.com/opcert/opcert/sim/timeline"
)

// Who names the writer of a write a real-time run did not make (obj as
// the write left it, with the run's names), over the recorder's reading of
// it (field manager, Recording.Role), before it is filed.
type Who func(ctx context.Context, obj client.Object, e *timeline.Event)

// Feed records, in real time, the kinds of rec on a real-time run's API
// server, and files on the run's scheduler every write its own actors did
// not make (sim.Scheduler.Observe), as the recorder reads it, then as who
// names its writer (nil: as the recorder reads it): a process's writes by
// the user the API server authenticated (Processes.Attribute). It is the
// recorder of opcert watch, with the scheduler as its sink: a watch that
// expires is a recording gap on the run's timeline, as on a recording.
//
// Feed returns once every kind is listed, so that what exists is the
// run's starting state, filed as the recorder's (created before the
// recording began: no one is judged for it); the watches then run beside
// the run (Stage.Go) until it ends.
func Feed(ctx context.Context, st *Stage, rec *record.Recording, who Who) error {
	return feed(ctx, st, rec, "", func(ctx context.Context) record.Sink { return filer(ctx, st, who, false) })
}

// FeedListed is Feed where who also names the writer of what the
// recording finds when it starts: a team's operators, running before the
// run as they must, wrote the objects they own, and what is asked of those
// objects during the run is theirs to answer.
func FeedListed(ctx context.Context, st *Stage, rec *record.Recording, who Who) error {
	return feed(ctx, st, rec, "", func(ctx context.Context) record.Sink { return filer(ctx, st, who, true) })
}

// FeedNamespace is Feed limited to the namespaced objects of one
// namespace (Options.Namespace), whose events it hands to the sink that
// sink makes with the run's background context, instead of filing them
// by their names: a mechanism that files a team namespace's objects under
// its scenario's names (cluster mode) does so there, through
// Scheduler.ObserveEvent. A recording gap is handed to the sink too.
func FeedNamespace(ctx context.Context, st *Stage, rec *record.Recording, namespace string, sink func(context.Context) record.Sink) error {
	return feed(ctx, st, rec, namespace, sink)
}

func feed(ctx context.Context, st *Stage, rec *record.Recording, namespace string, sink func(context.Context) record.Sink) error {
	if st.Config == nil || !st.Sched.Realtime() {
		return errors.New("record: feeding a run's scheduler needs a real-time run on an API server")
	}
	if rec == nil || len(rec.Kinds) == 0 {
		return errors.New("record: the mechanism names no kinds to record")
	}
	ready := make(chan struct{})
	failed := make(chan error, 1)
	st.Go(func(ctx context.Context) {
		r, err := record.New(record.Options{Config: st.Config, Recording: rec, Namespace: namespace, Sink: sink(ctx), Ready: func() { close(ready) }})
		if err == nil {
			err = r.Run(ctx)
		}
		select {
		case <-ready:
		default:
			failed <- err // it could not start: Feed says why
			return
		}
		if err != nil {
			// Nothing more is filed: the rest of the run is a gap, not
			// judged, rather than a silence held against the subjects.
			st.Sched.ObserveEvent(ctx, timeline.Event{Time: time.Now().UTC().Truncate(time.Millisecond), Actor: record.RecorderActor,
				Verb: timeline.VerbLost, Object: timeline.ObjectRef{Kind: timeline.KindRecording, Name: record.KindNames(rec)},
				Detail: "the recording of the run's API server stopped: " + err.Error()})
		}
	})
	select {
	case <-ready:
		return nil
	case err := <-failed:
		if err == nil {
			err = ctx.Err()
		}
		return err
	}
}

// filer is Feed's sink: the run's scheduler, with the objects in the
// run's types.
func filer(ctx context.Context, st *Stage, who Who, listed bool) record.Sink {
	scheme := st.API.Scheme()
	return func(e timeline.Event, obj *unstructured.Unstructured) error {
		switch {
		case obj == nil && (e.Verb == timeline.VerbLost || e.Verb == timeline.VerbResumed):
			st.Sched.ObserveEvent(ctx, e)
			return nil
		case obj == nil:
			return nil // the recording's start and end: the run has its own
		}
		gvk := obj.GroupVersionKind()
		// A kind without a Go type in the run's scheme (a CRD's, such as
		// seed 004's SampleCluster) is held unstructured, as the run's
		// actors hold it.
		var typed client.Object = obj
		if scheme.Recognizes(gvk) {
			o, err := scheme.New(gvk)
			if err != nil {
				return fmt.Errorf("record: %s: %w", gvk.Kind, err)
			}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, o); err != nil {
				return fmt.Errorf("record: reading %s %s: %w", gvk.Kind, obj.GetName(), err)
			}
			typed = o.(client.Object)
		}
		var name Who
		if who != nil && (listed || e.Actor != record.RecorderActor) {
			name = who // a listed object was written before the run: no one's, unless listed says whose
		}
		st.Sched.Observe(ctx, gvk, typed, e, name)
		return nil
	}
}
