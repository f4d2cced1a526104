package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/shard"
	"github.com/opcert/opcert/sim/timeline"
	"github.com/opcert/opcert/visible"
)

type perturbOptions struct {
	out        string
	scenarios  []string
	only       []string
	roles      []string
	kinds      []string
	budget     int
	seed       uint64
	window     time.Duration
	errWindow  time.Duration
	delay      time.Duration
	lag        time.Duration
	shrinkRuns int
	maxCalls   int
	faithful   bool
	subjects   []string
	apiPort    int
	strict     bool
	// reproducible leaves the wall-clock fields out of the reports.
	reproducible bool
	shard        shardFlag
	mechanisms   mechanismFlags
}

func newPerturb() *cobra.Command {
	o := perturbOptions{}
	cmd := &cobra.Command{
		Use:   "perturb [FILE...]",
		Short: "Perturb what a role sees at every point of scenarios, and shrink each failure",
		Long: `Perturb what a role sees at every point of scenarios, and shrink each failure.

Each scenario (FILEs, --scenario names, --mechanism's built-ins, or every
built-in) is played once as it is; its timeline gives the points at which a
perturbation can change what a role sees, for each role perturbed (--role;
default every role a subject plays whose calls opcert plays, not the world's
own such as a kubelet):

  crash       the writer of the role's k-th write is killed right after it
              (between two writes of one reconcile, or after the last) and
              restarted at once with no memory, as a restarted pod;
  lostEvents  its notifications are lost for --window from an instant
              another actor wrote; at the end it is told once of each
              object that changed (an informer's relist);
  lateEvents  its notifications come --delay late for --window;
  staleReads  its reads answer as of --lag ago (and its notifications come
              as late) for --window;
  conflicts   its writes fail with 409 Conflict for --error-window from
              an instant it wrote;
  errors      its writes fail with 500 for --error-window from an instant
              it wrote (reads are a controller's cache's, which no API
              server error reaches).

Each point is the scenario with one perturb (or apiErrors) step, played and
judged by the mechanism's rules and by convergence (CONVERGE): once the
perturbation is over, the objects the role writes conditions to end with the
conditions the unperturbed run ends with, within the reaction bound, and
stay there. What the scenario expects (EXPECT) is not owed after a
perturbation: its expectations were written for the unperturbed world.

At most --budget points are played per scenario: evenly spaced
over the points found, or drawn with --seed. The first failure of each rule
and kind of point is written as a scenario file that replays it (with
'opcert run FILE', which plays it unperturbed too, to judge convergence) and
shrunk: steps removed, moved earlier, the run ended sooner, while the same
rule still fails, in at most --shrink-runs runs; the smallest is written
beside it.

Perturbations are made in virtual time: each role is filled by the
reference unless --subject says otherwise, with opcert's subjects or a
team's reconciler (library mode: certify). With --faithful each scenario is
explored again with each faithful variant in its role: a faithful operator
survives every perturbation, so any failure there is a false alarm of the
rules or of convergence (make perturb, in CI). A role that cannot be restarted
by its mechanism is not crashed (the point's run says why).

--out gets the report of every run (junit.xml, report.json, report.md,
report.html), the failures' scenario files, and the timelines of the
failing runs, which report.html draws with each perturbation marked.

With --shard INDEX/COUNT only that shard of the scenarios and casts is
explored (balanced by their estimated API calls), each as in the whole
exploration, and --out gets shard.json too; 'opcert merge' makes the
exploration's report of the shards' directories.

Exit codes: 0 every point passed (warnings pass too, unless --strict), 1 a
point failed (files written), 2 the input's fault (flags, scenario files,
--out; nothing written), 3 the environment's fault (the API server, the
disk), 128+n stopped by signal n (the report directory left as it was).`,
		Example: `  opcert perturb --scenario stale-healthy-answer
  opcert perturb --mechanism stale --budget 20 --kind crash --kind lostEvents
  opcert perturb --mechanism stackable --role operator --seed 7 --budget 50
  opcert perturb my-scenario.yaml --subject operator=faithful-quiet --window 2m`,
		RunE: func(cmd *cobra.Command, files []string) error { return o.run(cmd, files) },
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "out", "o", "opcert-perturb", "report directory (replaced when the exploration ends)")
	f.StringArrayVar(&o.scenarios, "scenario", nil, "perturb only this built-in scenario (repeatable)")
	f.StringArrayVar(&o.only, "mechanism", nil, "perturb only this mechanism's built-in scenarios (repeatable)")
	f.StringArrayVar(&o.roles, "role", nil, "perturb only this role (repeatable; default: every role a subject plays whose calls opcert plays)")
	f.StringArrayVar(&o.kinds, "kind", nil, "explore only this kind of point (repeatable): "+strings.Join(conformance.PointKinds, ", "))
	d := conformance.DefaultPerturbing
	f.IntVar(&o.budget, "budget", d.Budget, "at most this many points per scenario (0: every point)")
	f.Uint64Var(&o.seed, "seed", 0, "draw the points played with this seed when there are more than --budget (0: evenly spaced)")
	f.DurationVar(&o.window, "window", d.Window, "how long a window of lost, late or stale notifications lasts")
	f.DurationVar(&o.errWindow, "error-window", d.ErrorWindow, "how long a window of API errors (conflicts, errors) lasts; keep it under the reaction bound: after a window of W a faithful operator's backed-off retry comes up to W later")
	f.DurationVar(&o.delay, "delay", d.Delay, "how late a lateEvents window's notifications come")
	f.DurationVar(&o.lag, "lag", d.Lag, "how old what a staleReads window's reads answer is")
	f.IntVar(&o.shrinkRuns, "shrink-runs", d.ShrinkRuns, "at most this many runs to shrink each failure (0: do not shrink)")
	f.IntVar(&o.maxCalls, "max-calls", 0, "leave out the scenarios whose unperturbed run is estimated at more API calls than this (0: none left out), as each point costs one such run")
	f.BoolVar(&o.faithful, "faithful", false, "explore each scenario with every faithful variant in its role too (opcert subjects: kind faithful), the other roles as --subject says")
	f.StringArrayVarP(&o.subjects, "subject", "s", nil, "fill a role with a subject, as role=subject (repeatable)")
	f.IntVar(&o.apiPort, "api-port", 0, "port for the API server (0: any free port)")
	f.BoolVar(&o.strict, "strict", false, "count the warnings of convention rules (how messages read) as failures")
	f.BoolVar(&o.reproducible, "reproducible", false, "leave wall-clock fields (start time, durations, API server start-up, binaries' path) out of the reports, so that the same input writes the same files")
	o.shard.add(f)
	o.mechanisms = addMechanismFlags(f)
	return cmd
}

