// Package staleoperator is a small, real operator that owns one
// ClusterOperator and keeps its conditions (Available, Degraded, Progressing,
// Upgradeable) as its operand says: it creates the object if it is missing,
// and, told through a watch that someone else changed the conditions (a
// stale-status challenge rewriting the messages, a detector setting them
// Unknown), it puts them back at once. That is what seed 000 asks of a live
// operator.
//
// It imports nothing from opcert. The clock it stamps times with is a
// parameter, so that opcert can certify it in virtual time (package certify);
// cmd/staleoperator runs it on the wall clock under a controller-runtime
// manager.
//
// Options.Careless makes it the operator seed 000 is meant to catch: it
// looks at its ClusterOperator only on a periodic resync (every 60s), so a
// challenge can wait up to a minute for its answer, over the 30s budget.
// Options.Bug plants one of four classic bugs (Bugs, bugs.go) that no
// built-in scenario finds and one perturbation does.
package staleoperator

import (
	"context"
	"sync"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// DefaultCarelessResync is how often a careless operator looks.
const DefaultCarelessResync = 60 * time.Second

// Options tune the operator.
type Options struct {
	// Operand says what the operand reports now, read at every sync (type,
	// status, reason and message; the operator stamps lastTransitionTime).
	// Nil: Healthy.
	Operand func(ctx context.Context) ([]configv1.ClusterOperatorStatusCondition, error)
	// Resync is how often the operator syncs without being told of a change
	// (0: never; the watch tells it).
	Resync time.Duration
	// Careless: the operator acts only on its resync (every Resync,
	// DefaultCarelessResync if 0) and lets what the watch tells it wait
	// until then, as an operator that does not watch its ClusterOperator.
	Careless bool
	// Bug plants one of Bugs by name ("": none; CheckBug says whether a
	// name is one).
	Bug string
}

// Reconciler keeps one ClusterOperator as its operand says.
type Reconciler struct {
	client client.Client
	clock  clock.PassiveClock
	name   string
	opts   Options

	mu   sync.Mutex
	next time.Time // a careless operator's next look

	bug bugged // what a planted bug keeps (Options.Bug)
}

// NewReconciler returns the operator of the ClusterOperator name, talking
// through c. Every time it writes comes from clk.
func NewReconciler(c client.Client, clk clock.PassiveClock, name string, opts Options) *Reconciler {
	if opts.Operand == nil {
		opts.Operand = func(context.Context) ([]configv1.ClusterOperatorStatusCondition, error) { return Healthy(), nil }
	}
	if opts.Careless && opts.Resync <= 0 {
		opts.Resync = DefaultCarelessResync
	}
	return &Reconciler{client: c, clock: clk, name: name, opts: opts}
}

// Healthy is what a healthy operand reports, in the operator's own words.
func Healthy() []configv1.ClusterOperatorStatusCondition {
	return []configv1.ClusterOperatorStatusCondition{
		{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: "Serving", Message: "The operand serves requests"},
		{Type: configv1.OperatorDegraded, Status: configv1.ConditionFalse, Reason: "NoFailures", Message: "No failure seen"},
		{Type: configv1.OperatorProgressing, Status: configv1.ConditionFalse, Reason: "Settled", Message: "The operand runs the desired version"},
		{Type: configv1.OperatorUpgradeable, Status: configv1.ConditionTrue, Reason: "NoBlockers", Message: "Nothing blocks an upgrade"},
	}
}

// Reconcile makes the ClusterOperator say what the operand says.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if req.Name != r.name {
		return reconcile.Result{}, nil // not ours
	}
	if wait := r.notYet(); wait > 0 {
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	want, err := r.opts.Operand(ctx)
	if err != nil {
		return reconcile.Result{}, err
	}
	if r.opts.Bug != "" {
		return reconcile.Result{RequeueAfter: r.opts.Resync}, r.sync(ctx, want)
	}
	co, _, err := r.getOrCreate(ctx)
	if err != nil {
		return reconcile.Result{}, err
	}
	if merge(&co.Status.Conditions, want, r.clock.Now()) {
		if err := r.client.Status().Update(ctx, co); err != nil {
			return reconcile.Result{}, err
		}
	}
	return reconcile.Result{RequeueAfter: r.opts.Resync}, nil
}

// getOrCreate reads the ClusterOperator, creating it if it is missing
// (created: with no status yet).
func (r *Reconciler) getOrCreate(ctx context.Context) (co *configv1.ClusterOperator, created bool, err error) {
	co = &configv1.ClusterOperator{}
	err = r.client.Get(ctx, client.ObjectKey{Name: r.name}, co)
	if apierrors.IsNotFound(err) {
		co = &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: r.name}}
		return co, true, r.client.Create(ctx, co)
	}
	return co, false, err
}

// notYet is, for a careless operator, how long until its next look (0 when
// it is due, and then the one after is set).
func (r *Reconciler) notYet() time.Duration {
	if !r.opts.Careless {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clock.Now()
	if now.Before(r.next) {
		return r.next.Sub(now)
	}
	r.next = now.Add(r.opts.Resync)
	return 0
}

// merge writes the wanted conditions into conds and tells whether anything
// changed. A condition's lastTransitionTime moves, to now, only when its
// status does; conditions the operand does not report are left alone.
func merge(conds *[]configv1.ClusterOperatorStatusCondition, want []configv1.ClusterOperatorStatusCondition, now time.Time) bool {
	changed := false
	for _, w := range want {
		w.LastTransitionTime = metav1.NewTime(now)
		i := index(*conds, w.Type)
		if i < 0 {
			*conds = append(*conds, w)
			changed = true
			continue
		}
		old := &(*conds)[i]
		if old.Status == w.Status && old.Reason == w.Reason && old.Message == w.Message {
			continue
		}
		if old.Status == w.Status {
			w.LastTransitionTime = old.LastTransitionTime
		}
		*old, changed = w, true
	}
	return changed
}

func index(conds []configv1.ClusterOperatorStatusCondition, t configv1.ClusterStatusConditionType) int {
	for i := range conds {
		if conds[i].Type == t {
			return i
		}
	}
	return -1
}
