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

// DetectorOptions are a detector's choices where 000 leaves them open.
type DetectorOptions struct {
	// ChallengeAfter and UnknownAfter are the seed's two waits (10m each).
	ChallengeAfter, UnknownAfter time.Duration
	// Silence is what the mark's text states ("more than 20 minutes"):
	// the world's two waits, which a run at a time scale shortens.
	Silence time.Duration
	// Resync, when set, has the detector look at every ClusterOperator
	// this often from its start (a fixed grid, as an informer's resync)
	// and act at the first look past a deadline; otherwise it asks to be
	// called Grace after each deadline.
	Resync, Grace time.Duration
	// MarkReason, when set, is the reason of a condition set Unknown;
	// empty keeps the operator's.
	MarkReason string
	// Sorted writes status.conditions in type order.
	Sorted bool
}

// Detector watches ClusterOperators as 000 §Proposal describes: still for
// ChallengeAfter, challenged; left unanswered for UnknownAfter more,
// marked Unknown. Any change of a watched condition it did not write is a
// sign of life (¶5) and starts the wait again.
type Detector struct {
	client client.Client
	clock  clock.PassiveClock
	opts   DetectorOptions
	start  time.Time

	mu      sync.Mutex
	objects map[string]*watch
}

// NewDetector returns a detector with an empty memory.
func NewDetector(c client.Client, clk clock.PassiveClock, opts DetectorOptions) *Detector {
	if opts.Silence <= 0 {
		opts.Silence = opts.ChallengeAfter + opts.UnknownAfter
	}
	return &Detector{client: c, clock: clk, opts: opts, start: clk.Now(), objects: map[string]*watch{}}
}

type phase int

const (
	still      phase = iota // waiting for ChallengeAfter of stillness
	challenged              // waiting UnknownAfter for the operator's reset
	marked                  // set Unknown: nothing more until the operator moves
)

// watch is what the detector remembers of one ClusterOperator.
type watch struct {
	phase phase
	// since is when the stillness began (still) or the challenge was
	// written (challenged).
	since time.Time
	// seen are the watched conditions as last read or written by the
	// detector itself; a difference is movement.
	seen []configv1.ClusterOperatorStatusCondition
	// before are the watched conditions the challenge found, for the
	// mark's text.
	before []configv1.ClusterOperatorStatusCondition
}

