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
	"github.com/opcert/opcert/shard"
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
	// reproducible leaves the wall-clock fields out of the reports.
	reproducible bool
	shard        shardFlag
	mechanisms   mechanismFlags
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

With --shard INDEX/COUNT only that shard of the draws is played (balanced
by each drawn scenario's estimated API calls), each as in the whole
campaign, and --out gets shard.json too; 'opcert merge' makes the
campaign's report of the shards' directories: the draws up to the first
that failed in any shard, and its shrinking.

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
	f.BoolVar(&o.reproducible, "reproducible", false, "leave wall-clock fields (start time, durations, API server start-up, binaries' path) out of the reports, so that the same input writes the same files")
	o.shard.add(f)
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
	spec, err := o.shard.spec()
	if err != nil {
		return err
	}
	units, err := o.units(m, spec.On())
	if err != nil {
		return err
	}
	sh := newSharding(cmd, spec, toolFuzz, units)
	sh.says(stderr)
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
		Plays: func(i int) bool { return sh.plays[i] },
		Ran: func(sc *scenarios.Scenario, run reports.Run, shrink bool) {
			if shrink {
				shrinks++
				fmt.Fprintf(stderr, "  shrink %d/%d: %d steps over %s: %s\n", shrinks, o.shrinkRuns, len(sc.Steps), sc.Duration.Duration, verdictOf(run))
				return
			}
			drawn++
			rep.Runs = append(rep.Runs, run)
			progress(stderr, drawn, len(sh.mine), run)
		},
	})
	rep.Wall = time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w; %s was left as it was", context.Cause(ctx), o.out)
		}
		return envError{err}
	}
	var note *findingNote
	var minimal []byte
	if finding != nil {
		minimal = finding.MinimalFile
		if err := writeFinding(staging, finding, rep); err != nil {
			return envError{err}
		}
		n := noteOf(finding, int(finding.Draw-o.draw))
		note = &n
	}
	record := fuzzShard{Mechanism: m.Name(), Draw: o.draw, Runs: o.runs, Duration: o.duration, Finding: note}
	if err := sh.write(staging, rep.StartedAt, rep.Wall, drawn, record); err != nil {
		return envError{err}
	}
	return finishFuzz(stdout, staging, o.out, o.reproducible, rep, record, minimal)
}

// finishFuzz writes a fuzz campaign's report to staging, swaps it in for
// out and says the verdict: the end of a campaign, of a shard of one and
// of a merge of shards.
func finishFuzz(stdout io.Writer, staging, out string, reproducible bool, rep *reports.Report, c fuzzShard, minimal []byte) error {
	if err := writeReport(staging, rep, reproducible); err != nil {
		return err
	}
	verdict := incomplete(rep)
	if c.Finding != nil {
		verdict = errRulesFailed
	}
	if err := commitReport(staging, out, verdict); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	if c.Finding == nil {
		drawn, word := len(rep.Runs), "PASS"
		if verdict != nil {
			word = reports.Incomplete
		}
		fmt.Fprintf(stdout, "%s: %d drawn %s scenarios (draws %d to %d, %s each) passed every rule in %s; report in %s\n",
			word, drawn, c.Mechanism, c.Draw, c.Draw+uint64(c.Runs)-1, c.Duration, rep.Wall.Round(time.Millisecond), out)
		return verdict
	}
	printFinding(stdout, *c.Finding, minimal, out)
	return verdict
}

// fuzzShard is what a fuzz campaign's report holds beside its runs: the
// campaign (a shard's record, for the merge to say it) and its finding.
type fuzzShard struct {
	Mechanism string        `json:"mechanism"`
	Draw      uint64        `json:"draw"`
	Runs      int           `json:"runs"`
	Duration  time.Duration `json:"durationNanos"`
	Finding   *findingNote  `json:"finding,omitempty"`
}

// units are the campaign's draws, each costing its drawn scenario's
// estimated API calls when they are to be balanced (sharded).
func (o *fuzzOptions) units(m conformance.Mechanism, balance bool) ([]shard.Unit, error) {
	out := make([]shard.Unit, o.runs)
	for i := range out {
		draw := o.draw + uint64(i)
		out[i].Key = fmt.Sprintf("draw %d", draw)
		if !balance {
			continue
		}
		sc, _, err := scenarios.Drawn(m.Name(), draw, o.duration)
		if err != nil {
			return nil, err
		}
		out[i].Cost = int64((plan{sc: sc, m: m}).calls())
	}
	return out, nil
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

func printFinding(w io.Writer, f findingNote, minimal []byte, out string) {
	fmt.Fprintf(w, "FAIL: draw %d fails %s: %s (%d steps over %s)\n", f.Draw, f.Failure, f.Failures, f.DrawnSteps, f.DrawnDuration)
	fmt.Fprintf(w, "shrunk in %d runs to %d steps over %s, which still fails %s\n\n", f.ShrinkRuns, f.MinimalSteps, f.MinimalDuration, f.Failure)
	fmt.Fprintf(w, "replay:  opcert run %s\n", visible.Quote(filepath.Join(out, f.Drawn+".yaml")))
	fmt.Fprintf(w, "minimal: opcert run %s\n\n", visible.Quote(filepath.Join(out, f.Minimal+".yaml")))
	w.Write(minimal)
	fmt.Fprintf(w, "\nreport in %s (the drawn runs and the minimal one)\n", out)
}

// findingNote is what is said of a finding (conformance.Finding) once it
// is written: enough for a merge of shards to say it again. Index is its
// place in the campaign or the exploration.
type findingNote struct {
	Index           int           `json:"index"`
	Draw            uint64        `json:"draw,omitempty"`
	Point           string        `json:"point,omitempty"`
	Failure         string        `json:"failure"`
	Failures        string        `json:"failures"` // every rule the drawn run failed
	Drawn           string        `json:"drawn"`
	DrawnSteps      int           `json:"drawnSteps"`
	DrawnDuration   time.Duration `json:"drawnDurationNanos"`
	Minimal         string        `json:"minimal,omitempty"`
	MinimalSteps    int           `json:"minimalSteps,omitempty"`
	MinimalDuration time.Duration `json:"minimalDurationNanos,omitempty"`
	ShrinkRuns      int           `json:"shrinkRuns"`
}

func noteOf(f *conformance.Finding, index int) findingNote {
	n := findingNote{Index: index, Draw: f.Draw, Point: f.Point, Failure: f.Failure, Failures: failures(f.DrawnRun),
		Drawn: f.Drawn.Name, DrawnSteps: len(f.Drawn.Steps), DrawnDuration: f.Drawn.Duration.Duration, ShrinkRuns: f.ShrinkRuns}
	if f.Minimal != nil {
		n.Minimal, n.MinimalSteps, n.MinimalDuration = f.Minimal.Name, len(f.Minimal.Steps), f.Minimal.Duration.Duration
	}
	return n
}
