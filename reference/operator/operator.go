// Package operator is the model of a well-behaved operator as seed 000 needs
// one: it owns one ClusterOperator, keeps its conditions there, and when
// someone else changes them (a stale challenge, an Unknown mark) it puts them
// back after AnswerDelay, as library-go's status syncer does on its next
// sync. Its own changes (at start, or when its operand moves) are written at
// once.
package operator

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

// Condition is what the operator reports for one condition type.
type Condition struct {
	// Type is the condition type.
	Type configv1.ClusterStatusConditionType
	// Status is True, False or Unknown.
	Status configv1.ConditionStatus
	// Reason is a CamelCase word for why.
	Reason string
	// Message says why for a person.
	Message string
}

// Operator is a controller-runtime Reconciler for its own ClusterOperator.
type Operator struct {
	// Client writes the ClusterOperator's status.
	Client client.Client
	// Clock is where the operator's times come from (the run's clock).
	Clock clock.PassiveClock
	Name  string // the ClusterOperator it owns
	// AnswerDelay is how long after someone else changes its conditions the operator puts them back.
	AnswerDelay time.Duration
	// Compare decides whether the live conditions already say what the
	// operator wants; nil compares status, reason and message.
	Compare func(live configv1.ClusterOperatorStatusCondition, want Condition) bool

	mu      sync.Mutex
	want    []Condition
	dirty   bool      // an own change waits to be written
	wrongAt time.Time // when the live conditions were first seen wrong
}

// New returns an operator that will report conditions once started.
func New(c client.Client, clk clock.PassiveClock, name string, delay time.Duration, conds []Condition) *Operator {
	return &Operator{Client: c, Clock: clk, Name: name, AnswerDelay: delay, want: conds, dirty: true}
}

// Set changes what the operator reports (its operand moved).
func (o *Operator) Set(c Condition) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.want = Upsert(o.want, c)
	o.dirty = true
}

// Upsert puts c in conds, replacing the condition of its type if there is one.
func Upsert(conds []Condition, c Condition) []Condition {
	for i := range conds {
		if conds[i].Type == c.Type {
			conds[i] = c
			return conds
		}
	}
	return append(conds, c)
}

// SetAnswerDelay changes how long the operator takes to answer from now on.
func (o *Operator) SetAnswerDelay(d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.AnswerDelay = d
}

// Reconcile makes the ClusterOperator say what the operator wants.
func (o *Operator) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	co := &configv1.ClusterOperator{}
	err := o.Client.Get(ctx, req.NamespacedName, co)
	if apierrors.IsNotFound(err) {
		co = &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: req.Name}}
		err = o.Client.Create(ctx, co)
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	now := o.Clock.Now()
	if o.matches(co.Status.Conditions) {
		o.dirty, o.wrongAt = false, time.Time{}
		return reconcile.Result{}, nil
	}
	if !o.dirty {
		if o.wrongAt.IsZero() {
			o.wrongAt = now
		}
		if due := o.wrongAt.Add(o.AnswerDelay); now.Before(due) {
			return reconcile.Result{RequeueAfter: due.Sub(now)}, nil
		}
	}
	co.Status.Conditions = o.merge(co.Status.Conditions, now)
	if err := o.Client.Status().Update(ctx, co); err != nil {
		return reconcile.Result{}, err
	}
	o.dirty, o.wrongAt = false, time.Time{}
	return reconcile.Result{}, nil
}

func (o *Operator) matches(live []configv1.ClusterOperatorStatusCondition) bool {
	cmp := o.Compare
	if cmp == nil {
		cmp = Same
	}
	for _, w := range o.want {
		c := find(live, w.Type)
		if c == nil || !cmp(*c, w) {
			return false
		}
	}
	return true
}

// Same tells whether a live condition says exactly what is wanted.
func Same(live configv1.ClusterOperatorStatusCondition, want Condition) bool {
	return live.Status == want.Status && live.Reason == want.Reason && live.Message == want.Message
}

// merge writes the wanted conditions over live ones, moving the transition
// time only where the status changes.
func (o *Operator) merge(live []configv1.ClusterOperatorStatusCondition, now time.Time) []configv1.ClusterOperatorStatusCondition {
	out := append([]configv1.ClusterOperatorStatusCondition(nil), live...)
	for _, w := range o.want {
		c := configv1.ClusterOperatorStatusCondition{Type: w.Type, Status: w.Status, Reason: w.Reason, Message: w.Message,
			LastTransitionTime: metav1.NewTime(now).Rfc3339Copy()}
		if old := find(out, w.Type); old != nil {
			if old.Status == w.Status {
				c.LastTransitionTime = old.LastTransitionTime
			}
			*old = c
			continue
		}
		out = append(out, c)
	}
	return out
}

func find(conds []configv1.ClusterOperatorStatusCondition, t configv1.ClusterStatusConditionType) *configv1.ClusterOperatorStatusCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}
