package sim

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/sim/timeline"
)

// sink collects what one batch group did: its events, and the writes whose
// watchers must be woken once the batch is over.
type sink struct {
	events []timeline.Event
	writes []written
	// fault, if set, fails the run once the batch is over (stamps.go).
	fault error
}

// written is one successful write, kept for the watchers: a copy of the
// object as the write left it (as it was, for a delete), since a watch's Map
// runs after the batch, when the writer may have changed its own copy.
type written struct {
	storeKey
	obj client.Object
}

type sinkKey struct{}

func withSink(ctx context.Context, s *sink) context.Context {
	return context.WithValue(ctx, sinkKey{}, s)
}

// record files an event, and the writes it stands for, with the batch group
// whose context ctx is; outside Run, straight on the timeline, waking the
// watchers at once. Called during a batch without a group's context, it
// cannot know the event's place, and counts a stray that fails the batch.
func (s *Scheduler) record(ctx context.Context, e timeline.Event, writes ...written) {
	if sk, ok := ctx.Value(sinkKey{}).(*sink); ok {
		sk.events = append(sk.events, e)
		sk.writes = append(sk.writes, writes...)
		return
	}
	if s.inBatch.Load() {
		s.strays.Add(1)
	}
	s.timeline.Append(e)
	s.notify(ctx, writes)
}
