package clusteroperator_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/clusteroperator"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// The generic apiErrors fault (scenarios' apiErrors, sim.FailCalls) on the
// operators of an upgrade: the reference rides it out.
var _ = Describe("the reference under an API fault", func() {
	It("retries its failed writes and converges once the fault clears, passing every CO rule", func() {
		sc, err := scenarios.Load("testdata/operator-write-errors.yaml")
		Expect(err).NotTo(HaveOccurred())
		m := clusteroperator.Mechanism(clusteroperator.DefaultConfig())
		cast, err := conformance.Subjects(m, nil)
		Expect(err).NotTo(HaveOccurred())
		run, tl := conformance.Play(context.Background(), api.Client, m, sc, cast, conformance.Options{Prefix: prefix()})
		Expect(run.Error).To(BeEmpty())
		for _, c := range run.Cases {
			Expect(c.Status).To(Or(Equal(reports.Pass), Equal(reports.Skip)), "%s: %s %s", c.Rule, c.Status, c.Message)
		}
		Expect(verdict(run, "EXPECT").Status).To(Equal(reports.Pass))

		from, to := timeline.Epoch.Add(5*time.Minute+5*time.Second), timeline.Epoch.Add(6*time.Minute+5*time.Second)
		faults, clears := map[string]time.Time{}, map[string]time.Time{}
		failedAt := map[time.Time]bool{}
		var after []timeline.Event // kube-apiserver's writes once the fault cleared
		for _, e := range tl.Events() {
			switch {
			case e.Verb == timeline.VerbFault:
				faults[e.Actor] = e.Time
				Expect(e.Detail).To(Equal("writes fail with 500 InternalError"))
			case e.Verb == timeline.VerbClear:
				clears[e.Actor] = e.Time
			case e.Failed && e.Object.Kind == "ClusterOperator":
				Expect(e.Role).To(Equal(clusteroperator.RoleOperator), "%s failed a write", e.Actor)
				Expect(e.Time).To(And(BeTemporally(">=", from), BeTemporally("<", to)), "a failed write outside the window")
				Expect(e.Detail).To(HavePrefix("Internal error occurred: "))
				failedAt[e.Time] = true
			case e.IsWrite() && e.Object.Name == "kube-apiserver" && !e.Time.Before(to):
				after = append(after, e)
			}
		}
		for _, c := range []string{"kube-apiserver", "kube-controller-manager", "network"} {
			actor := clusteroperator.OperatorActor(c)
			Expect(faults).To(HaveKeyWithValue(actor, from), "every operator's fault starts with the window")
			Expect(clears).To(HaveKeyWithValue(actor, to), "and ends with it")
		}
		Expect(len(failedAt)).To(BeNumerically(">", 1), "the operator retried its write")
		Expect(after).NotTo(BeEmpty(), "kube-apiserver's operator wrote again once the fault cleared")
	})
})
