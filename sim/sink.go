package sim

import (
	"context"

	"github.com/opcert/opcert/sim/timeline"
)

// sink collects what one batch group did: its events, and the writes whose
// watchers must be woken once the batch is over.
type sink struct {
	events []timeline.Event
	writes []storeKey
}

type sinkKey struct{}

func withSink(ctx context.Context, s *sink) context.Context {
	return context.WithValue(ctx, sinkKey{}, s)
}

// record files an event with the batch being run, or straight on the
// timeline when called outside Run.
func record(ctx context.Context, tl *timeline.Timeline, e timeline.Event) {
	if s, ok := ctx.Value(sinkKey{}).(*sink); ok {
		s.events = append(s.events, e)
		return
	}
	tl.Append(e)
}

// recordWrite files a write event and remembers to wake the watchers.
func recordWrite(ctx context.Context, tl *timeline.Timeline, e timeline.Event, w storeKey, wake func([]storeKey)) {
	if s, ok := ctx.Value(sinkKey{}).(*sink); ok {
		s.events = append(s.events, e)
		s.writes = append(s.writes, w)
		return
	}
	tl.Append(e)
	wake([]storeKey{w})
}
