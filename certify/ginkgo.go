package certify

import (
	"github.com/onsi/ginkgo/v2"

	"github.com/opcert/opcert/reports"
)

// Describe registers the conformance specs in the calling Ginkgo v2 suite,
// at the top level of a test file:
//
//	var _ = certify.Describe(certify.Options{Mechanism: "stale", Role: "operator", New: ...})
//
// It makes one container per scenario and in it one spec per rule, labelled
// with the mechanism and the rule's ID (and "opcert"), so that
// `--label-filter=STALE-007` runs just those and the suite's JUnit report
// carries each verdict. A scenario is played once, by the first of its
// specs that runs; a failed rule fails its spec with the rule's message and
// evidence, a rule with nothing to judge skips it. The specs are Ordered
// (they share the API server, started or attached in a BeforeAll) and
// ContinueOnFailure (one failed rule does not skip the others).
func Describe(opts Options) bool {
	p, err := newPlan(opts)
	title := "opcert " + opts.Mechanism + " " + opts.Role
	return ginkgo.Describe(title, ginkgo.Ordered, ginkgo.ContinueOnFailure, ginkgo.Label("opcert", opts.Mechanism), func() {
		if err != nil {
			ginkgo.It("has options opcert can run", func() { ginkgo.Fail(err.Error()) })
			return
		}
		var a *api
		played := map[string]reports.Run{}
		ginkgo.BeforeAll(func(ctx ginkgo.SpecContext) {
			var err error
			if a, err = connect(ctx, p.opts); err != nil {
				ginkgo.Fail(err.Error())
			}
			ginkgo.DeferCleanup(func() error {
				a.close()
				return p.write(played, a.env)
			})
		})
		for _, sc := range p.scs {
			ginkgo.Describe(sc.Name, func() {
				for _, id := range p.ids() {
					ginkgo.It(p.statement(id), ginkgo.Label(id), func(ctx ginkgo.SpecContext) {
						run, ok := played[sc.Name]
						if !ok {
							run, _ = p.play(ctx, a, sc)
							played[sc.Name] = run
						}
						o := outcomeOf(run, id)
						if o.skipped != "" {
							ginkgo.AddReportEntry("steps that did not apply to "+p.opts.Name, o.skipped)
						}
						switch o.status {
						case reports.Fail:
							ginkgo.Fail(o.text)
						case reports.Skip:
							ginkgo.Skip(o.text)
						default:
							ginkgo.AddReportEntry("opcert", o.text)
						}
					})
				}
			})
		}
	})
}

// write writes the report of the runs played, in scenario order, to
// Options.Out if set.
func (p *plan) write(played map[string]reports.Run, env reports.Environment) error {
	if p.opts.Out == "" {
		return nil
	}
	rep := &reports.Report{Tool: "opcert certify", Environment: env}
	for _, sc := range p.scs {
		if run, ok := played[sc.Name]; ok {
			rep.Runs = append(rep.Runs, run)
		}
	}
	return reports.WriteAll(p.opts.Out, rep)
}
