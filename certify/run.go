package certify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// Run plays every scenario of opts with the team's reconciler in its role
// and returns the report, as `opcert run` would write it, and writes it to
// opts.Out if set. A verdict on the subjects (a rule failed, a run stopped
// by the reconciler, e.g. for stamping wall-clock times) is in the report
// (Report.Failed); the error is for what kept the runs from being made
// (options, scenarios, the API server, writing the files).
func Run(ctx context.Context, opts Options) (*reports.Report, error) {
	p, err := newPlan(opts)
	if err != nil {
		return nil, err
	}
	a, err := connect(ctx, p.opts)
	if err != nil {
		return nil, err
	}
	defer a.close()
	rep := &reports.Report{Tool: "opcert certify", StartedAt: time.Now().UTC(), Environment: a.env}
	start := time.Now()
	if p.opts.Perturb != nil {
		err := p.explore(ctx, a, rep)
		rep.Wall = time.Since(start)
		if err == nil && p.opts.Out != "" {
			err = reports.WriteAll(p.opts.Out, rep)
		}
		return rep, err
	}
	for i, sc := range p.scs {
		run, tl := p.play(ctx, a, sc)
		if p.opts.Out != "" {
			run.Timeline = filepath.Join("timelines", fmt.Sprintf("%02d-%s.jsonl", i+1, sc.Name))
			if err := writeTimeline(filepath.Join(p.opts.Out, run.Timeline), tl); err != nil {
				return nil, err
			}
		}
		rep.Runs = append(rep.Runs, run)
		if run.Stopped == reports.StopInterrupted || run.Stopped == reports.StopEnvironment {
			break // the rest would stop the same way
		}
	}
	rep.Wall = time.Since(start)
	if p.opts.Out != "" {
		if err := reports.WriteAll(p.opts.Out, rep); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// play runs one scenario and keeps the cases asked for.
func (p *plan) play(ctx context.Context, a *api, sc *scenarios.Scenario) (run reports.Run, tl *timeline.Timeline) {
	ctx, stop := a.watch(ctx)
	defer stop()
	run, tl = conformance.Play(ctx, a.client, p.m, sc, p.cast, conformance.Options{Prefix: prefix()})
	run.Cases = p.keep(run.Cases)
	return run, tl
}

// keep filters a run's cases to the rules asked for. The EXPECT case stays,
// as it says which steps did not apply to the team's subject; unless asked
// for it is not judged, since some expectations follow those steps.
func (p *plan) keep(cases []reports.Case) []reports.Case {
	var out []reports.Case
	for _, c := range cases {
		switch {
		case c.Rule == "EXPECT" && !p.expect:
			out = append(out, notJudgedExpect(c))
		case c.Rule == "EXPECT" || c.Rule == judge.ConvergeRule || p.judged(c.Rule):
			out = append(out, c)
		}
	}
	return out
}

func (p *plan) judged(id string) bool {
	for _, r := range p.rules {
		if r.ID == id {
			return true
		}
	}
	return false
}

func notJudgedExpect(c reports.Case) reports.Case {
	var skipped []timeline.Event
	for _, e := range c.Evidence {
		if e.Verb == timeline.VerbSkip {
			skipped = append(skipped, e)
		}
	}
	c.Status, c.Evidence = reports.Skip, skipped
	c.Message = "not judged: the scenario's expectations are written for opcert's own subjects (add EXPECT to Options.Rules to judge them); they found: " + c.Message
	return c
}

func writeTimeline(path string, tl *timeline.Timeline) (err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	return tl.WriteJSONL(f)
}
