package stale

import (
	"context"
	"sync"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Detector is the controller adapter around Step: it reads one
// ClusterOperator, asks Step, writes what Step wants and asks to be called
// again at Step's deadline. It is a controller-runtime Reconciler; time
// comes only from Clock.
type Detector struct {
	// Client reads the ClusterOperator and writes its status.
	Client client.Client
	// Clock is where the detector's times come from (the run's clock).
	Clock clock.PassiveClock
	// Params are the challenge and Unknown delays; see DefaultParams.
	Params Params
	// Decide is the decision core; nil means Step. Certification runs swap
	// in deliberately broken cores to prove that each rule can fail.
	Decide func(Params, *Memory, []configv1.ClusterOperatorStatusCondition, time.Time) Decision

	mu     sync.Mutex
	memory map[string]Memory
}

// Reconcile handles one ClusterOperator.
func (d *Detector) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	co := &configv1.ClusterOperator{}
	if err := d.Client.Get(ctx, req.NamespacedName, co); err != nil {
		if apierrors.IsNotFound(err) {
			d.forget(req.Name)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	now := d.Clock.Now()
	decide := d.Decide
	if decide == nil {
		decide = Step
	}
	dec := decide(d.Params, d.recall(req.Name), co.Status.Conditions, now)
	if dec.Write != nil {
		co.Status.Conditions = dec.Write
		if err := d.Client.Status().Update(ctx, co); err != nil {
			// Memory is kept as it was: the next look decides afresh.
			return reconcile.Result{}, err
		}
	}
	d.remember(req.Name, dec.Memory)
	if dec.Next.IsZero() {
		return reconcile.Result{}, nil
	}
	return reconcile.Result{RequeueAfter: dec.Next.Sub(now)}, nil
}

func (d *Detector) recall(name string) *Memory {
	d.mu.Lock()
	defer d.mu.Unlock()
	if m, ok := d.memory[name]; ok {
		return &m
	}
	return nil
}

func (d *Detector) remember(name string, m Memory) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.memory == nil {
		d.memory = map[string]Memory{}
	}
	d.memory[name] = m
}

func (d *Detector) forget(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.memory, name)
}