func (o *perturbOptions) check() error {
	for _, k := range o.kinds {
		if !slices.Contains(conformance.PointKinds, k) {
			return fmt.Errorf("--kind %q: no such kind of point; give one of %s", k, strings.Join(conformance.PointKinds, ", "))
		}
	}
	switch {
	case o.budget < 0:
		return fmt.Errorf("--budget %d is negative: give 0 (every point) or more", o.budget)
	case o.window <= 0 || o.window > 24*time.Hour:
		return fmt.Errorf("--window %s is out of range: give more than 0, at most 24h", o.window)
	case o.errWindow <= 0 || o.errWindow > 24*time.Hour:
		return fmt.Errorf("--error-window %s is out of range: give more than 0, at most 24h", o.errWindow)
	case o.delay <= 0 || o.delay > 24*time.Hour:
		return fmt.Errorf("--delay %s is out of range: give more than 0, at most 24h", o.delay)
	case o.lag <= 0 || o.lag > 24*time.Hour:
		return fmt.Errorf("--lag %s is out of range: give more than 0, at most 24h", o.lag)
	case o.shrinkRuns < 0:
		return fmt.Errorf("--shrink-runs %d is negative: give 0 (do not shrink) or more", o.shrinkRuns)
	case o.maxCalls < 0:
		return fmt.Errorf("--max-calls %d is negative: give 0 (leave none out) or more", o.maxCalls)
	}
	return checkPort(o.apiPort)
}

