package faithful

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// OperatorOptions are an operator's choices where 000 (and 001's
// ClusterOperator contract) leave them open.
type OperatorOptions struct {
	// TypePrefix writes each message behind its condition type, as
	// library-go's status syncer does ("OperatorAvailable: All is well").
	TypePrefix bool
	// OwnReasons replaces the reasons it is given by its own, the
	// condition's type and status ("AvailableTrue").
	OwnReasons bool
	// Extra are conditions it reports next to the watched ones (library-go
	// adds EvaluationConditionsDetected, Unknown, with no message).
	Extra []configv1.ClusterOperatorStatusCondition
	// Resync, when set, puts back what someone else changed at the
	// operator's next periodic sync, this often from its start, whatever
	// the answer delay it is given; otherwise it puts it back after the
	// answer delay, rounded up to a whole Step.
	Resync, Step time.Duration
	// Reversed writes status.conditions in reverse type order.
	Reversed bool
}

// Operator owns one ClusterOperator: it reports its operand's conditions
// there, writes its own changes at once, and resets whatever someone else
// changed (a stale challenge, an Unknown mark) within its answer time, as
// 000 §Proposal ¶3 asks of "the active operators".
type Operator struct {
	client client.Client
	clock  clock.PassiveClock
	name   string
	opts   OperatorOptions

	mu      sync.Mutex
	want    []configv1.ClusterOperatorStatusCondition // as it reports them
	delay   time.Duration
	started time.Time
	dirty   bool      // an own change waits to be written
	wrong   time.Time // when the live conditions were first seen changed by someone else
}

// NewOperator returns an operator for ClusterOperator name reporting conds,
// answering after delay (unless it resyncs).
func NewOperator(c client.Client, clk clock.PassiveClock, name string, delay time.Duration, conds []configv1.ClusterOperatorStatusCondition, opts OperatorOptions) *Operator {
	o := &Operator{client: c, clock: clk, name: name, opts: opts, delay: delay, started: clk.Now(), dirty: true}
	for _, c := range conds {
		o.upsert(c)
	}
	for _, c := range opts.Extra {
		o.want = append(o.want, *c.DeepCopy())
	}
	return o
}

// Set changes what the operand reports.
func (o *Operator) Set(c configv1.ClusterOperatorStatusCondition) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.upsert(c)
	o.dirty = true
}

// SetAnswerDelay changes how long it takes to answer from now on.
func (o *Operator) SetAnswerDelay(d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.delay = d
}

// upsert puts the operand's condition c, as this operator words it, in want.
func (o *Operator) upsert(c configv1.ClusterOperatorStatusCondition) {
	c.LastTransitionTime = metav1.Time{}
	if o.opts.TypePrefix && c.Message != "" {
		c.Message = "Operator" + string(c.Type) + ": " + c.Message
	}
	if o.opts.OwnReasons {
		c.Reason = string(c.Type) + string(c.Status)
	}
	if old := find(o.want, c.Type); old != nil {
		*old = c
		return
	}
	o.want = append(o.want, c)
}

// Reconcile makes the ClusterOperator say what the operator reports:
// fetched (created when missing), compared, and written back when hold
// says it is time.
func (o *Operator) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var co configv1.ClusterOperator
	switch err := o.client.Get(ctx, req.NamespacedName, &co); {
	case apierrors.IsNotFound(err):
		co.Name = req.Name
		if err := o.client.Create(ctx, &co); err != nil {
			return reconcile.Result{}, err
		}
	case err != nil:
		return reconcile.Result{}, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	now := o.clock.Now()
	wait, write := o.hold(co.Status.Conditions, now)
	switch {
	case !write:
		return reconcile.Result{}, nil
	case wait > 0:
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	co.Status.Conditions = o.merged(co.Status.Conditions, now)
	if err := o.client.Status().Update(ctx, &co); err != nil {
		return reconcile.Result{}, err
	}
	o.settle()
	return reconcile.Result{}, nil
}

// hold decides on the live conditions at now: nothing to write (false),
// or a write due after wait. Its own change is written at once; a change
// someone else made (a challenge, a mark) is put back at answerAt of when
// it was first seen.
func (o *Operator) hold(live []configv1.ClusterOperatorStatusCondition, now time.Time) (wait time.Duration, write bool) {
	if o.reports(live) {
		o.settle()
		return 0, false
	}
	if o.dirty {
		return 0, true
	}
	if o.wrong.IsZero() {
		o.wrong = now
	}
	return max(0, o.answerAt(o.wrong).Sub(now)), true
}

// settle notes that the ClusterOperator says what the operator reports.
func (o *Operator) settle() { o.dirty, o.wrong = false, time.Time{} }

// answerAt is when a change someone else made at t is put back: the next
// periodic sync, or the answer delay rounded up to a whole step.
func (o *Operator) answerAt(t time.Time) time.Time {
	if o.opts.Resync > 0 {
		n := t.Sub(o.started) / o.opts.Resync
		at := o.started.Add(n * o.opts.Resync)
		if at.Before(t) {
			at = at.Add(o.opts.Resync)
		}
		return at
	}
	d := o.delay
	if s := o.opts.Step; s > 0 && d%s != 0 {
		d += s - d%s
	}
	return t.Add(d)
}

// reports tells whether the live conditions say what the operator reports.
func (o *Operator) reports(live []configv1.ClusterOperatorStatusCondition) bool {
	for _, w := range o.want {
		c := find(live, w.Type)
		if c == nil || c.Status != w.Status || c.Reason != w.Reason || c.Message != w.Message {
			return false
		}
	}
	return true
}

// merged is the live list with every condition the operator reports
// written over it; lastTransitionTime moves only with the status.
func (o *Operator) merged(live []configv1.ClusterOperatorStatusCondition, now time.Time) []configv1.ClusterOperatorStatusCondition {
	out := slices.Clone(live)
	for _, w := range o.want {
		c := w
		c.LastTransitionTime = metav1.NewTime(now)
		if old := find(out, w.Type); old != nil {
			if old.Status == w.Status {
				c.LastTransitionTime = old.LastTransitionTime
			}
			*old = c
			continue
		}
		out = append(out, c)
	}
	if o.opts.Reversed {
		slices.SortStableFunc(out, func(a, b configv1.ClusterOperatorStatusCondition) int {
			return strings.Compare(string(b.Type), string(a.Type))
		})
	}
	return out
}
