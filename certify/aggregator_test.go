package certify_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/certify"
	"github.com/opcert/opcert/conformance/olm/faithful"
)

// teamAggregator is a status probe operator as a team would bring it:
// a faithful variant (written from seed 002, not from opcert's reference)
// configured only from what library mode gives it and what it reads from
// the API: its Probe from its request, the CRDs that may opt in and the
// namespaces whose CRs count from listing them (an AllNamespaces
// operator).
type teamAggregator struct {
	c   client.Client
	clk clock.PassiveClock
	v   faithful.Variant
	// opts and agg are the aggregator for what it last read: rebuilt
	// when that changes.
	opts faithful.Options
	agg  *faithful.Aggregator
}

func (a *teamAggregator) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	crds := &unstructured.UnstructuredList{}
	crds.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinitionList"))
	if err := a.c.List(ctx, crds); err != nil {
		return reconcile.Result{}, err
	}
	var nss corev1.NamespaceList
	if err := a.c.List(ctx, &nss); err != nil {
		return reconcile.Result{}, err
	}
	o := faithful.Options{Probe: req.NamespacedName}
	for _, c := range crds.Items {
		for k := range c.GetAnnotations() {
			if strings.HasPrefix(k, "olm.operatorframework.io/condition.") {
				o.CRDs = append(o.CRDs, c.GetName())
				break
			}
		}
	}
	for _, ns := range nss.Items {
		o.Namespaces = append(o.Namespaces, ns.Name)
	}
	if a.agg == nil || o.Probe != a.opts.Probe || !slices.Equal(o.CRDs, a.opts.CRDs) || !slices.Equal(o.Namespaces, a.opts.Namespaces) {
		a.opts, a.agg = o, a.v.New(a.c, a.clk, o)
	}
	return a.agg.Reconcile(ctx, req)
}

// A team's aggregator (library mode) passes the built-ins it is faithful
// to; one that never writes its Probe's status does not pass.
func TestTeamAggregator(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	variant := faithful.Variants()[1] // faithful-example: a look 5s after a change
	team := func(c client.Client, clk clock.PassiveClock, _ string) reconcile.Reconciler {
		return &teamAggregator{c: c, clk: clk, v: variant}
	}
	scs := []string{"olm-seed-example", "olm-annotations-change", "olm-one-of-many"}
	rep, err := certify.Run(t.Context(), certify.Options{Mechanism: "olm", Role: "aggregator", New: team,
		Scenarios: scs, Config: config})
	if err != nil {
		t.Fatal(err)
	}
	if v := rep.Verdict(); v != "PASS" || len(rep.Runs) != len(scs) {
		for _, run := range rep.Runs {
			t.Log(run.Headline(), run.Error)
			for _, c := range run.Cases {
				t.Log(c.Rule, c.Status, c.Message)
			}
		}
		t.Fatalf("%s (%s) on %d runs; want PASS on %d", v, variant.Name, len(rep.Runs), len(scs))
	}

	// Reads the CRDs, writes nothing.
	mute := func(c client.Client, _ clock.PassiveClock, _ string) reconcile.Reconciler {
		return reconcile.Func(func(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
			crds := &unstructured.UnstructuredList{}
			crds.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinitionList"))
			return reconcile.Result{}, c.List(ctx, crds)
		})
	}
	rep, err = certify.Run(t.Context(), certify.Options{Mechanism: "olm", Role: "aggregator", Name: "mute", New: mute,
		Scenarios: scs[:1], Config: config})
	if err != nil {
		t.Fatal(err)
	}
	if v := rep.Verdict(); v == "PASS" {
		t.Errorf("a mute aggregator: %s, want FAIL or NOT JUDGED", v)
	}
}
