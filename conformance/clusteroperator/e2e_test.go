package clusteroperator_test

import (
	"bytes"
	"context"
	"slices"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/clusteroperator"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	RegisterFailHandler(Fail)
	RunSpecs(t, "seed 001 (clusteroperator) on envtest")
}

// builtins are this mechanism's built-in scenarios.
func builtins() []*scenarios.Scenario { return conformancetest.Builtins(clusteroperator.Name) }

func play(name string, choices map[string]string) (reports.Run, *timeline.Timeline) {
	GinkgoHelper()
	sc, err := scenarios.BuiltinNamed(name)
	Expect(err).NotTo(HaveOccurred())
	m := clusteroperator.Mechanism(clusteroperator.DefaultConfig())
	cast, err := conformance.Subjects(m, choices)
	Expect(err).NotTo(HaveOccurred())
	run, tl := conformance.Play(context.Background(), api.Client, m, sc, cast, conformance.Options{Prefix: prefix()})
	Expect(run.Error).To(BeEmpty())
	return run, tl
}

// expects tells whether a scenario has expectations (co-install-incomplete
// has none that every faithful operator meets).
func expects(sc *scenarios.Scenario) bool {
	return slices.ContainsFunc(sc.Steps, func(st scenarios.Step) bool { return st.Expect != nil })
}

func verdict(run reports.Run, rule string) reports.Case {
	GinkgoHelper()
	c, ok := conformancetest.Case(run, rule)
	Expect(ok).To(BeTrue(), "no case %s", rule)
	return c
}

// The reference passes every built-in on its golden timeline
// (suite_test.go), the same timeline each time.
var _ = Describe("the reference", func() {
	It("gives the same timeline twice, byte for byte (001's world is deterministic)", func() {
		_, a := play("co-operator-restart", nil)
		_, b := play("co-operator-restart", nil)
		var ab, bb bytes.Buffer
		Expect(a.WriteJSONL(&ab)).To(Succeed())
		Expect(b.WriteJSONL(&bb)).To(Succeed())
		Expect(ab.String()).To(Equal(bb.String()))
	})
})

// A team's reconciler plays the operator role through conformance.Reconciler
// (library mode, package certify), judged like the reference.
var _ = It("judges a team's reconciler in the operator role like the reference", func() {
	sc, err := scenarios.BuiltinNamed("co-clean-upgrade")
	Expect(err).NotTo(HaveOccurred())
	m := clusteroperator.Mechanism(clusteroperator.DefaultConfig())
	cast, err := conformance.Subjects(m, nil)
	Expect(err).NotTo(HaveOccurred())
	cast[clusteroperator.RoleOperator] = conformance.Subject{Name: "team", Impl: clusteroperator.ReferenceAsTeam(sc.World.(*clusteroperator.World))}
	run, _ := conformance.Play(context.Background(), api.Client, m, sc, cast, conformance.Options{Prefix: prefix()})
	Expect(run.Error).To(BeEmpty())
	Expect(run.Subjects).To(HaveKeyWithValue("operator", "team"))
	for _, c := range run.Cases {
		Expect(c.Status).To(Or(Equal(reports.Pass), Equal(reports.Skip)), "%s: %s", c.Rule, c.Message)
	}
})
