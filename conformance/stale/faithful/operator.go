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

// Reconcile makes the ClusterOperator say what the operator reports.
func (o *Operator) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	co := &configv1.ClusterOperator{}
	err := o.client.Get(ctx, req.NamespacedName, co)
	if apierrors.IsNotFound(err) {
		co = &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: req.Name}}
		err = o.client.Create(ctx, co)
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	now := o.clock.Now()
	if o.reports(co.Status.Conditions) {
		o.dirty, o.wrong = false, time.Time{}
		return reconcile.Result{}, nil
	}
	if !o.dirty {
		if o.wrong.IsZero() {
			o.wrong = now
		}
		if at := o.answerAt(o.wrong); now.Before(at) {
			return reconcile.Result{RequeueAfter: at.Sub(now)}, nil
		}
	}
	co.Status.Conditions = o.merged(co.Status.Conditions, now)
	if err := o.client.Status().Update(ctx, co); err != nil {
		return reconcile.Result{}, err
	}
	o.dirty, o.wrong = false, time.Time{}
	return reconcile.Result{}, nil
}

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
