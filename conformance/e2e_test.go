package conformance_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	RegisterFailHandler(Fail)
	RunSpecs(t, "opcert conformance on envtest")
}

func play(name string, choices map[string]string) (reports.Run, *timeline.Timeline) {
	GinkgoHelper()
	sc, err := scenarios.BuiltinNamed(name)
	Expect(err).NotTo(HaveOccurred())
	m := stale.Mechanism(stale.DefaultConfig())
	subjects, err := conformance.Subjects(m, choices)
	Expect(err).NotTo(HaveOccurred())
	run, tl := conformance.Play(context.Background(), api.Client, m, sc, subjects, conformance.Options{Prefix: prefix()})
	Expect(run.Error).To(BeEmpty())
	return run, tl
}

func verdict(run reports.Run, rule string) reports.Case {
	GinkgoHelper()
	c, ok := conformancetest.Case(run, rule)
	Expect(ok).To(BeTrue(), "no case %s", rule)
	return c
}

var _ = Describe("the reference", func() {
	all, err := scenarios.Builtin()
	if err != nil {
		panic(err)
	}
	for _, sc := range all {
		It("passes every rule and expectation in "+sc.Name+", on its golden timeline", func() {
			run, tl := play(sc.Name, nil)
			Expect(conformancetest.Golden(sc.Name, tl)).To(Succeed())
			for _, c := range run.Cases {
				Expect(c.Status).NotTo(Equal(reports.Fail), "%s: %s", c.Rule, c.Message)
			}
			if len(sc.Steps) > 0 {
				Expect(verdict(run, "EXPECT").Status).To(Equal(reports.Pass))
			}
		})
	}

	It("gives the same timeline twice, byte for byte (000 is deterministic)", func() {
		_, a := play("stale-restart-after-unknown", nil)
		_, b := play("stale-restart-after-unknown", nil)
		var ja, jb bytes.Buffer
		Expect(a.WriteJSONL(&ja)).To(Succeed())
		Expect(b.WriteJSONL(&jb)).To(Succeed())
		Expect(ja.String()).To(Equal(jb.String()))
		Expect(ja.Len()).To(BeNumerically(">", 1000))
	})

	It("gives the same timeline and report with 2, 4 and 8 workers", func() {
		// A fleet with chaos: many objects at each instant, so that workers
		// run in parallel and any dependence on their timing would show.
		sc, err := scenarios.Parse("workers.yaml", []byte(`name: workers
mechanism: stale
duration: 2h
operators:
  - name: op
    count: 12
    answerDelay: 2s
    conditions:
      - {type: Available, status: "True", reason: AsExpected, message: All is well}
      - {type: Degraded, status: "False", reason: AsExpected, message: No problems}
chaos: {seed: 7, meanUptime: 40m, downtime: {min: 5m, max: 25m}, hang: 0.3}
`))
		Expect(err).NotTo(HaveOccurred())
		m := stale.Mechanism(stale.DefaultConfig())
		cast, err := conformance.Subjects(m, nil)
		Expect(err).NotTo(HaveOccurred())
		var first, firstReport string
		for _, workers := range []int{2, 4, 8} {
			run, tl := conformance.Play(context.Background(), api.Client, m, sc, cast, conformance.Options{Prefix: prefix(), Workers: workers})
			Expect(run.Error).To(BeEmpty())
			var b bytes.Buffer
			Expect(tl.WriteJSONL(&b)).To(Succeed())
			// The report too, once its wall-clock fields are left out, in
			// every format.
			rep := &reports.Report{Tool: "opcert", StartedAt: time.Now(), Wall: time.Duration(workers),
				Environment: reports.Environment{KubeVersion: api.KubeVersion, Assets: api.Assets, Startup: api.Startup}, Runs: []reports.Run{run}}
			rep.Normalize()
			var r bytes.Buffer
			Expect(reports.WriteJSON(&r, rep)).To(Succeed())
			Expect(reports.WriteJUnit(&r, rep)).To(Succeed())
			Expect(reports.WriteMarkdown(&r, rep)).To(Succeed())
			if first == "" {
				first, firstReport = b.String(), r.String()
				Expect(strings.Count(first, "\n")).To(BeNumerically(">", 200), "too quiet to mean much")
				continue
			}
			Expect(b.String()).To(Equal(first), "%d workers", workers)
			Expect(r.String()).To(Equal(firstReport), "the report with %d workers", workers)
		}
	})

	It("measures the stale answer time per operator (000 §Test Plan)", func() {
		run, _ := play("stale-healthy-answer", nil)
		c := verdict(run, "STALE-007")
		Expect(c.Status).To(Equal(reports.Pass))
		Expect(c.Measures).To(HaveLen(1))
		m := c.Measures[0]
		Expect(m.Name).To(Equal("ClusterOperator/etcd"))
		Expect(m.Count).To(BeNumerically(">=", 5))
		Expect(m.P50.Seconds()).To(Equal(2.0))
		Expect(m.Max.Seconds()).To(Equal(2.0))
	})
})

