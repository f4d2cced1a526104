package certify

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
)

// perturbed tells whether the runs are judged by convergence: explored
// (Options.Perturb), or a scenario has perturb steps.
func (p *plan) perturbed() bool {
	return p.opts.Perturb != nil || slices.ContainsFunc(p.scs, (*scenarios.Scenario).Perturbed)
}

// explore explores each scenario's perturbations (Options.Perturb) into
// rep, and writes each failure's scenario files into Out if set.
func (p *plan) explore(ctx context.Context, a *api, rep *reports.Report) error {
	for _, sc := range p.scs {
		wctx, stop := a.watch(ctx)
		x, err := conformance.Explore(wctx, a.client, p.m, p.cast, sc, conformance.ExploreOptions{
			Perturbing: p.opts.Perturb.WithDefaults(), Stem: prefix()})
		stop()
		if x != nil {
			rep.Runs = append(rep.Runs, p.kept(x.Unperturbed))
			for _, r := range x.Runs {
				rep.Runs = append(rep.Runs, p.kept(r))
			}
			if err == nil {
				err = p.writeFindings(x.Findings)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *plan) kept(run reports.Run) reports.Run {
	run.Cases = p.keep(run.Cases)
	return run
}

// writeFindings writes each failure's scenario, and the smallest one
// shrinking found, into Out.
func (p *plan) writeFindings(found []*conformance.Finding) error {
	if p.opts.Out == "" {
		return nil
	}
	if err := os.MkdirAll(p.opts.Out, 0o755); err != nil {
		return err
	}
	for _, f := range found {
		files := map[string][]byte{f.Drawn.Name + ".yaml": f.DrawnFile}
		if f.Minimal != nil {
			files[f.Minimal.Name+".yaml"] = f.MinimalFile
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(p.opts.Out, name), data, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
