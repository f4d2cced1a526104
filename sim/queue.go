package sim

import (
	"container/heap"
	"context"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// item is one unit of work: a reconcile of one request by one actor, or a
// scenario step (fn set).
type item struct {
	at        time.Time
	seq       int64
	actor     string
	req       reconcile.Request
	fn        func(context.Context) error
	cancelled bool
}

type pendingKey struct {
	actor string
	req   reconcile.Request
}

// itemHeap orders items by time, then by the order they were queued.
type itemHeap []*item

func (h itemHeap) Len() int { return len(h) }
func (h itemHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h itemHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *itemHeap) Push(x any)   { *h = append(*h, x.(*item)) }
func (h *itemHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// peek returns the earliest live item, dropping cancelled ones.
func (h *itemHeap) peek() *item {
	for h.Len() > 0 {
		if it := (*h)[0]; !it.cancelled {
			return it
		}
		heap.Pop(h)
	}
	return nil
}
