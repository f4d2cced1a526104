package apitest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/reference/olm"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// The aggregator as an actor of the simulator (sim/doc.go),
// woken through Map by the owned CRDs, its Probe and the Foos: the Probe
// comes with the annotation at +1m; three Foos written at +2m, and all
// three changed at +3m, each give one status write; nothing else is
// written, its own writes waking it to no effect.
func TestAggregatorAsSimulatorActor(t *testing.T) {
	h := start(t, "olm-actor")
	ctx := context.Background()
	tl := &timeline.Timeline{}
	s := sim.NewScheduler(sim.NewClock(), tl)
	key := types.NamespacedName{Namespace: h.ns, Name: csv}
	a, err := olm.NewAggregator(s.Client(api.Client, "aggregator", "aggregator"), s.Clock(),
		olm.AggregatorOptions{Probe: key, CRDs: []string{foos, bars}, Namespaces: []string{h.ns}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx, sim.Actor{Name: "aggregator", Role: "aggregator", Reconciler: a,
		Watches: []sim.Watch{{GVK: crdGVK, Map: a.Map}, {GVK: olm.ProbeGVK, Map: a.Map}, {GVK: fooGVK, Map: a.Map}},
		Initial: []reconcile.Request{{NamespacedName: key}}}); err != nil {
		t.Fatal(err)
	}
	operator := s.Client(api.Client, "operator", "operator")
	t.Cleanup(func() { h.annotate(foos, nil) })
	s.At(timeline.Epoch.Add(time.Minute), func(ctx context.Context) error {
		crd := &unstructured.Unstructured{}
		crd.SetGroupVersionKind(crdGVK)
		if err := operator.Get(ctx, client.ObjectKey{Name: foos}, crd); err != nil {
			return err
		}
		crd.SetAnnotations(seedAnnotations)
		return operator.Update(ctx, crd)
	})
	writeFoos := func(conds ...any) func(context.Context) error {
		return func(ctx context.Context) error {
			for i := range 3 {
				u := &unstructured.Unstructured{}
				u.SetGroupVersionKind(fooGVK)
				err := operator.Get(ctx, client.ObjectKey{Namespace: h.ns, Name: fmt.Sprintf("foo-%d", i)}, u)
				if err != nil {
					u.SetNamespace(h.ns)
					u.SetName(fmt.Sprintf("foo-%d", i))
					if err := operator.Create(ctx, u); err != nil {
						return err
					}
				}
				u.Object["status"] = map[string]any{"conditions": conds}
				if err := operator.Status().Update(ctx, u); err != nil {
					return err
				}
			}
			return nil
		}
	}
	migrating := func(status string) any { return map[string]any{"type": "Migrating", "status": status} }
	s.At(timeline.Epoch.Add(2*time.Minute), writeFoos(migrating("True")))
	s.At(timeline.Epoch.Add(3*time.Minute), writeFoos(migrating("False")))
	if err := s.Run(ctx, timeline.Epoch.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}

	var got []string
	for _, e := range tl.Events() {
		if e.Actor == "aggregator" && e.IsWrite() {
			got = append(got, fmt.Sprintf("+%s %s %s %s", e.Time.Sub(timeline.Epoch), e.Verb, e.Object.Kind, e.Object.Name))
		}
	}
	want := []string{
		"+1m0s create Probe " + csv,
		"+1m0s update-status Probe " + csv,
		"+2m0s update-status Probe " + csv,
		"+3m0s update-status Probe " + csv,
	}
	if !slices.Equal(got, want) {
		t.Errorf("the aggregator's writes:\n%q\nwant:\n%q", got, want)
	}
	p, _ := h.probe()
	if c := find(p.Status.Conditions, olm.ConditionUpgradeable); c == nil || c.Status != "True" ||
		!c.LastTransitionTime.Time.Equal(timeline.Epoch.Add(3*time.Minute)) {
		t.Errorf("Upgradeable %+v, want True since +3m", c)
	}
}
