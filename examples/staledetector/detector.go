package main

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The seed's two texts.
const (
	challengeText = "Operator checking for stale status, the active operator will reset this message: "
	markText      = "Operator has not updated this condition for more than "
)

// watched are the conditions the seed watches, with Failing, the older
// name of Degraded.
var watched = map[configv1.ClusterStatusConditionType]bool{
	configv1.OperatorDegraded: true, configv1.OperatorAvailable: true, configv1.OperatorProgressing: true,
	configv1.OperatorUpgradeable: true, "Failing": true,
}

// Detector challenges and marks stale ClusterOperators on its clock.
type Detector struct {
	// Client writes the ClusterOperators' status (through the manager's cache).
	Client client.Client
	// Reader reads straight from the API server, bypassing the cache.
	Reader client.Reader
	// ChallengeAfter is how long a ClusterOperator may stay still before it is challenged, UnknownAfter how long after that its conditions turn Unknown.
	ChallengeAfter, UnknownAfter time.Duration
	Silence                      time.Duration // stated in the mark's text
	// Clock is where every time it reads and writes comes from; nil is
	// the wall clock (the process). A test gives its own (certify_test.go:
	// opcert's virtual time).
	Clock clock.PassiveClock

	mu     sync.Mutex
	memory map[string]*memory
}

// memory is what the detector knows of one ClusterOperator.
type memory struct {
	seen       map[configv1.ClusterStatusConditionType]string // what it last read or wrote
	moved      time.Time                                      // when a watched condition last moved
	challenged time.Time                                      // zero: not challenged
	marked     bool
}

// Reconcile looks at one ClusterOperator: it notes when a watched
// condition last moved, challenges the operator once they have been still
// for ChallengeAfter, and marks them stale when nobody answers the
// challenge within UnknownAfter.
func (d *Detector) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.memory == nil {
		d.memory = map[string]*memory{}
	}
	co := &configv1.ClusterOperator{}
	if err := d.Reader.Get(ctx, req.NamespacedName, co); err != nil {
		delete(d.memory, req.Name)
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	now := d.now()
	state := snapshot(co)
	if len(state) == 0 {
		return ctrl.Result{}, nil
	}
	m := d.memory[req.Name]
	switch {
	case m == nil:
		m = firstLook(co, now)
	case !maps.Equal(m.seen, state): // someone else changed a watched condition: the operator lives
		m = &memory{moved: now}
	}
	m.seen = state
	d.memory[req.Name] = m
	due := m.moved.Add(d.ChallengeAfter)
	if !m.challenged.IsZero() {
		due = m.challenged.Add(d.UnknownAfter)
	}
	switch {
	case m.marked:
		return ctrl.Result{}, nil
	case now.Before(due):
		return ctrl.Result{RequeueAfter: due.Sub(now)}, nil
	case m.challenged.IsZero():
		d.challenge(co)
	default:
		d.mark(co, now)
	}
	if err := d.Client.Status().Update(ctx, co); err != nil {
		return ctrl.Result{}, err // a conflict: someone wrote first, the next look sees it
	}
	m.seen = snapshot(co)
	if m.challenged.IsZero() {
		m.challenged = now
		return ctrl.Result{RequeueAfter: d.UnknownAfter}, nil
	}
	m.marked = true
	return ctrl.Result{}, nil
}

func (d *Detector) now() time.Time {
	if d.Clock == nil {
		return time.Now()
	}
	return d.Clock.Now()
}

// firstLook dates the stillness by lastTransitionTime, which the API
// server keeps to the second (the change may be up to a second later); a
// challenge already there is dated now, since nothing says when it came.
func firstLook(co *configv1.ClusterOperator, now time.Time) *memory {
	m := &memory{marked: true}
	for _, c := range co.Status.Conditions {
		if !watched[c.Type] {
			continue
		}
		m.moved = later(m.moved, c.LastTransitionTime.Add(time.Second))
		if strings.HasPrefix(c.Message, challengeText) {
			m.challenged = now
		}
		m.marked = m.marked && c.Status == configv1.ConditionUnknown && strings.HasPrefix(c.Message, markText)
	}
	return m
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// challenge prefixes every watched message with the seed's challenge.
func (d *Detector) challenge(co *configv1.ClusterOperator) {
	for i, c := range co.Status.Conditions {
		if watched[c.Type] && !strings.HasPrefix(c.Message, challengeText) {
			co.Status.Conditions[i].Message = challengeText + c.Message
		}
	}
}

// mark sets every watched condition Unknown with the seed's second text.
func (d *Detector) mark(co *configv1.ClusterOperator, now time.Time) {
	silence := d.Silence.String()
	if d.Silence%time.Minute == 0 {
		silence = fmt.Sprintf("%d minutes", int(d.Silence/time.Minute))
	}
	for i, c := range co.Status.Conditions {
		if !watched[c.Type] {
			continue
		}
		c.Message = fmt.Sprintf("%s%s, last known condition state was %q, original message: %s",
			markText, silence, c.Status, strings.TrimPrefix(c.Message, challengeText))
		if c.Status != configv1.ConditionUnknown { // the status changes: so does its transition time
			c.Status, c.LastTransitionTime = configv1.ConditionUnknown, metav1.NewTime(now)
		}
		co.Status.Conditions[i] = c
	}
}

// snapshot is the watched conditions as they read.
func snapshot(co *configv1.ClusterOperator) map[configv1.ClusterStatusConditionType]string {
	s := map[configv1.ClusterStatusConditionType]string{}
	for _, c := range co.Status.Conditions {
		if watched[c.Type] {
			s[c.Type] = string(c.Status) + "/" + c.Reason + "/" + c.Message
		}
	}
	return s
}
