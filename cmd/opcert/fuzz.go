package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/visible"
)

type fuzzOptions struct {
	out        string
	mechanism  string
	draw       uint64
	runs       int
	duration   time.Duration
	shrinkRuns int
	subjects   []string
	apiPort    int
	strict     bool
	mechanisms mechanismFlags
}

func newFuzz() *cobra.Command {
	o := fuzzOptions{}
	cmd := &cobra.Command{
		Use:   "fuzz --mechanism NAME",
		Short: "Run randomly drawn fault schedules, and shrink a failure to a small scenario",
		Long: `Run randomly drawn fault schedules, and shrink a failure to a small scenario.

Each run draws a scenario from its number (--draw, then --draw+1, ...): a world
of the mechanism (operators, nodes, revisions) and faults over --duration
(deaths, hangs, restarts, and whatever else the mechanism's scenarios offer),
and judges it with every rule; each role is filled by the reference unless
--subject says otherwise. A draw number always draws the same scenario (it
seeds the random source; the designs the rules judge are the other kind of
seed, as in "seed 000").

At the first run that fails a rule (or that its subjects break), opcert fuzz
writes the drawn scenario as a file that replays it, then shrinks it:
removes steps, moves them earlier and ends the run sooner while the same
rule still fails, in at most --shrink-runs runs, and writes the smallest
scenario found beside it. Replay either with 'opcert run FILE'.

--out gets the report of every run (junit.xml, report.json, report.md),
the two scenario files and the failing runs' timelines.

A convention rule (how a message reads) that fails gives a warning, which
is no failure to shrink unless --strict.

Exit codes: 0 every run passed (warnings pass too, unless --strict), 1 a
run failed (files written), 2 the input's fault (flags, --out; nothing
written), 3 the environment's fault (the API server, the disk), 128+n
stopped by signal n (the report directory left as it was).`,
		Example: `  opcert fuzz --mechanism stale --draw 1 --runs 20 --duration 24h
  opcert fuzz --mechanism staticpod --draw 100 --runs 5 --duration 6h
  opcert fuzz --mechanism stale --subject detector=lenient --runs 3 --duration 2h`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "out", "o", "opcert-fuzz", "report directory (replaced when the fuzzing ends)")
	f.StringVarP(&o.mechanism, "mechanism", "m", "", "the mechanism whose scenarios to draw (required): "+strings.Join(scenarios.Drawable(), ", "))
	f.Uint64Var(&o.draw, "draw", 1, "the first draw number (the random source's seed); run i plays draw+i")
	// --seed was the flag's name: kept for scripts, said to be --draw.
	f.Uint64Var(&o.draw, "seed", 1, "")
	_ = f.MarkDeprecated("seed", "use --draw (the same number)")
	f.IntVar(&o.runs, "runs", 10, "how many scenarios to draw and run")
	f.DurationVar(&o.duration, "duration", 24*time.Hour, "virtual time each drawn scenario covers")
	f.IntVar(&o.shrinkRuns, "shrink-runs", 200, "at most this many runs to shrink a failure (0: do not shrink)")
	f.StringArrayVarP(&o.subjects, "subject", "s", nil, "fill a role with a subject, as role=subject (repeatable)")
	f.IntVar(&o.apiPort, "api-port", 0, "port for the API server (0: any free port)")
	f.BoolVar(&o.strict, "strict", false, "count the warnings of convention rules (how messages read) as failures: exit 1 instead of 0")
	o.mechanisms = addMechanismFlags(f)
	return cmd
}

// maxFuzzDuration bounds --duration as scenarios bound theirs.
const maxFuzzDuration = 30 * 24 * time.Hour

func (o *fuzzOptions) check(mechs map[string]conformance.Mechanism) (conformance.Mechanism, error) {
	drawable := strings.Join(scenarios.Drawable(), ", ")
	switch {
	case o.mechanism == "":
		return nil, fmt.Errorf("--mechanism is required: one of %s", drawable)
	case o.runs < 1 || o.runs > 100000:
		return nil, fmt.Errorf("--runs %d is out of range: give 1 to 100000", o.runs)
	case o.duration < time.Second || o.duration > maxFuzzDuration:
		return nil, fmt.Errorf("--duration %s is out of range: give 1s to %s", o.duration, maxFuzzDuration)
	case o.shrinkRuns < 0:
		return nil, fmt.Errorf("--shrink-runs %d is negative: give 0 (do not shrink) or more", o.shrinkRuns)
	}
	m, ok := mechs[o.mechanism]
	if !ok || !strings.Contains(","+strings.ReplaceAll(drawable, " ", "")+",", ","+o.mechanism+",") {
		return nil, fmt.Errorf("--mechanism %q cannot draw scenarios: give one of %s", o.mechanism, drawable)
	}
	return m, nil
}

