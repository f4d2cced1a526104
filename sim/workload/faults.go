package workload

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Faults a scenario injects. Each takes effect at the scheduler's current
// instant, within the call: the workloads it touches are synced at once
// with ctx (the scenario step's context, so their writes take their place
// on the timeline), and woken again when their pods next change. Pods a
// fault touches stay where they are, counted but not ready, until undone
// or replaced by a rolling update; the controllers do not replace them
// (a failed or lost pod is the scenario's to end).

// Stick keeps the pods of a workload (of any kind, by name) whose
// LabelVersion is version from ever getting ready: new ones start Running
// but stay Ready=False, the operand that never reaches version (for
// seed 001, a component that cannot reach the new version and hangs the
// upgrade: 001 §What should an operator report, guarantees to components
// 2). Pods already ready stay so.
func (c *Controller) Stick(ctx context.Context, namespace, workload, version string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stuck[versionKey{namespace, workload, version}] = true
	return c.resync(ctx, func(k workloadKey) bool { return k.Namespace == namespace && k.Name == workload })
}

// Unstick undoes Stick: the stuck pods get ready now if their time to get
// ready has passed, else when it comes.
func (c *Controller) Unstick(ctx context.Context, namespace, workload, version string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.stuck, versionKey{namespace, workload, version})
	return c.resync(ctx, func(k workloadKey) bool { return k.Namespace == namespace && k.Name == workload })
}

// HoldNode makes node one that never updates: no new pod goes to it, and
// the pods on it are never replaced by a rolling update (a DaemonSet's,
// a StatefulSet's ordinal there, wait; a Deployment's go elsewhere). For
// seed 001, the component installed to all nodes that must judge "some
// reasonable percentage" (001 §What should an operator report, honored by
// components 1).
func (c *Controller) HoldNode(ctx context.Context, node string) error {
	return c.hold(ctx, node, true)
}

// ReleaseNode undoes HoldNode: the rollouts it held carry on now.
func (c *Controller) ReleaseNode(ctx context.Context, node string) error {
	return c.hold(ctx, node, false)
}

func (c *Controller) hold(ctx context.Context, node string, held bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !slices.Contains(c.nodes, node) {
		return fmt.Errorf("no node %q: the nodes are %v", node, c.nodes)
	}
	if held {
		c.held[node] = true
	} else {
		delete(c.held, node)
	}
	return c.resync(ctx, func(workloadKey) bool { return true })
}

// FailPod makes a pod fail: phase Failed, Ready False.
func (c *Controller) FailPod(ctx context.Context, namespace, name string) error {
	return c.setFault(ctx, namespace, name, failed)
}

// LosePod makes a pod's node stop reporting it: phase Unknown, Ready
// Unknown.
func (c *Controller) LosePod(ctx context.Context, namespace, name string) error {
	return c.setFault(ctx, namespace, name, lost)
}

// RecoverPod brings back a failed or lost pod: Running at once, Ready
// after its workload's time to get ready (a stuck version's never).
func (c *Controller) RecoverPod(ctx context.Context, namespace, name string) error {
	return c.setFault(ctx, namespace, name, healthy)
}

func (c *Controller) setFault(ctx context.Context, namespace, name string, f fault) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range slices.SortedFunc(maps.Keys(c.pods), compareKeys) {
		r, ok := c.pods[k][name]
		if k.Namespace != namespace || !ok {
			continue
		}
		switch {
		case f != healthy:
			r.life.fault = f
		case r.life.fault == healthy:
			return fmt.Errorf("pod %s/%s is neither failed nor lost: nothing to recover", namespace, name)
		default:
			r.life = life{readyAt: c.sched.Now().Add(r.readyAfter), restarted: true}
		}
		return c.resync(ctx, func(o workloadKey) bool { return o == k })
	}
	return fmt.Errorf("no pod %s/%s: the workload controller made none of that name", namespace, name)
}

// resync syncs the known workloads that match, in order, and wakes each
// when its pods next change. The caller holds c.mu.
func (c *Controller) resync(ctx context.Context, match func(workloadKey) bool) error {
	for _, k := range slices.SortedFunc(maps.Keys(c.known), compareKeys) {
		if !match(k) {
			continue
		}
		next, err := c.sync(ctx, k)
		if err != nil {
			return err
		}
		if !next.IsZero() {
			c.sched.Enqueue(c.name, request(k), next)
		}
	}
	return nil
}

func compareKeys(a, b workloadKey) int { return strings.Compare(a.String(), b.String()) }