func (o *perturbOptions) run(cmd *cobra.Command, files []string) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	mechs, err := o.mechanisms.build()
	if err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	if err := checkOut(o.out, append(files, programs(o.subjects)...)...); err != nil {
		return err
	}
	scs, err := (&runOptions{scenarios: o.scenarios, only: o.only}).load(files, mechs)
	if err != nil {
		return err
	}
	choices, err := parseSubjects(o.subjects, mechs)
	if err != nil {
		return err
	}
	type target struct {
		sc   *scenarios.Scenario
		m    conformance.Mechanism
		cast conformance.Cast
	}
	var targets []target
	for _, sc := range scs {
		m, ok := mechs[sc.Mechanism]
		if !ok {
			return fmt.Errorf("%s: no mechanism %q", sc.Source, sc.Mechanism)
		}
		cast, err := conformance.Subjects(m, choices[m.Name()])
		if err != nil {
			return err
		}
		if err := virtualOnly(cast); err != nil {
			return err
		}
		for _, r := range o.roles {
			if !slices.Contains(scenarios.RolesOf(m.Name()), r) {
				return fmt.Errorf("--role %q: %s has no such role whose calls opcert plays; give one of %s", r, m.Name(), strings.Join(scenarios.RolesOf(m.Name()), ", "))
			}
		}
		if e, ok := m.(conformance.Estimating); ok && o.maxCalls > 0 && e.Estimate(sc) > o.maxCalls {
			fmt.Fprintf(stderr, "opcert: %s left out: about %d API calls a run, over --max-calls %d\n", sc.Name, e.Estimate(sc), o.maxCalls)
			continue
		}
		targets = append(targets, target{sc, m, cast})
		if !o.faithful {
			continue
		}
		for _, r := range m.Roles() {
			for _, s := range r.Subjects {
				if s.Faithful {
					targets = append(targets, target{sc, m, maps.Clone(cast)})
					targets[len(targets)-1].cast[r.Name] = s
				}
			}
		}
	}
	spec, err := o.shard.spec()
	if err != nil {
		return err
	}
	units := make([]shard.Unit, len(targets))
	for i, t := range targets {
		units[i] = shard.Unit{Key: scenarioKey(t.sc) + " " + reports.SubjectList(t.cast.Names()), Cost: int64((plan{sc: t.sc, m: t.m}).calls())}
	}
	sh := newSharding(cmd, spec, toolPerturb, units)
	sh.says(stderr)
	b, err := startBench(cmd.Context(), stderr, o.out, o.apiPort)
	if err != nil {
		return err
	}
	defer b.close()
	staging, w, ctx := b.staging, b.w, b.ctx

	rep := &reports.Report{Tool: "opcert", StartedAt: time.Now().UTC(), Environment: environment(w)}
	start := time.Now()
	var found []*conformance.Finding
	var record perturbRecord
	for i, t := range targets {
		if !sh.plays[i] {
			continue
		}
		fmt.Fprintf(stderr, "[%d/%d] %s [%s]: the unperturbed run, then its points\n", len(record.Targets)+1, len(sh.mine), t.sc.Name, reports.SubjectList(t.cast.Names()))
		runs, played := len(rep.Runs), 0
		x, err := conformance.Explore(ctx, w.Client, t.m, t.cast, t.sc, conformance.ExploreOptions{
			Perturbing: conformance.Perturbing{Roles: o.roles, Kinds: o.kinds, Budget: o.budget, Seed: o.seed,
				Window: o.window, ErrorWindow: o.errWindow, Delay: o.delay, Lag: o.lag, ShrinkRuns: o.shrinkRuns},
			Dir: w.Dir(), Strict: o.strict, Stem: fmt.Sprintf("p%d", i),
			Ran: func(sc *scenarios.Scenario, p *conformance.Point, run reports.Run, tl *timeline.Timeline, shrink bool) {
				switch {
				case shrink:
					fmt.Fprintf(stderr, "  shrink: %d steps over %s: %s\n", len(sc.Steps), sc.Duration.Duration, verdictOf(run))
				case p == nil:
					rep.Runs = append(rep.Runs, run)
					fmt.Fprintf(stderr, "  unperturbed: %s\n", verdictOf(run))
				case run.Stopped == reports.StopScenario:
					// Not a verdict: the summary counts it.
					fmt.Fprintf(stderr, "  %s: %s cannot be played as written: %s\n", sc.Name, p, firstLine(run.Error))
				default:
					played++
					if f := failures(run); f != "" {
						fmt.Fprintf(stderr, "  %s: %s FAILS %s\n", sc.Name, p, f)
						// A failing point's timeline, for the report's picture.
						run.Timeline = filepath.Join("timelines", sc.Name+".jsonl")
						if werr := writeTimeline(filepath.Join(staging, run.Timeline), tl.WriteJSONL); werr != nil {
							fmt.Fprintf(stderr, "opcert: %s: %v\n", run.Timeline, werr)
							run.Timeline = ""
						}
					}
					rep.Runs = append(rep.Runs, run)
				}
			},
		})
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%w; %s was left as it was", context.Cause(ctx), o.out)
			}
			return envError{err}
		}
		fmt.Fprintf(stderr, "  %s\n", x.Summary())
		found = append(found, x.Findings...)
		target := perturbTarget{Index: i, Runs: len(rep.Runs) - runs, Played: played, Line: x.Summary()}
		for _, f := range x.Findings {
			target.Findings = append(target.Findings, noteOf(f, i))
		}
		record.Targets = append(record.Targets, target)
	}
	rep.Wall = time.Since(start)
	for _, f := range found {
		if err := writeFinding(staging, f, rep); err != nil {
			return envError{err}
		}
	}
	if err := sh.write(staging, rep.StartedAt, rep.Wall, len(record.Targets), record); err != nil {
		return envError{err}
	}
	return finishPerturb(stdout, staging, o.out, o.reproducible, rep, record)
}

