package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/world"
)

type runOptions struct {
	out       string
	subjects  []string
	scenarios []string
	apiPort   int
	cfg       stale.Config
}

func newRun() *cobra.Command {
	o := runOptions{cfg: stale.DefaultConfig()}
	cmd := &cobra.Command{
		Use:   "run [FILE...]",
		Short: "Run scenarios and write the reports",
		Long: `Run scenarios and write the reports.

With no FILE, every built-in scenario runs (see 'opcert scenarios list');
with FILEs, those scenario files run. Each role is filled by the reference
unless --subject says otherwise (see 'opcert subjects').

One API server (kube-apiserver and etcd, built by hack/envtest or found
through KUBEBUILDER_ASSETS) serves the whole run. Reports (junit.xml,
report.json, report.md and one timeline per run under timelines/) replace
the --out directory only once everything is written.

Exit codes: 0 all rules passed, 1 a rule or expectation failed, 2 usage or
environment error.`,
		Example: `  opcert run
  opcert run --subject operator=slow
  opcert run --scenario 02-operator-death --subject detector=lenient
  opcert run my-scenario.yaml --out /tmp/report`,
		RunE: func(cmd *cobra.Command, files []string) error {
			return o.run(cmd, files)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "out", "o", "opcert-report", "report directory (replaced when the run completes)")
	f.StringArrayVarP(&o.subjects, "subject", "s", nil, "fill a role with a subject, as role=subject (repeatable)")
	f.StringArrayVar(&o.scenarios, "scenario", nil, "run only this built-in scenario (repeatable)")
	f.IntVar(&o.apiPort, "api-port", 0, "port for the API server (0: any free port)")
	f.DurationVar(&o.cfg.ChallengeAfter, "challenge-after", o.cfg.ChallengeAfter, "stale: time without movement before a challenge")
	f.DurationVar(&o.cfg.UnknownAfter, "unknown-after", o.cfg.UnknownAfter, "stale: time without an answer before Unknown")
	f.DurationVar(&o.cfg.AnswerBudget, "answer-budget", o.cfg.AnswerBudget, "stale: the minimum stale-message update time invariant's budget")
	return cmd
}

func (o *runOptions) run(cmd *cobra.Command, files []string) error {
	stderr := cmd.ErrOrStderr()
	if o.cfg.ChallengeAfter <= 0 || o.cfg.UnknownAfter <= 0 || o.cfg.AnswerBudget <= 0 {
		return fmt.Errorf("--challenge-after, --unknown-after and --answer-budget must be positive")
	}
	scs, err := o.load(files)
	if err != nil {
		return err
	}
	choices, err := parseSubjects(o.subjects)
	if err != nil {
		return err
	}
	mechs := mechanisms(o.cfg)
	plans := make([]plan, 0, len(scs))
	for _, sc := range scs {
		m, ok := mechs[sc.Mechanism]
		if !ok {
			return fmt.Errorf("%s: no mechanism %q", sc.Source, sc.Mechanism)
		}
		subjects, err := m.Subjects(choices)
		if err != nil {
			return err
		}
		plans = append(plans, plan{sc: sc, m: m, subjects: subjects})
	}
	staging, err := stagingDir(o.out)
	if err != nil {
		return err
	}
	defer os.RemoveAll(staging) // gone once renamed; cleans up after a failure

	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer stop()
	fmt.Fprintln(stderr, "opcert: starting kube-apiserver and etcd")
	w, err := world.Start(ctx, world.Options{Port: o.apiPort, Progress: stderr})
	if err != nil {
		return err
	}
	defer w.Stop()
	fmt.Fprintf(stderr, "opcert: API server up in %s (%s, %s)\n", w.Startup.Round(time.Millisecond), w.KubeVersion, w.EtcdVersion)

	rep := &reports.Report{Tool: "opcert", StartedAt: time.Now().UTC(),
		Environment: reports.Environment{KubeVersion: w.KubeVersion, EtcdVersion: w.EtcdVersion, Assets: w.Assets, Startup: w.Startup}}
	start := time.Now()
	for i, p := range plans {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("interrupted; nothing written to %s", o.out)
		}
		run, tl := conformance.Play(ctx, w.Client, p.m, p.sc, p.subjects, conformance.Options{
			Prefix:   fmt.Sprintf("r%02d-", i+1),
			Progress: ticker(stderr, i+1, len(plans), p.sc),
		})
		run.Timeline = filepath.Join("timelines", fmt.Sprintf("%02d-%s.jsonl", i+1, p.sc.Name))
		if err := writeTimeline(filepath.Join(staging, run.Timeline), tl.WriteJSONL); err != nil {
			return err
		}
		rep.Runs = append(rep.Runs, run)
		progress(stderr, i+1, len(plans), run)
	}
	rep.Wall = time.Since(start)
	if err := reports.WriteAll(staging, rep); err != nil {
		return err
	}
	if err := replaceDir(staging, o.out); err != nil {
		return err
	}
	fmt.Fprintln(cmd.OutOrStdout())
	reports.WriteSummary(cmd.OutOrStdout(), rep)
	fmt.Fprintf(cmd.OutOrStdout(), "\nreports in %s (junit.xml, report.json, report.md, timelines/)\n", o.out)
	if rep.Failed() {
		return errRulesFailed
	}
	return nil
}

type plan struct {
	sc       *scenarios.Scenario
	m        *conformance.Mechanism
	subjects map[string]string
}

func (o *runOptions) load(files []string) ([]*scenarios.Scenario, error) {
	if len(files) > 0 && len(o.scenarios) > 0 {
		return nil, fmt.Errorf("give scenario files or --scenario names, not both")
	}
	var out []*scenarios.Scenario
	for _, f := range files {
		sc, err := scenarios.Load(f)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	for _, n := range o.scenarios {
		sc, err := scenarios.BuiltinNamed(n)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	if len(out) > 0 {
		return out, nil
	}
	return scenarios.Builtin()
}

func parseSubjects(flags []string) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range flags {
		role, subject, ok := strings.Cut(f, "=")
		if !ok || role == "" || subject == "" {
			return nil, fmt.Errorf("--subject %q: want role=subject, e.g. operator=slow (see 'opcert subjects')", f)
		}
		out[role] = subject
	}
	return out, nil
}

func progress(w io.Writer, i, n int, run reports.Run) {
	fmt.Fprintf(w, "[%d/%d] %s\n", i, n, run.Headline())
	if run.Error != "" {
		fmt.Fprintf(w, "        error: %s\n", run.Error)
	}
}

// ticker returns a progress hook that reports, at most every few seconds of
// wall time, how far a long run has got in virtual time.
func ticker(w io.Writer, i, n int, sc *scenarios.Scenario) func(time.Duration) {
	const every = 5 * time.Second
	last := time.Now()
	return func(virtual time.Duration) {
		if time.Since(last) < every {
			return
		}
		last = time.Now()
		fmt.Fprintf(w, "[%d/%d] %s ... %s of %s virtual\n", i, n, sc.Name, virtual.Truncate(time.Second), sc.Duration.Duration)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

func sortedMechanisms(cfg stale.Config) []*conformance.Mechanism {
	m := mechanisms(cfg)
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]*conformance.Mechanism, 0, len(names))
	for _, n := range names {
		out = append(out, m[n])
	}
	return out
}