// Reconcile looks at one ClusterOperator.
func (d *Detector) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	co := &configv1.ClusterOperator{}
	if err := d.client.Get(ctx, req.NamespacedName, co); err != nil {
		if apierrors.IsNotFound(err) {
			d.mu.Lock()
			delete(d.objects, req.Name)
			d.mu.Unlock()
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.clock.Now()
	cur := watchedOf(co.Status.Conditions)
	w := d.objects[req.Name]
	switch {
	case w == nil:
		w = firstLook(cur, now)
		d.objects[req.Name] = w
	case !sameConditions(w.seen, cur):
		*w = watch{phase: still, since: now, seen: cur}
	}
	var err error
	switch {
	case len(cur) == 0:
	case w.phase == still && !now.Before(w.since.Add(d.opts.ChallengeAfter)):
		err = d.challenge(ctx, co, w, now)
	case w.phase == challenged && !now.Before(w.since.Add(d.opts.UnknownAfter)):
		err = d.mark(ctx, co, w, now)
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	return d.again(w, now), nil
}

// firstLook is what a detector that has not seen the object before can
// tell: a challenge or a mark an earlier detector wrote is resumed from
// now (the message does not say when it was written); otherwise the
// stillness dates from the latest lastTransitionTime (¶2).
func firstLook(cur []configv1.ClusterOperatorStatusCondition, now time.Time) *watch {
	w := &watch{phase: still, seen: cur}
	for _, c := range cur {
		switch {
		case strings.HasPrefix(c.Message, checking):
			w.phase, w.since = challenged, now
		case c.Status == configv1.ConditionUnknown && strings.HasPrefix(c.Message, "Operator has not updated this condition") && w.phase == still:
			w.phase = marked
		}
		if c.LastTransitionTime.After(w.since) && w.phase == still {
			w.since = c.LastTransitionTime.Time
		}
	}
	if w.since.After(now) {
		w.since = now
	}
	if w.phase == challenged {
		for _, c := range cur {
			c.Message = strings.TrimPrefix(c.Message, checking)
			w.before = append(w.before, c)
		}
	}
	return w
}

// challenge puts the seed's text before every watched message, in one
// write, changing nothing else.
func (d *Detector) challenge(ctx context.Context, co *configv1.ClusterOperator, w *watch, now time.Time) error {
	before := watchedOf(co.Status.Conditions)
	for i := range co.Status.Conditions {
		if c := &co.Status.Conditions[i]; isWatched(c.Type) {
			c.Message = checking + c.Message
		}
	}
	if err := d.write(ctx, co); err != nil {
		return err
	}
	*w = watch{phase: challenged, since: now, seen: watchedOf(co.Status.Conditions), before: before}
	return nil
}

// mark sets every watched condition Unknown with the seed's second text,
// quoting the status and message the challenge found.
func (d *Detector) mark(ctx context.Context, co *configv1.ClusterOperator, w *watch, now time.Time) error {
	for i := range co.Status.Conditions {
		c := &co.Status.Conditions[i]
		if !isWatched(c.Type) {
			continue
		}
		was := *c
		if b := find(w.before, c.Type); b != nil {
			was = *b
		}
		c.Message = notUpdated(d.opts.Silence, was.Status, was.Message)
		if c.Status != configv1.ConditionUnknown {
			c.Status, c.LastTransitionTime = configv1.ConditionUnknown, metav1.NewTime(now)
		}
		if d.opts.MarkReason != "" {
			c.Reason = d.opts.MarkReason
		}
	}
	if err := d.write(ctx, co); err != nil {
		return err
	}
	*w = watch{phase: marked, since: now, seen: watchedOf(co.Status.Conditions)}
	return nil
}

func (d *Detector) write(ctx context.Context, co *configv1.ClusterOperator) error {
	if d.opts.Sorted {
		slices.SortStableFunc(co.Status.Conditions, func(a, b configv1.ClusterOperatorStatusCondition) int {
			return strings.Compare(string(a.Type), string(b.Type))
		})
	}
	return d.client.Status().Update(ctx, co)
}

// again is when the detector wants to look next.
func (d *Detector) again(w *watch, now time.Time) reconcile.Result {
	if r := d.opts.Resync; r > 0 {
		return reconcile.Result{RequeueAfter: r - now.Sub(d.start)%r}
	}
	var due time.Time
	switch w.phase {
	case still:
		due = w.since.Add(d.opts.ChallengeAfter)
	case challenged:
		due = w.since.Add(d.opts.UnknownAfter)
	default:
		return reconcile.Result{}
	}
	if due = due.Add(d.opts.Grace); !due.After(now) {
		return reconcile.Result{}
	}
	return reconcile.Result{RequeueAfter: due.Sub(now)}
}

func watchedOf(conds []configv1.ClusterOperatorStatusCondition) []configv1.ClusterOperatorStatusCondition {
	var out []configv1.ClusterOperatorStatusCondition
	for _, c := range conds {
		if isWatched(c.Type) {
			out = append(out, *c.DeepCopy())
		}
	}
	return out
}

// sameConditions compares watched conditions type by type: an order of
// the list is no movement.
func sameConditions(a, b []configv1.ClusterOperatorStatusCondition) bool {
	if len(a) != len(b) {
		return false
	}
	for _, c := range a {
		o := find(b, c.Type)
		if o == nil || o.Status != c.Status || o.Reason != c.Reason || o.Message != c.Message || !o.LastTransitionTime.Equal(&c.LastTransitionTime) {
			return false
		}
	}
	return true
}

// find is the condition of type t in conds, nil if there is none.
func find(conds []configv1.ClusterOperatorStatusCondition, t configv1.ClusterStatusConditionType) *configv1.ClusterOperatorStatusCondition {
	if i := slices.IndexFunc(conds, func(c configv1.ClusterOperatorStatusCondition) bool { return c.Type == t }); i >= 0 {
		return &conds[i]
	}
	return nil
}