func (o *fuzzOptions) run(cmd *cobra.Command) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	mechs, err := o.mechanisms.build()
	if err != nil {
		return err
	}
	m, err := o.check(mechs)
	if err != nil {
		return err
	}
	if err := checkPort(o.apiPort); err != nil {
		return err
	}
	if err := checkOut(o.out, programs(o.subjects)...); err != nil {
		return err
	}
	choices, err := parseSubjects(o.subjects, mechs)
	if err != nil {
		return err
	}
	cast, err := conformance.Subjects(m, choices[m.Name()])
	if err != nil {
		return err
	}
	b, err := startBench(cmd.Context(), stderr, o.out, o.apiPort)
	if err != nil {
		return err
	}
	defer b.close()
	staging, w, ctx := b.staging, b.w, b.ctx

	rep := &reports.Report{Tool: "opcert", StartedAt: time.Now().UTC(),
		Environment: environment(w)}
	start := time.Now()
	drawn, shrinks := 0, 0
	finding, err := conformance.Fuzz(ctx, w.Client, m, cast, conformance.FuzzOptions{
		Draw: o.draw, Runs: o.runs, Duration: o.duration, ShrinkRuns: o.shrinkRuns, Dir: w.Dir(), Strict: o.strict,
		Ran: func(sc *scenarios.Scenario, run reports.Run, shrink bool) {
			if shrink {
				shrinks++
				fmt.Fprintf(stderr, "  shrink %d/%d: %d steps over %s: %s\n", shrinks, o.shrinkRuns, len(sc.Steps), sc.Duration.Duration, verdictOf(run))
				return
			}
			drawn++
			rep.Runs = append(rep.Runs, run)
			progress(stderr, drawn, o.runs, run)
		},
	})
	rep.Wall = time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w; %s was left as it was", context.Cause(ctx), o.out)
		}
		return envError{err}
	}
	if finding != nil {
		if err := writeFinding(staging, finding, rep); err != nil {
			return envError{err}
		}
	}
	if err := reports.WriteAll(staging, rep); err != nil {
		return envError{err}
	}
	var verdict error
	if finding != nil {
		verdict = errRulesFailed
	}
	if err := commitReport(staging, o.out, verdict); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	if finding == nil {
		fmt.Fprintf(stdout, "PASS: %d drawn %s scenarios (draws %d to %d, %s each) passed every rule in %s; report in %s\n",
			drawn, m.Name(), o.draw, o.draw+uint64(o.runs)-1, o.duration, rep.Wall.Round(time.Millisecond), o.out)
		return nil
	}
	printFinding(stdout, finding, o.out)
	return errRulesFailed
}

func verdictOf(run reports.Run) string {
	if f := failures(run); f != "" {
		return "fails " + f
	}
	return "passes"
}

// failures lists the rules a run failed.
func failures(run reports.Run) string {
	var ids []string
	for _, c := range run.Cases {
		if c.Status == reports.Fail {
			ids = append(ids, c.Rule)
		}
	}
	if run.Error != "" {
		ids = append(ids, "("+firstLine(run.Error)+")")
	}
	return strings.Join(ids, ", ")
}

// writeFinding writes the drawn and minimal scenario files and the two
// runs' timelines, and adds the minimal run to the report.
func writeFinding(dir string, f *conformance.Finding, rep *reports.Report) error {
	for name, data := range map[string][]byte{f.Drawn.Name + ".yaml": f.DrawnFile, f.Minimal.Name + ".yaml": f.MinimalFile} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	run := f.MinimalRun
	run.Timeline = filepath.Join("timelines", f.Minimal.Name+".jsonl")
	if err := writeTimeline(filepath.Join(dir, run.Timeline), f.MinimalTL.WriteJSONL); err != nil {
		return err
	}
	rep.Runs = append(rep.Runs, run)
	return nil
}

func printFinding(w io.Writer, f *conformance.Finding, out string) {
	fmt.Fprintf(w, "FAIL: draw %d fails %s: %s (%d steps over %s)\n", f.Draw, f.Failure, failures(f.DrawnRun), len(f.Drawn.Steps), f.Drawn.Duration.Duration)
	fmt.Fprintf(w, "shrunk in %d runs to %d steps over %s, which still fails %s\n\n", f.ShrinkRuns, len(f.Minimal.Steps), f.Minimal.Duration.Duration, f.Failure)
	fmt.Fprintf(w, "replay:  opcert run %s\n", visible.Quote(filepath.Join(out, f.Drawn.Name+".yaml")))
	fmt.Fprintf(w, "minimal: opcert run %s\n\n", visible.Quote(filepath.Join(out, f.Minimal.Name+".yaml")))
	w.Write(f.MinimalFile)
	fmt.Fprintf(w, "\nreport in %s (the drawn runs and the minimal one)\n", out)
}
