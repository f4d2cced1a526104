package conformance_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
)

var _ = Describe("opcert fuzz", func() {
	m := stale.Mechanism(stale.DefaultConfig())
	fuzz := func(stem string, detector string, d time.Duration) *conformance.Finding {
		GinkgoHelper()
		cast, err := conformance.Subjects(m, map[string]string{"detector": detector})
		Expect(err).NotTo(HaveOccurred())
		f, err := conformance.Fuzz(context.Background(), api.Client, m, cast, conformance.FuzzOptions{
			Draw: 1, Runs: 4, Duration: d, ShrinkRuns: 100, Stem: stem})
		Expect(err).NotTo(HaveOccurred())
		return f
	}

	It("finds nothing wrong with the reference on drawn schedules", func() {
		Expect(fuzz("g", "reference", 6*time.Hour)).To(BeNil())
	})

	It("shrinks a mutant's random failure to a few steps that replay it", func() {
		f := fuzz("h", "lenient", 12*time.Hour) // never sets anything Unknown
		Expect(f).NotTo(BeNil())
		Expect(len(f.Drawn.Steps)).To(BeNumerically(">=", 10), "a schedule worth shrinking")
		Expect(f.Failure).To(Equal("STALE-004"))
		Expect(len(f.Drawn.Steps)).To(BeNumerically(">", len(f.Minimal.Steps)))
		Expect(len(f.Minimal.Steps)).To(BeNumerically("<=", 3), "%s", f.MinimalFile)
		Expect(f.Minimal.Duration.Duration).To(BeNumerically("<", f.Drawn.Duration.Duration))
		c, ok := conformancetest.Case(f.MinimalRun, "STALE-004")
		Expect(ok && c.Status == reports.Fail).To(BeTrue())

		// The minimal file replays the failure; the reference passes it.
		sc, err := scenarios.Parse("min.yaml", f.MinimalFile)
		Expect(err).NotTo(HaveOccurred())
		for detector, want := range map[string]reports.Status{"lenient": reports.Fail, "reference": reports.Pass} {
			cast, err := conformance.Subjects(m, map[string]string{"detector": detector})
			Expect(err).NotTo(HaveOccurred())
			run, _ := conformance.Play(context.Background(), api.Client, m, sc, cast, conformance.Options{Prefix: prefix()})
			c, _ := conformancetest.Case(run, "STALE-004")
			Expect(c.Status).To(Equal(want), detector)
		}
	})
})
