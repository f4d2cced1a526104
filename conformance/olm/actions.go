package olm

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/opcert/opcert/probe"
	"github.com/opcert/opcert/scenarios"
)

// stepActions are olm's step actions (scenario.go names them), each with
// its value's type and what carries it out on the world. Killing an actor
// that is not running does nothing; restarting one that runs kills it
// first, as with the other mechanisms.
var stepActions = scenarios.Actions(
	scenarios.Act(actSetConditions, func(w *world, ctx context.Context, s SetConditions) error {
		if w.teamOperator() {
			return notMine("setting a CR's conditions")
		}
		return w.ownWrite(ctx, func(ctx context.Context) error { return w.setConditions(ctx, &s) })
	}),
	scenarios.Act(actCreateCR, (*world).createCR),
	scenarios.Act(actDeleteCR, func(w *world, ctx context.Context, r ObjectRef) error {
		return w.user().Delete(ctx, object(crGVK(r.Kind), r.Namespace, r.Name))
	}),
	scenarios.Act(actAnnotate, (*world).annotate),
	scenarios.Act(actEditProbe, func(w *world, ctx context.Context, ps ProbeSpec) error { return w.editProbeSpec(ctx, &ps) }),
	scenarios.Act(actProbeStatus, func(w *world, ctx context.Context, c scenarios.Condition) error {
		if w.teamOperator() {
			return notMine("the Probe's Upgradeable")
		}
		return w.ownWrite(ctx, func(ctx context.Context) error { return w.setProbeUpgradeable(ctx, &c) })
	}),
	scenarios.Act(actOCCondition, func(w *world, ctx context.Context, c scenarios.Condition) error {
		if w.teamOperator() {
			return notMine("the OperatorCondition's spec.conditions")
		}
		return w.ownWrite(ctx, func(ctx context.Context) error { return w.setOperatorCondition(ctx, &c) })
	}),
	scenarios.Act(actOverride, func(w *world, ctx context.Context, o Override) error { return w.override(ctx, &o) }),
	scenarios.Act(actUpgrade, (*world).upgrade),
	scenarios.Act(actOperand, func(w *world, ctx context.Context, o Operand) error { return w.operand(ctx, &o) }),
	scenarios.Act(actKill, func(w *world, ctx context.Context, actor string) error {
		switch actor {
		case actorOperator:
			return w.killOperator(ctx)
		case actorAggregator:
			return w.agg.Kill(ctx, actorAggregator)
		}
		if sched := w.st.Sched; sched.Running(actor) {
			return sched.Kill(ctx, actor)
		}
		return nil
	}),
	scenarios.Act(actRestart, func(w *world, ctx context.Context, actor string) error {
		switch actor {
		case actorOperator:
			return w.restartOperator(ctx)
		case actorAggregator:
			return w.agg.Restart(ctx, actorAggregator)
		}
		if sched := w.st.Sched; sched.Running(actor) {
			if err := sched.Kill(ctx, actor); err != nil {
				return err
			}
		}
		return w.start(ctx, actor)
	}),
)

// start starts OLM's gate or copier afresh (a new process: nothing
// remembered); the aggregator's player starts the aggregator.
func (w *world) start(ctx context.Context, actor string) error {
	switch actor {
	case actorOLM:
		return w.startGate(ctx)
	default:
		return w.startCopier(ctx)
	}
}

// loadCRs creates the load's CRs, spread round-robin over its namespaces,
// each with no condition yet (the changes write them).
func (w *world) loadCRs(ctx context.Context) error {
	l := w.spec.Load
	if l == nil {
		return nil
	}
	nss := w.spec.loadNamespaces()
	for i := range l.CRs {
		if err := w.user().Create(ctx, object(crGVK(l.Kind), nss[i%len(nss)], loadName(i))); err != nil {
			return fmt.Errorf("creating the load's %s %d: %w", l.Kind, i, err)
		}
	}
	return nil
}

func loadName(i int) string { return fmt.Sprintf("load-%05d", i) }

// loadConditions are what the load's changes write: the seed example's
// types, so that the annotations of a load scenario find them.
var loadConditions = []string{"Migrating", "UnhealthyDatabase", "BadConnectivity"}

// queueLoad queues the load's changes: change i at (i+1)*Every sets one
// of loadConditions of a CR, both drawn from Seed, to True or False.
func (w *world) queueLoad() {
	l := w.spec.Load
	r := rand.New(rand.NewPCG(l.Seed, 0))
	nss := w.spec.loadNamespaces()
	for i := range l.Changes {
		n := r.IntN(l.CRs)
		s := &SetConditions{Kind: l.Kind, Namespace: nss[n%len(nss)], Name: loadName(n),
			Conditions: []scenarios.Condition{{Type: loadConditions[r.IntN(len(loadConditions))],
				Status: []string{"True", "False"}[r.IntN(2)], Reason: "Load"}}}
		w.st.Sched.At(w.st.At(l.Every.Duration*time.Duration(i+1)), func(ctx context.Context) error {
			return w.setConditions(ctx, s)
		})
	}
}

// setProbeUpgradeable is the operator writing its Probe's Upgradeable
// condition itself, through package probe (002 §Writing to the Probe
// Resource Directly).
func (w *world) setProbeUpgradeable(ctx context.Context, c *scenarios.Condition) error {
	p, err := w.probeClient()
	if err != nil {
		return err
	}
	return p.SetUpgradeable(ctx, metav1.ConditionStatus(c.Status), c.Reason, c.Message, w.st.Sched.Now())
}

// probeClient is the operator's client of its Probe, through package
// probe (which finds out from the client's REST mapper, backed by the
// Discovery API, whether Probes are served).
func (w *world) probeClient() (*probe.Client, error) {
	return probe.NewFromClient(w.operator, types.NamespacedName{Namespace: w.spec.namespace(), Name: w.spec.csv()})
}