// perturbRecord is what an exploration's report holds beside its runs,
// per scenario and cast explored (a shard's record, for the merge).
type perturbRecord struct {
	Targets []perturbTarget `json:"targets"`
}

// perturbTarget is one scenario and cast explored: its place in the
// exploration, how many of the report's runs are its (the unperturbed
// one and its points'), how many points it played, its summary line and
// its findings (whose minimal runs end the report).
type perturbTarget struct {
	Index    int           `json:"index"`
	Runs     int           `json:"runs"`
	Played   int           `json:"played"`
	Line     string        `json:"line"`
	Findings []findingNote `json:"findings,omitempty"`
}

// finishPerturb writes an exploration's report to staging, swaps it in
// for out and says the verdict: the end of an exploration, of a shard of
// one and of a merge of shards.
func finishPerturb(stdout io.Writer, staging, out string, reproducible bool, rep *reports.Report, record perturbRecord) error {
	if err := writeReport(staging, rep, reproducible); err != nil {
		return err
	}
	verdict := incomplete(rep)
	if failed(rep) {
		verdict = errRulesFailed
	}
	if err := commitReport(staging, out, verdict); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	played := 0
	for _, t := range record.Targets {
		fmt.Fprintln(stdout, t.Line)
		played += t.Played
	}
	for _, m := range rep.Missing {
		fmt.Fprintf(stdout, "MISSING shard %s: none of its explorations was merged\n", m)
	}
	rate := float64(played) / rep.Wall.Seconds()
	if !errors.Is(verdict, errRulesFailed) {
		word := "PASS"
		if verdict != nil {
			word = reports.Incomplete
		}
		fmt.Fprintf(stdout, "%s: %d perturbed runs over %d scenarios passed every rule and converged in %s (%.1f runs/s); report in %s\n",
			word, played, len(record.Targets), rep.Wall.Round(time.Millisecond), rate, out)
		return verdict
	}
	fmt.Fprintf(stdout, "FAIL: %d perturbed runs over %d scenarios in %s (%.1f runs/s); report in %s\n", played, len(record.Targets), rep.Wall.Round(time.Millisecond), rate, out)
	for _, t := range record.Targets {
		for _, f := range t.Findings {
			printPerturbFinding(stdout, f, out)
		}
	}
	return verdict
}

// failed tells whether a run of the report failed a rule (a warning is
// not a failure, unless the runs were judged strictly).
func failed(rep *reports.Report) bool {
	return slices.ContainsFunc(rep.Runs, func(r reports.Run) bool { return failures(r) != "" })
}

// virtualOnly refuses a cast with a subject that plays in real time:
// opcert perturb perturbs in virtual time.
func virtualOnly(cast conformance.Cast) error {
	for role, s := range cast {
		if f, team := conformance.FormOf(s); team && f != conformance.FormLibrary {
			return fmt.Errorf("--subject %s: opcert perturb perturbs in virtual time, and a subject outside opcert plays in real time; give opcert's subjects or a team's reconciler (certify)", role)
		}
	}
	return nil
}

func printPerturbFinding(w io.Writer, f findingNote, out string) {
	fmt.Fprintf(w, "\n%s fails %s under %s\n", f.Drawn, f.Failure, f.Point)
	fmt.Fprintf(w, "replay:  opcert run %s\n", visible.Quote(filepath.Join(out, f.Drawn+".yaml")))
	if f.Minimal != "" {
		fmt.Fprintf(w, "minimal: opcert run %s (%d steps over %s, shrunk in %d runs)\n",
			visible.Quote(filepath.Join(out, f.Minimal+".yaml")), f.MinimalSteps, f.MinimalDuration, f.ShrinkRuns)
	}
}
