package record

import (
	"slices"
	"strconv"
	"time"

	"github.com/opcert/opcert/sim/timeline"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The watches of several kinds run side by side, so a write to one kind
// can arrive after a later write to another. The API server numbers every
// write of one etcd with one resourceVersion counter; Kubernetes calls the
// value opaque, but where two of them parse as numbers they compare as the
// order of the writes. So with more than one kind, the recorder holds each
// write briefly (reorderHold) and hands them on in resourceVersion order;
// a value that is not a number, or an event of the recorder itself (a
// gap, the start, the end), first hands on everything held, in the order
// it has. With one kind a watch is in resourceVersion order already and
// nothing is held.

// reorderHold is how long a write waits for an earlier one of another
// kind: far above the recorder's latency on a live server (milliseconds),
// far below any deadline a rule judges.
const reorderHold = 100 * time.Millisecond

// held is a write waiting to be handed on.
type held struct {
	e       timeline.Event
	obj     *unstructured.Unstructured
	rv      uint64
	arrived time.Time
}

// hold adds a write of obj, which left resourceVersion rv ("": none, as
// for the recorder's own events, which have no object), and hands on what
// is due. Callers hold r.mu.
func (r *Recorder) hold(e timeline.Event, obj *unstructured.Unstructured, rv string) error {
	n, err := strconv.ParseUint(rv, 10, 64)
	if len(r.opts.Recording.Kinds) < 2 || rv == "" || err != nil {
		if err := r.release(true); err != nil {
			return err
		}
		return r.emitLocked(e, obj)
	}
	at := r.opts.Now()
	i, _ := slices.BinarySearchFunc(r.held, n, func(h held, n uint64) int {
		switch {
		case h.rv < n:
			return -1
		case h.rv > n:
			return 1
		}
		return 0
	})
	r.held = slices.Insert(r.held, i, held{e: e, obj: obj, rv: n, arrived: at})
	if err := r.release(false); err != nil {
		return err
	}
	if len(r.held) > 0 && r.timer == nil {
		r.timer = time.AfterFunc(reorderHold, r.releaseDue)
	}
	return nil
}

// release hands on the held writes, in resourceVersion order, while the
// first has waited its time (all of them if all). Callers hold r.mu.
func (r *Recorder) release(all bool) error {
	cutoff := r.opts.Now().Add(-reorderHold)
	for len(r.held) > 0 && (all || !r.held[0].arrived.After(cutoff)) {
		h := r.held[0]
		r.held = r.held[1:]
		if err := r.emitLocked(h.e, h.obj); err != nil {
			return err
		}
	}
	return nil
}

// releaseDue runs when a write has waited its time and no later one came
// to hand it on.
func (r *Recorder) releaseDue() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timer = nil
	if err := r.release(false); err != nil && r.failed == nil {
		r.failed = err
	}
	if len(r.held) > 0 {
		r.timer = time.AfterFunc(reorderHold, r.releaseDue)
	}
}
