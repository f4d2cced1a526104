package staleoperator

import (
	"context"
	"fmt"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The planted bugs (Options.Bug): four ways a team really gets an operator
// wrong, each in code that reads well and passes every stale built-in
// scenario as it is. Only a perturbation finds them (opcert's perturb
// steps and apiErrors); each is named with the one that does in Bugs and
// in README.md. The operator without a bug (Bug "") survives all four.

// Bug names a planted bug and says what it is.
type Bug struct {
	// Name is what Options.Bug and --bug take.
	Name string
	// Summary is the bug in one line, with what finds it.
	Summary string
}

// Bugs are the planted bugs, as --help lists them.
var Bugs = []Bug{
	{"memory", "the instance that creates the ClusterOperator owes it its report, and only it knows (memory lost by a crash right after the create)"},
	{"edge", "acts on what changed since the last version it saw (misses a challenge that comes back in the event of its own answer)"},
	{"stale-cache", "takes the event after its own write for that write and works from its own copy (misses a change that comes with it)"},
	{"conflict", "on a conflict applies its report to the latest version, counting the write twice (then takes every challenge for an old one)"},
}

// CheckBug tells whether name is a planted bug ("" is none).
func CheckBug(name string) error {
	if name == "" {
		return nil
	}
	var names []string
	for _, b := range Bugs {
		if b.Name == name {
			return nil
		}
		names = append(names, b.Name)
	}
	return fmt.Errorf("no bug %q; bugs: %s", name, strings.Join(names, ", "))
}

// bugged is what the planted bugs keep in memory.
type bugged struct {
	// memory: the report a ClusterOperator this instance created is owed.
	owed bool
	// edge: the conditions at the last look, nil before the first.
	prev []configv1.ClusterOperatorStatusCondition
	// stale-cache: the object the last status write returned, and how
	// many events of its own writes are still to come.
	copy *configv1.ClusterOperator
	ours int
	// conflict: how many events of its status writes are still to come,
	// and the resourceVersion the last one left.
	expected int
	lastRV   string
}

// sync is one reconcile of the bugged operator, want being what the
// operand reports now.
func (r *Reconciler) sync(ctx context.Context, want []configv1.ClusterOperatorStatusCondition) error {
	switch r.opts.Bug {
	case "memory":
		return r.syncMemory(ctx, want)
	case "edge":
		return r.syncEdge(ctx, want)
	case "stale-cache":
		return r.syncStaleCache(ctx, want)
	case "conflict":
		return r.syncConflict(ctx, want)
	}
	return CheckBug(r.opts.Bug)
}

// syncMemory: a new ClusterOperator comes back from the create without a
// status, so its report is written on the next sync, which the create's
// event brings. Once reported, the operator puts back what someone else
// changed in the conditions the object carries. A crash between the
// create and the report leaves a new instance that never owed it: the
// object keeps no conditions.
func (r *Reconciler) syncMemory(ctx context.Context, want []configv1.ClusterOperatorStatusCondition) error {
	co, created, err := r.getOrCreate(ctx)
	if err != nil {
		return err
	}
	if created {
		r.bug.owed = true
		return nil
	}
	report := want
	if !r.bug.owed {
		report = carried(want, co.Status.Conditions)
	}
	if merge(&co.Status.Conditions, report, r.clock.Now()) {
		if err := r.client.Status().Update(ctx, co); err != nil {
			return err
		}
	}
	r.bug.owed = false
	return nil
}

// carried is what want says of the condition types conds carries.
func carried(want, conds []configv1.ClusterOperatorStatusCondition) []configv1.ClusterOperatorStatusCondition {
	var out []configv1.ClusterOperatorStatusCondition
	for _, w := range want {
		if index(conds, w.Type) >= 0 {
			out = append(out, w)
		}
	}
	return out
}

// syncEdge: like an informer's update handler, it compares the version it
// sees with the one it saw before and writes back what changed (the first
// look, an informer's add, syncs everything). Its own answer and a new
// challenge that come in one event look like no change.
func (r *Reconciler) syncEdge(ctx context.Context, want []configv1.ClusterOperatorStatusCondition) error {
	co, _, err := r.getOrCreate(ctx)
	if err != nil {
		return err
	}
	seen := append([]configv1.ClusterOperatorStatusCondition(nil), co.Status.Conditions...)
	report := want
	if r.bug.prev != nil {
		report = changed(want, r.bug.prev, seen)
	}
	if merge(&co.Status.Conditions, report, r.clock.Now()) {
		if err := r.client.Status().Update(ctx, co); err != nil {
			return err
		}
	}
	r.bug.prev = seen
	return nil
}

// changed is what want says of the condition types that differ between
// the versions before and now.
func changed(want, before, now []configv1.ClusterOperatorStatusCondition) []configv1.ClusterOperatorStatusCondition {
	var out []configv1.ClusterOperatorStatusCondition
	for _, w := range want {
		i, j := index(before, w.Type), index(now, w.Type)
		if i < 0 || j < 0 || !same(before[i], now[j]) {
			out = append(out, w)
		}
	}
	return out
}

func same(a, b configv1.ClusterOperatorStatusCondition) bool {
	return a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message && a.LastTransitionTime.Equal(&b.LastTransitionTime)
}

// syncStaleCache: each status write comes back as an event, which a cache
// may not yet reflect, so the operator takes the next event for its write
// and works from the object the write returned. An event that brings
// someone else's change along with its own is worked from that copy.
func (r *Reconciler) syncStaleCache(ctx context.Context, want []configv1.ClusterOperatorStatusCondition) error {
	var co *configv1.ClusterOperator
	if r.bug.ours > 0 && r.bug.copy != nil {
		r.bug.ours--
		co = r.bug.copy.DeepCopy()
	} else {
		var err error
		if co, _, err = r.getOrCreate(ctx); err != nil {
			return err
		}
	}
	if !merge(&co.Status.Conditions, want, r.clock.Now()) {
		return nil
	}
	if err := r.client.Status().Update(ctx, co); err != nil {
		return err
	}
	r.bug.copy, r.bug.ours = co.DeepCopy(), r.bug.ours+1
	return nil
}

// syncConflict keeps expectations, as a ReplicaSet controller does for its
// pods: until the event of its last status write is seen, what it reads
// may be older than that write, so it writes a status the operand changed
// but does not answer a challenge (an answer that is already written would
// be answered twice). On a conflict it puts its report on the latest
// version and sends that; each send raises the expectation, each failed
// write lowers it once, so a conflict leaves one event expected that never
// comes: from then on it answers no challenge.
func (r *Reconciler) syncConflict(ctx context.Context, want []configv1.ClusterOperatorStatusCondition) error {
	co, _, err := r.getOrCreate(ctx)
	if err != nil {
		return err
	}
	if r.bug.expected > 0 && co.ResourceVersion == r.bug.lastRV {
		r.bug.expected--
	}
	report := want
	if r.bug.expected > 0 {
		report = statusChanges(want, co.Status.Conditions)
	}
	if !merge(&co.Status.Conditions, report, r.clock.Now()) {
		return nil
	}
	err = r.send(ctx, co)
	if apierrors.IsConflict(err) {
		// Written since it was read: the report goes on the latest version.
		latest := &configv1.ClusterOperator{}
		if err = r.client.Get(ctx, client.ObjectKeyFromObject(co), latest); err == nil {
			merge(&latest.Status.Conditions, report, r.clock.Now())
			co, err = latest, r.send(ctx, latest)
		}
	}
	if err != nil {
		r.bug.expected--
		return err
	}
	r.bug.lastRV = co.ResourceVersion
	return nil
}

// send writes co's status, expecting its event.
func (r *Reconciler) send(ctx context.Context, co *configv1.ClusterOperator) error {
	r.bug.expected++
	return r.client.Status().Update(ctx, co)
}

// statusChanges is what want says of the condition types whose status
// conds does not have (or which it lacks).
func statusChanges(want, conds []configv1.ClusterOperatorStatusCondition) []configv1.ClusterOperatorStatusCondition {
	var out []configv1.ClusterOperatorStatusCondition
	for _, w := range want {
		if i := index(conds, w.Type); i < 0 || conds[i].Status != w.Status {
			out = append(out, w)
		}
	}
	return out
}
