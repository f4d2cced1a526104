package conformance_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/reference/operator"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
)

// A subject opcert did not write plays a role through conformance.Reconciler:
// here the reference operator, built as a team would build theirs.
var _ = Describe("a team's reconciler in a role", func() {
	team := conformance.Subject{Name: "team", Impl: conformance.Reconciler{New: func(in conformance.Instance) (reconcile.Reconciler, error) {
		return operator.New(in.Client, in.Clock, in.Name, 2*time.Second, []operator.Condition{
			{Type: "Available", Status: "True", Reason: "AsExpected", Message: "All is well"},
			{Type: "Degraded", Status: "False", Reason: "AsExpected", Message: "No problems"},
			{Type: "Progressing", Status: "False", Reason: "AsExpected", Message: "Desired and current version match"},
			{Type: "Upgradeable", Status: "True", Reason: "AsExpected", Message: "Safe to upgrade"},
		}), nil
	}}}
	m := stale.Mechanism(stale.DefaultConfig())
	cast := func() conformance.Cast {
		c, err := conformance.Subjects(m, nil)
		Expect(err).NotTo(HaveOccurred())
		c["operator"] = team
		return c
	}

	It("is judged like the reference", func() {
		sc, err := scenarios.BuiltinNamed("stale-healthy-answer")
		Expect(err).NotTo(HaveOccurred())
		run, _ := conformance.Play(context.Background(), api.Client, m, sc, cast(), conformance.Options{Prefix: prefix()})
		Expect(run.Error).To(BeEmpty())
		Expect(run.Subjects).To(HaveKeyWithValue("operator", "team"))
		for _, c := range run.Cases {
			Expect(c.Status).NotTo(Equal(reports.Fail), "%s: %s", c.Rule, c.Message)
		}
	})

	It("has the steps that cannot apply to it skipped, and said", func() {
		sc, err := scenarios.Parse("skip.yaml", []byte(`name: skip
mechanism: stale
duration: 5m
operators:
  - name: etcd
    conditions: [{type: Available, status: "True", reason: AsExpected, message: All is well}]
steps:
  - at: 1m
    setCondition: {operator: etcd, type: Available, status: "False", reason: Broken, message: Down}
  - at: 2m
    expect: {object: etcd, condition: Available, status: "True"}
`))
		Expect(err).NotTo(HaveOccurred())
		run, _ := conformance.Play(context.Background(), api.Client, m, sc, cast(), conformance.Options{Prefix: prefix()})
		Expect(run.Error).To(BeEmpty())
		c, ok := conformancetest.Case(run, "EXPECT")
		Expect(ok).To(BeTrue())
		Expect(c.Status).To(Equal(reports.Pass))
		Expect(c.Message).To(ContainSubstring("1 steps skipped as not applying to the subjects (first, skip.yaml:8: setCondition: the operator is not opcert's"))
	})
})