// Every rule is shown to fail on a subject broken for that reason.
var _ = DescribeTable("a broken subject fails its rule",
	func(role, subject, scenario, rule string) {
		run, _ := play(scenario, map[string]string{role: subject})
		c := verdict(run, rule)
		Expect(c.Status).To(Equal(reports.Fail), "%s=%s should fail %s on %s", role, subject, rule, scenario)
		Expect(c.Message).To(ContainSubstring("ClusterOperator/etcd"))
		Expect(c.Evidence).NotTo(BeEmpty())
	},
	Entry(nil, "detector", "eager", "stale-healthy-answer", "STALE-001"),
	Entry(nil, "detector", "lazy", "stale-healthy-answer", "STALE-002"),
	Entry(nil, "detector", "paraphrase", "stale-healthy-answer", "STALE-003"),
	Entry(nil, "detector", "lenient", "stale-operator-death", "STALE-004"),
	Entry(nil, "detector", "mark-late-31s", "stale-operator-death", "STALE-004"),
	Entry(nil, "detector", "stubborn", "stale-healthy-answer", "STALE-005"),
	Entry(nil, "detector", "chatty", "stale-operator-death", "STALE-006"),
	Entry(nil, "operator", "slow", "stale-healthy-answer", "STALE-007"),
	Entry(nil, "operator", "deaf", "stale-healthy-answer", "STALE-008"),
)

var _ = It("catches an operator that slowed down when the budget is tightened", func() {
	sc, err := scenarios.BuiltinNamed("stale-operator-slows-down")
	Expect(err).NotTo(HaveOccurred())
	cfg := stale.DefaultConfig()
	cfg.AnswerBudget = 15 * time.Second
	m := stale.Mechanism(cfg)
	subjects, err := conformance.Subjects(m, nil)
	Expect(err).NotTo(HaveOccurred())
	run, _ := conformance.Play(context.Background(), api.Client, m, sc, subjects, conformance.Options{Prefix: prefix()})
	c := verdict(run, "STALE-007")
	Expect(c.Status).To(Equal(reports.Fail))
	Expect(c.Message).To(ContainSubstring("challenged at +20m2s was reset after 20s, over the 15s budget"))
	Expect(c.Measures[0].Max).To(Equal(20 * time.Second))
	Expect(c.Measures[0].Count).To(Equal(3)) // answered in 2s, 20s, 20s
})

var _ = It("reports the slow operator against the 30s budget with its figures", func() {
	run, _ := play("stale-healthy-answer", map[string]string{"operator": "slow"})
	c := verdict(run, "STALE-007")
	Expect(c.Status).To(Equal(reports.Fail))
	Expect(c.Message).To(ContainSubstring("reset after 45s, over the 30s budget"))
	Expect(c.Measures[0].Max.Seconds()).To(Equal(45.0))
	Expect(c.Measures[0].Budget.Seconds()).To(Equal(30.0))
})

var _ = Describe("a run stopped before its end", func() {
	It("is not judged against the full duration", func() {
		sc, err := scenarios.BuiltinNamed("stale-operator-death")
		Expect(err).NotTo(HaveOccurred())
		m := stale.Mechanism(stale.DefaultConfig())
		subjects, err := conformance.Subjects(m, nil)
		Expect(err).NotTo(HaveOccurred())
		// Ctrl-C at +15m: the challenge at +10m is out, the mark due at
		// +20m never comes. Judged against 30m it would fail STALE-004.
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		run, _ := conformance.Play(ctx, api.Client, m, sc, subjects, conformance.Options{Prefix: prefix(),
			Progress: func(virtual time.Duration) {
				if virtual >= 15*time.Minute {
					cancel(conformance.ErrInterrupted)
				}
			}})
		Expect(run.Stopped).To(Equal(reports.StopInterrupted))
		Expect(run.Reached).To(BeNumerically(">=", 15*time.Minute))
		Expect(run.Reached).To(BeNumerically("<", sc.Duration.Duration))
		for _, c := range run.Cases {
			Expect(c.Status).To(Equal(reports.Skip), "%s: %s", c.Rule, c.Message)
			Expect(c.Message).To(HavePrefix("not judged: the run stopped (interrupted)"))
		}
	})
})
