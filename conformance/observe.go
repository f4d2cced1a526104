package conformance

import (
	"context"
	"fmt"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// Attribute names who made a write the scheduler did not make (process
// mode: the process that owns the object), from the object as written.
type Attribute func(key types.NamespacedName, obj client.Object) (actor, role string)

// rewatchAfter spaces the attempts to watch again after a watch fails.
const rewatchAfter = 200 * time.Millisecond

// ListedActor is who the timeline says wrote an object that was on the API
// server before the run began (a team's ClusterOperator on a cluster): it
// is filed as created at the run's start, so that rules see the state the
// run began from and judge no one for it.
const ListedActor = "cluster"

// ObserveKind lists one kind on the run's API server now (what exists is
// the starting state, filed as created by ListedActor, not as anyone's
// write) and returns the loop that then watches
// it, to run beside the run (Stage.Go): every write the run's own actors
// did not make goes to the real-time scheduler (sim.Scheduler.Observe),
// its condition changes taken against the last version seen, attributed
// by attr. list is an empty list of the kind (a *ClusterOperatorList). A
// watch that ends is started again from the last version seen; one that
// cannot be is listed again.
func ObserveKind(ctx context.Context, api client.WithWatch, sched *sim.Scheduler, gvk schema.GroupVersionKind, list client.ObjectList, attr Attribute) (func(context.Context), error) {
	last := map[types.NamespacedName]client.Object{}
	relist := func(ctx context.Context) (string, error) {
		l := list.DeepCopyObject().(client.ObjectList)
		if err := api.List(ctx, l); err != nil {
			return "", err
		}
		items, _ := meta.ExtractList(l)
		for _, it := range items {
			o := it.(client.Object)
			last[client.ObjectKeyFromObject(o)] = o
		}
		return l.GetResourceVersion(), nil
	}
	rv, err := relist(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", gvk.Kind, err)
	}
	for _, key := range sortedKeys(last) {
		obj := last[key]
		if _, ours := sched.Local(gvk, obj); ours {
			sched.Observe(ctx, gvk, obj, timeline.Event{Time: time.Now(), Actor: ListedActor, Verb: timeline.VerbCreate,
				Object: timeline.ObjectRef{Kind: gvk.Kind, Group: gvk.Group}, Detail: "on the API server before the run began",
				Conditions: timeline.Diff(nil, sim.Conditions(obj))})
		}
	}
	return func(ctx context.Context) {
		for ctx.Err() == nil {
			if rv == "" {
				if rv, err = relist(ctx); err != nil {
					wait(ctx, rewatchAfter)
					continue
				}
			}
			w, err := api.Watch(ctx, list.DeepCopyObject().(client.ObjectList), &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: rv}})
			if err != nil {
				rv = ""
				wait(ctx, rewatchAfter)
				continue
			}
			for ev := range w.ResultChan() {
				rv = observe(ctx, sched, gvk, ev, last, attr, rv)
			}
			w.Stop()
		}
	}, nil
}

// observe hands one watch event to the scheduler and returns the resource
// version to watch from next ("" to list again).
func observe(ctx context.Context, sched *sim.Scheduler, gvk schema.GroupVersionKind, ev watch.Event, last map[types.NamespacedName]client.Object, attr Attribute, rv string) string {
	obj, ok := ev.Object.(client.Object)
	switch {
	case ev.Type == watch.Error:
		return ""
	case !ok || ev.Type == watch.Bookmark:
		return rv
	}
	key := client.ObjectKeyFromObject(obj)
	before := last[key]
	verb := verbOf(ev.Type, before, obj)
	var after runtime.Object = obj
	if ev.Type == watch.Deleted {
		delete(last, key)
		after = nil
	} else {
		last[key] = obj
	}
	if local, ours := sched.Local(gvk, obj); ours {
		actor, role := attr(local, obj)
		sched.Observe(ctx, gvk, obj, timeline.Event{Time: time.Now(), Actor: actor, Role: role, Verb: verb,
			Object:     timeline.ObjectRef{Kind: gvk.Kind, Group: gvk.Group},
			Conditions: timeline.Diff(sim.Conditions(before), sim.Conditions(after))})
	}
	return obj.GetResourceVersion()
}

// verbOf names a watched change as the simulator's client names writes:
// a change that leaves the spec and metadata generation alone is a status
// write.
func verbOf(t watch.EventType, before, after client.Object) string {
	switch {
	case t == watch.Added || before == nil:
		return timeline.VerbCreate
	case t == watch.Deleted:
		return timeline.VerbDelete
	case before.GetGeneration() == after.GetGeneration():
		return timeline.VerbUpdateStatus
	}
	return timeline.VerbUpdate
}

func wait(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

func sortedKeys(m map[types.NamespacedName]client.Object) []types.NamespacedName {
	keys := make([]types.NamespacedName, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	return keys
}
