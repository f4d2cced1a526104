package apitest

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/opcert/opcert/probe"
	"github.com/opcert/opcert/reference/olm"
)

// The aggregator's flaws that live in the adapter, each against the
// reference in the same world: the reference does what the seed says, the
// flawed aggregator what its description says. (The flaws of the cores are
// cases of their table tests in package olm.)
func TestAggregatorFlaws(t *testing.T) {
	operatorsFalse := probe.Status{Conditions: []metav1.Condition{{Type: "Upgradeable", Status: metav1.ConditionFalse,
		Reason: "FooProcess", Message: "FooProcess is running", LastTransitionTime: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}}}
	i := 0 // each run its own namespace: two cases may share a flaw
	for _, tc := range []struct {
		name string
		flaw olm.AggregatorFlaw
		// world builds the test's world in namespace ns (and ns+"-z", a
		// second target namespace that sorts last), may call the
		// aggregator a, and returns how many times to call it after.
		world func(h *harness, a *olm.Aggregator) int
		// reference and flawed are Upgradeable's status on the Probe after,
		// for each ("" when there is none, "no Probe" when there is no
		// Probe).
		reference, flawed string
		// check, if set, compares more of the Probe.
		check func(t *testing.T, flawed bool, p *probe.Probe)
	}{
		{name: "ignores-namespace: a blocking CR in the last namespace", flaw: olm.IgnoresNamespace,
			world: func(h *harness, _ *olm.Aggregator) int {
				h.annotate(foos, seedAnnotations)
				h.foo(h.ns+"-z", "foo-example", seedCR...)
				return 1
			}, reference: "False", flawed: "True"},
		{name: "ignores-manager: an operator's Probe is aggregated", flaw: olm.IgnoresManager,
			world: func(h *harness, _ *olm.Aggregator) int {
				h.annotate(foos, seedAnnotations)
				h.writeProbe(&probe.Spec{Manager: probe.ManagerOperator}, operatorsFalse)
				return 1
			}, reference: "False", flawed: "True"},
		{name: "nil-spec-aggregates: a Probe with a nil spec is aggregated", flaw: olm.NilSpecAggregates,
			world: func(h *harness, _ *olm.Aggregator) int {
				h.annotate(foos, seedAnnotations)
				h.writeProbe(nil, probe.Status{})
				h.foo(h.ns, "foo-example", seedCR...)
				return 1
			}, reference: "", flawed: "False",
			check: func(t *testing.T, _ bool, p *probe.Probe) {
				if p.Spec != nil {
					t.Errorf("the nil spec was written: %+v", p.Spec)
				}
			}},
		{name: "frozen-spec: an annotation change does not reach the spec", flaw: olm.FrozenSpec,
			world: func(h *harness, a *olm.Aggregator) int {
				h.annotate(foos, seedAnnotations)
				h.reconcile(a, h.key())
				h.annotate(foos, map[string]string{keyUpgradeable: "Ready"})
				return 1
			}, reference: "True", flawed: "True",
			check: func(t *testing.T, flawed bool, p *probe.Probe) {
				want := "Ready"
				if flawed {
					want = "!Migrating"
				}
				if got := p.Spec.ProbeResources[0].Upgradeable; got != want {
					t.Errorf("spec's Upgradeable %q, want %q", got, want)
				}
			}},
		{name: "late: the first status is written only at the second reconcile", flaw: olm.Late,
			world: func(h *harness, _ *olm.Aggregator) int {
				h.annotate(foos, seedAnnotations)
				h.foo(h.ns, "foo-example", seedCR...)
				return 1
			}, reference: "False", flawed: ""},
		{name: "late: one change behind", flaw: olm.Late,
			world: func(h *harness, a *olm.Aggregator) int {
				h.annotate(foos, seedAnnotations)
				h.reconcile(a, h.key()) // no Foo yet: upgradeable, owed to the next change
				a.Map(h.ctx, h.foo(h.ns, "foo-example", seedCR...))
				return 2 // the change, then its own write's wake-up, which changes nothing
			}, reference: "False", flawed: "True",
			check: func(t *testing.T, flawed bool, p *probe.Probe) {
				if flawed {
					if len(p.Status.ProbeResources) != 0 {
						t.Errorf("the flaw lists %v, the change before listed nothing", p.Status.ProbeResources)
					}
					return
				}
				if reasons := p.Status.ProbeResources[0].Reasons; !reflect.DeepEqual(reasons, []string{"!Migrating", "UnhealthyDatabase", "BadConnectivity"}) {
					t.Errorf("reasons %q", reasons)
				}
			}},
		{name: "waits-for-crs: an annotation and no CR: no Probe", flaw: olm.WaitsForCRs,
			world: func(h *harness, _ *olm.Aggregator) int {
				h.annotate(foos, seedAnnotations)
				return 1
			}, reference: "True", flawed: "no Probe"},
		{name: "waits-for-crs: once a CR exists the Probe is the reference's", flaw: olm.WaitsForCRs,
			world: func(h *harness, a *olm.Aggregator) int {
				h.annotate(foos, seedAnnotations)
				h.reconcile(a, h.key())
				a.Map(h.ctx, h.foo(h.ns, "foo-example", seedCR...))
				return 1
			}, reference: "False", flawed: "False"},
		{name: "nil-spec-as-empty: a Probe with a nil spec gets a status", flaw: olm.NilSpecAsEmpty,
			world: func(h *harness, _ *olm.Aggregator) int {
				h.annotate(foos, seedAnnotations)
				h.writeProbe(nil, probe.Status{})
				h.foo(h.ns, "foo-example", seedCR...)
				return 1
			}, reference: "", flawed: "True",
			check: func(t *testing.T, _ bool, p *probe.Probe) {
				if p.Spec != nil || len(p.Status.ProbeResources) != 0 {
					t.Errorf("spec %+v, probeResources %+v: want both nil", p.Spec, p.Status.ProbeResources)
				}
			}},
		{name: "drops-important: the spec has no Important expression", flaw: olm.DropsImportant,
			world: func(h *harness, _ *olm.Aggregator) int {
				h.annotate(foos, seedAnnotations)
				return 1
			}, reference: "True", flawed: "True",
			check: func(t *testing.T, flawed bool, p *probe.Probe) {
				if got := p.Spec.ProbeResources[0].Important != ""; got == flawed {
					t.Errorf("spec %+v: Important kept %v", p.Spec, got)
				}
			}},
		{name: "misnamed-probe: the Probe is not where the gate looks", flaw: olm.MisnamedProbe,
			world: func(h *harness, _ *olm.Aggregator) int {
				h.annotate(foos, seedAnnotations)
				return 1
			}, reference: "True", flawed: "no Probe"},
	} {
		for _, flaw := range []olm.AggregatorFlaw{"", tc.flaw} {
			i++
			name := "reference"
			if flaw != "" {
				name = "flawed"
			}
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				h := start(t, fmt.Sprintf("olm-flaw-%d-%s-%s", i, tc.flaw, name))
				h.namespace(h.ns + "-z")
				a := h.aggregatorWith(flaw)
				for range tc.world(h, a) {
					h.reconcile(a, h.key())
				}
				p, _ := h.probe()
				want := tc.reference
				if flaw != "" {
					want = tc.flawed
				}
				got := ""
				if p == nil {
					got = "no Probe"
				} else if c := find(p.Status.Conditions, olm.ConditionUpgradeable); c != nil {
					got = string(c.Status)
				}
				if got != want {
					t.Errorf("Upgradeable %q, want %q", got, want)
				}
				if tc.check != nil {
					tc.check(t, flaw != "", p)
				}
			})
		}
	}
}

// aggregatorWith is an aggregator of the test's Probe with a flaw, its
// target namespaces the test's and the one that sorts after it.
func (h *harness) aggregatorWith(flaw olm.AggregatorFlaw) *olm.Aggregator {
	h.t.Helper()
	a, err := olm.NewAggregator(api.Client, h.clk, olm.AggregatorOptions{Probe: types.NamespacedName{Namespace: h.ns, Name: csv},
		CRDs: []string{foos, bars}, Namespaces: []string{h.ns + "-z", h.ns}, Flaw: flaw})
	if err != nil {
		h.t.Fatal(err)
	}
	return a
}
