package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/process"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/visible"
)

type runOptions struct {
	out       string
	subjects  []string
	scenarios []string
	// only are the mechanisms whose built-ins run (--mechanism).
	only    []string
	apiPort int
	dryRun  bool
	// reproducible leaves the wall-clock fields out of the reports.
	reproducible bool
	// timeScale multiplies scenario times and thresholds (real time).
	timeScale float64
	// mechanisms build each registered mechanism from its flags' values.
	mechanisms mechanismFlags
	// cluster says whether and how to run on a cluster (cluster mode).
	cluster clusterFlags
	// strict counts the convention rules' warnings as failures.
	strict bool
	// kubeconfigOut is where a kubeconfig of opcert's API server is kept
	// while the run lasts (--kubeconfig-out).
	kubeconfigOut string
	shard         shardFlag
}

// mechanismFlags build each registered mechanism from its flags' values,
// and from the flags every mechanism takes (--reaction-bound).
type mechanismFlags struct {
	builds   []func() (conformance.Mechanism, error)
	reaction *reactionFlag
	// set holds these flags alone (the command's flag set holds them too),
	// so that a report can say which were given (given) and analyze can
	// tell them from its other flags.
	set *pflag.FlagSet
}

// addMechanismFlags adds every registered mechanism's flags (profiles,
// thresholds) and the reaction bound to f: run, selftest, fuzz, watch and
// analyze take the same ones.
func addMechanismFlags(f *pflag.FlagSet) mechanismFlags {
	out := mechanismFlags{reaction: newReactionFlag(), set: pflag.NewFlagSet("mechanisms", pflag.ContinueOnError)}
	for _, p := range conformance.Plugins() {
		out.builds = append(out.builds, p.Flags(out.set))
	}
	out.set.Var(out.reaction, "reaction-bound", "how long a subject may take to act on a change it can see (a completed rollout, a moved condition) before a rule asking for the reaction fails: DURATION for every mechanism, MECHANISM=DURATION for one (repeatable; 0 to 1h; each mechanism's default is in 'opcert rules' and every report states the bound used)")
	f.AddFlagSet(out.set)
	return out
}

// build makes every mechanism from its parsed flags, by name.
func (b mechanismFlags) build() (map[string]conformance.Mechanism, error) {
	mechs := map[string]conformance.Mechanism{}
	for _, build := range b.builds {
		m, err := build()
		if err != nil {
			return nil, err
		}
		mechs[m.Name()] = m
	}
	if err := b.reaction.apply(mechs); err != nil {
		return nil, err
	}
	return mechs, nil
}

// given are the mechanism flags the command was given, as arguments that
// give them again ("--challenge-after=6s"; a repeatable flag once per
// value), in name order: what a report keeps (reports.Judging) for
// analyze to build the same mechanisms.
func (b mechanismFlags) given() []string { return givenFlags(b.set, nil) }

// givenFlags are the flags of set that were given, but for those named in
// skip, as arguments that give them again, in name order.
func givenFlags(set *pflag.FlagSet, skip []string) []string {
	var out []string
	set.VisitAll(func(f *pflag.Flag) {
		if !f.Changed || slices.Contains(skip, f.Name) {
			return
		}
		values := []string{f.Value.String()}
		if s, ok := f.Value.(pflag.SliceValue); ok {
			values = s.GetSlice()
		}
		for _, v := range values {
			out = append(out, "--"+f.Name+"="+v)
		}
	})
	return out
}

func checkPort(port int) error {
	if port < 0 || port > 65535 {
		return fmt.Errorf("--api-port %d is out of range: give 1 to 65535, or 0 for any free port", port)
	}
	return nil
}

// environment is what a report says of opcert's own API server.
func environment(w *apiserver.Server) reports.Environment {
	return reports.Environment{KubeVersion: w.KubeVersion, EtcdVersion: w.EtcdVersion, Assets: w.Assets, Startup: w.Startup}
}

// startWorld starts the one API server a command uses, and a context of
// parent that is cancelled, with an ErrEnvironment cause, if it dies. The
// caller stops both.
func startWorld(parent context.Context, stderr io.Writer, port int) (*apiserver.Server, context.Context, context.CancelCauseFunc, error) {
	ctx, stop := context.WithCancelCause(parent)
	fmt.Fprintln(stderr, "opcert: starting kube-apiserver and etcd")
	w, err := apiserver.Start(ctx, apiserver.Options{Port: port, Progress: stderr})
	if err != nil {
		defer stop(nil)
		if ctx.Err() != nil {
			return nil, nil, nil, context.Cause(ctx)
		}
		return nil, nil, nil, envError{err}
	}
	go func() {
		select {
		case <-w.Died():
			stop(fmt.Errorf("%w: %v", conformance.ErrEnvironment, w.Cause()))
		case <-ctx.Done():
		}
	}()
	fmt.Fprintf(stderr, "opcert: API server up at %s in %s (%s, %s)\n", w.Config.Host, w.Startup.Round(time.Millisecond), w.KubeVersion, w.EtcdVersion)
	return w, ctx, stop, nil
}

// bench is what a command that writes a report after runs on its own API
// server works in: the report's staging directory and the started API
// server with the context its runs take (startWorld). close stops the
// server and removes the staging directory (committed before, if the
// report is kept).
type bench struct {
	staging string
	w       *apiserver.Server
	ctx     context.Context
	close   func()
}

// startBench makes out's staging directory and starts the API server.
func startBench(parent context.Context, stderr io.Writer, out string, port int) (*bench, error) {
	staging, err := stagingDir(out)
	if err != nil {
		return nil, err
	}
	w, ctx, stop, err := startWorld(parent, stderr, port)
	if err != nil {
		os.RemoveAll(staging)
		return nil, err
	}
	return &bench{staging: staging, w: w, ctx: ctx, close: func() {
		w.Stop()
		stop(nil)
		os.RemoveAll(staging)
	}}, nil
}

func newRun() *cobra.Command {
	o := runOptions{}
	cmd := &cobra.Command{
		Use:   "run [FILE...]",
		Short: "Run scenarios and write the reports",
		Long: `Run scenarios and write the reports.

With no FILE, every built-in scenario runs (see 'opcert scenarios list');
with FILEs, those scenario files run. Each role is filled by the reference
unless --subject says otherwise (see 'opcert subjects').

A role that takes executables (see 'opcert subjects') can be played by
your operator's binary: --subject operator=exec:'./bin/manager --name {name}'
starts one process per operator of the scenario, in real time, each with a
kubeconfig of its own user ({name}: the ClusterOperator it owns); kill is
SIGKILL to its process group, hang cuts it off the API server. Use
--time-scale 0.01 so that a 10m challenge comes after 6s.

With --kubeconfig FILE the runs are played on that cluster instead (cluster
mode), in real time: --subject operator=deployment:NS/{name}-operator has
your operator's Deployments play the role (kill scales one to 0, restart
scales it back). What opcert creates there is labelled opcert.io/run and
deleted at the end (or by the next run, if opcert is killed); a run that
would write to anything else needs --allow-disruption, and without it
opcert lists what it would touch and exits 2 before writing anything. A
scenario's create step of a kind that changes the cluster's security (RBAC,
admission webhooks and policies, CRDs, APIServices, PriorityClasses, kinds
that run pods, cluster-scoped kinds no mechanism declares) is refused the
same way unless --allow-disruption=KIND names the kind.

One API server (kube-apiserver and etcd, built by hack/envtest or found
through KUBEBUILDER_ASSETS) serves the whole run. Reports (junit.xml,
report.json, report.md and one timeline per run under timelines/) replace
the --out directory only once everything is written.

A convention rule (how a message reads) that fails gives a warning: it is
reported, and fails nothing unless --strict.

A run whose subject under test (your executable, Deployment or
reconciler) never acted, or ended without being asked, or in which no rule
could judge anything, is NOT JUDGED: it fails nothing and passes nothing,
and the summary says what the subject did not do. Every report counts the
rules each run judged.

With --shard INDEX/COUNT only that shard of the runs is played (balanced
by estimated wall time), each named and played as in the whole run, and
--out gets shard.json beside the shard's own report; 'opcert merge' makes
the whole run's report of the shards' directories.

Exit codes: 0 all rules passed (warnings pass too, unless --strict), 1 a
rule or expectation failed, 2 the input's fault (flags, scenario files,
--out; nothing written), 3 the environment's fault (the API server, the
cluster, the disk), 4 nothing failed but a run was NOT JUDGED, 128+n
stopped by signal n.`,
		Example: `  opcert run
  opcert run --subject operator=slow
  opcert run --scenario 02-operator-death --subject detector=lenient
  opcert run --mechanism clusteroperator --out /tmp/co
  opcert run my-scenario.yaml --out /tmp/report
  opcert run my-scenario.yaml --time-scale 0.01 --subject operator=exec:'./bin/manager --name {name}'
  opcert run --kubeconfig ci.kubeconfig --time-scale 0.01 --allow-disruption --subject operator=deployment:my-operators/{name}-operator`,
		RunE: func(cmd *cobra.Command, files []string) error {
			return o.run(cmd, files)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "out", "o", "opcert-report", "report directory (replaced when the run completes)")
	f.StringArrayVarP(&o.subjects, "subject", "s", nil, "fill a role with a subject, as role=subject (repeatable)")
	f.StringArrayVar(&o.scenarios, "scenario", nil, "run only this built-in scenario (repeatable)")
	f.StringArrayVar(&o.only, "mechanism", nil, "run only this mechanism's built-in scenarios (repeatable; see 'opcert scenarios list')")
	f.IntVar(&o.apiPort, "api-port", 0, "port for the API server (0: any free port)")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the plan (scenarios, subjects, estimated API calls and wall time) and stop")
	o.timeScale = 1
	f.Var(timeScaleFlag{&o.timeScale}, "time-scale", "multiply scenario times and the mechanisms' thresholds by this (0.001 <= x <= 1), for real-time runs of executables: at 0.01 a 10m challenge comes after 6s; budgets that judge a subject (the 30s answer budget) stay absolute")
	f.BoolVar(&o.strict, "strict", false, "count the warnings of convention rules (how messages read) as failures: exit 1 instead of 0")
	f.StringVar(&o.kubeconfigOut, "kubeconfig-out", "", "write an administrator's kubeconfig of opcert's API server to this new file (mode 0600) once it is up, for 'opcert watch --kubeconfig FILE' or kubectl to follow the run; removed when the run ends, whatever ends it")
	f.BoolVar(&o.reproducible, "reproducible", false, "leave wall-clock fields (start time, durations, API server start-up, binaries' path) out of the reports, so that the same input writes the same files")
	o.shard.add(f)
	o.mechanisms = addMechanismFlags(f)
	o.cluster.add(f)
	return cmd
}

func (o *runOptions) run(cmd *cobra.Command, files []string) error {
	stderr := cmd.ErrOrStderr()
	mechs, err := o.mechanisms.build()
	if err != nil {
		return err
	}
	if err := checkPort(o.apiPort); err != nil {
		return err
	}
	if err := checkKubeconfigOut(o.kubeconfigOut, o.cluster.on()); err != nil {
		return err
	}
	if err := checkOut(o.out, append(append(files, o.cluster.kubeconfig), programs(o.subjects)...)...); err != nil {
		return err
	}
	plans, err := o.plan(files, mechs)
	if err != nil {
		return err
	}
	named := len(files)+len(o.scenarios) > 0
	if err := o.cluster.check(plans, named); err != nil {
		return err
	}
	plans, skipped, err := o.playable(plans, named)
	if err != nil {
		return err
	}
	spec, err := o.shard.spec()
	if err != nil {
		return err
	}
	sh := newSharding(cmd, spec, toolRun, runUnits(plans, o.timeScale))
	mine := keep(sh, plans) // every plan when not sharded
	if o.dryRun {
		return o.cluster.printPlan(cmd.OutOrStdout(), mine, skipped, o.out, o.timeScale)
	}
	sh.says(stderr)
	if err := o.cluster.refuse(mine); err != nil {
		return err
	}
	for _, line := range reports.SkippedLines(skipped) {
		fmt.Fprintf(stderr, "opcert: not playing %s\n", line)
	}
	warnLong(stderr, mine, o.timeScale)
	staging, err := stagingDir(o.out)
	if err != nil {
		return err
	}
	defer os.RemoveAll(staging) // gone once renamed; cleans up after a failure

	tgt, ctx, err := o.connect(cmd.Context(), stderr, mine)
	if err != nil {
		return err
	}
	defer tgt.close()

	rep := &reports.Report{Tool: "opcert", StartedAt: time.Now().UTC(), Environment: tgt.env, Skipped: skipped,
		Judging: &reports.Judging{Flags: o.mechanisms.given(), Strict: o.strict}}
	start := time.Now()
	var stopped error
	played := 0
	for i, p := range plans {
		if !sh.plays[i] {
			continue
		}
		played++
		// Named by its place in the whole run, sharded or not.
		name := fmt.Sprintf("%02d-%s", i+1, p.sc.Name)
		procDir := filepath.Join(staging, "processes", name)
		run, tl := conformance.Play(ctx, tgt.api, p.m, p.sc, p.cast, tgt.options(i, conformance.Options{
			Progress:   ticker(stderr, played, len(sh.mine), p.sc),
			TimeScale:  o.timeScale,
			ProcessDir: procDir,
			Strict:     o.strict,
		}))
		for j := range run.Processes { // as the report directory will hold them
			if rel, err := filepath.Rel(staging, run.Processes[j].Log); err == nil {
				for k, why := range run.NotJudged { // "see its log ...": not the staging directory, gone by then
					run.NotJudged[k] = strings.ReplaceAll(why, run.Processes[j].Log, rel)
				}
				run.Processes[j].Log = rel
			}
		}
		progress(stderr, played, len(sh.mine), run)
		switch run.Stopped {
		case reports.StopInterrupted:
			return fmt.Errorf("%w; %s was left as it was", context.Cause(ctx), o.out)
		case reports.StopScenario:
			return errors.New(run.Error)
		}
		run.Timeline = filepath.Join("timelines", name+".jsonl")
		if err := writeTimeline(filepath.Join(staging, run.Timeline), tl.WriteJSONL); err != nil {
			return envError{err}
		}
		rep.Runs = append(rep.Runs, run)
		if run.Stopped == reports.StopEnvironment {
			stopped = envError{fmt.Errorf("%s: the report marks %s ERROR and holds the %d runs done before it", run.Error, p.sc.Name, i)}
			break
		}
	}
	rep.Wall = time.Since(start)
	if ctx.Err() != nil && stopped == nil {
		return fmt.Errorf("%w; %s was left as it was", context.Cause(ctx), o.out)
	}
	if err := writeReport(staging, rep, o.reproducible); err != nil {
		return err
	}
	if err := sh.write(staging, rep.StartedAt, rep.Wall, len(rep.Runs), nil); err != nil {
		return envError{err}
	}
	verdict := stopped
	if verdict == nil {
		verdict = exitVerdict(rep)
	}
	return finishRun(cmd.OutOrStdout(), staging, o.out, rep, verdict)
}

// finishRun swaps the report written to staging in for out and prints
// its summary: the end of a run, of a shard of one and of a merge of
// shards.
func finishRun(stdout io.Writer, staging, out string, rep *reports.Report, verdict error) error {
	if err := commitReport(staging, out, verdict); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	reports.WriteSummary(stdout, rep)
	fmt.Fprintf(stdout, "\nreports in %s (junit.xml, report.json, report.md, report.html, timelines/)\n", visible.Quote(out))
	return verdict
}

// programs are the executables of exec: subjects named by a path, inputs
// of the command that --out must not hold.
func programs(subjects []string) []string {
	var out []string
	for _, s := range subjects {
		_, subject, _ := strings.Cut(s, "=")
		line, ok := strings.CutPrefix(subject, "exec:")
		if !ok {
			continue
		}
		if words, err := process.ParseCommand(line); err == nil && strings.ContainsRune(words[0], '/') {
			out = append(out, words[0])
		}
	}
	return out
}

// plan loads the scenarios and resolves each one's mechanism and subjects.
func (o *runOptions) plan(files []string, mechs map[string]conformance.Mechanism) ([]plan, error) {
	scs, err := o.load(files, mechs)
	if err != nil {
		return nil, err
	}
	choices, err := parseSubjects(o.subjects, mechs)
	if err != nil {
		return nil, err
	}
	plans := make([]plan, 0, len(scs))
	seen := map[string]string{}
	for _, sc := range scs {
		if first, dup := seen[sc.Name]; dup {
			return nil, fmt.Errorf("%s: scenario %q is also %s; a run names each scenario once (reports and timelines are named after it)", sc.Source, sc.Name, first)
		}
		seen[sc.Name] = sc.Source
		m, ok := mechs[sc.Mechanism]
		if !ok {
			return nil, fmt.Errorf("%s: no mechanism %q", sc.Source, sc.Mechanism)
		}
		subjects, err := conformance.Subjects(m, choices[m.Name()])
		if err != nil {
			return nil, err
		}
		_, _, procs := castHas[conformance.Process](subjects)
		_, _, deps := castHas[conformance.Deployment](subjects)
		plans = append(plans, plan{sc: sc, m: m, cast: subjects, realTime: procs || deps || o.cluster.on(), processes: procs && !o.cluster.on()})
	}
	return plans, ambiguousExternal(o.subjects, choices, plans)
}

// ambiguousExternal refuses an executable or a Deployment given for a role
// without its mechanism (operator=exec:...) when the run would give it to
// more than one mechanism: one binary plays one mechanism's role, so say
// which (stale.operator=exec:...).
func ambiguousExternal(flags []string, choices map[string]map[string]string, plans []plan) error {
	for _, f := range flags {
		key, subject, _ := strings.Cut(f, "=")
		if strings.Contains(key, ".") || !conformance.External(subject) {
			continue
		}
		var takers []string
		for _, p := range plans {
			if choices[p.m.Name()][key] == subject && !slices.Contains(takers, p.m.Name()) {
				takers = append(takers, p.m.Name())
			}
		}
		if len(takers) > 1 {
			slices.Sort(takers)
			return fmt.Errorf("--subject %q: the scenarios of %s all have a role %s that takes it; name the mechanism (%s.%s=...), or run only its scenarios", f, strings.Join(takers, " and "), key, takers[0], key)
		}
	}
	return nil
}

func (o *runOptions) load(files []string, mechs map[string]conformance.Mechanism) ([]*scenarios.Scenario, error) {
	if len(files) > 0 && len(o.scenarios) > 0 {
		return nil, fmt.Errorf("give scenario files or --scenario names, not both")
	}
	if len(o.only) > 0 {
		if len(files)+len(o.scenarios) > 0 {
			return nil, fmt.Errorf("--mechanism chooses built-in scenarios: give it alone, not with scenario files or --scenario")
		}
		return o.builtinsOf(mechs)
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

// builtinsOf are the built-in scenarios of the mechanisms --mechanism
// names, in the built-ins' order; a name that is no mechanism is refused.
func (o *runOptions) builtinsOf(mechs map[string]conformance.Mechanism) ([]*scenarios.Scenario, error) {
	for _, n := range o.only {
		if _, ok := mechs[n]; !ok {
			return nil, fmt.Errorf("--mechanism %q: no such mechanism; mechanisms: %s", n, strings.Join(sortedKeys(mechs), ", "))
		}
	}
	all, err := scenarios.Builtin()
	if err != nil {
		return nil, err
	}
	var out []*scenarios.Scenario
	for _, sc := range all {
		if slices.Contains(o.only, sc.Mechanism) {
			out = append(out, sc)
		}
	}
	return out, nil
}

// parseSubjects reads --subject flags, [mechanism.]role=subject, into the
// choices of each mechanism. An unscoped choice fills the role in every
// mechanism whose role has that subject (operator=slow is stale's slow
// operator, and leaves staticpod's operator alone); a choice that fits no
// mechanism is an error. A scoped one is the named mechanism's to check.
func parseSubjects(flags []string, mechs map[string]conformance.Mechanism) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	choose := func(mech, role, subject string) {
		if out[mech] == nil {
			out[mech] = map[string]string{}
		}
		out[mech][role] = subject
	}
	for _, f := range flags {
		key, subject, ok := strings.Cut(f, "=")
		if !ok || key == "" || subject == "" {
			return nil, fmt.Errorf("--subject %q: want [mechanism.]role=subject, e.g. operator=slow or stale.operator=slow (see 'opcert subjects')", f)
		}
		if mech, role, scoped := strings.Cut(key, "."); scoped {
			if _, known := mechs[mech]; !known {
				return nil, fmt.Errorf("--subject %q: no mechanism %q; roles: %s (see 'opcert subjects')", f, mech, allRoles(mechs))
			}
			choose(mech, role, subject)
			continue
		}
		matched, roleKnown := false, false
		for name, m := range mechs {
			roleKnown = roleKnown || conformance.HasRole(m, key)
			if conformance.HasSubject(m, key, subject) {
				choose(name, key, subject)
				matched = true
			}
		}
		switch {
		case !roleKnown:
			return nil, fmt.Errorf("--subject %q: no role %q in any mechanism; roles: %s (see 'opcert subjects')", f, key, allRoles(mechs))
		case !matched && external(mechs, key, subject) != nil:
			return nil, external(mechs, key, subject)
		case !matched:
			return nil, fmt.Errorf("--subject %q: no subject %q for role %s; subjects: %s (see 'opcert subjects')", f, subject, key, subjectsOf(mechs, key))
		}
	}
	return out, nil
}

// external is what is wrong with a subject outside opcert (exec:,
// deployment:) that no role took, as each role that takes its form says
// it (their placeholders differ), or, when none takes it, as each role of
// that name says why not (Role.Cannot); nil for a subject of opcert's.
func external(mechs map[string]conformance.Mechanism, role, subject string) error {
	if !conformance.External(subject) {
		return nil
	}
	form := conformance.FormProcess
	if !strings.HasPrefix(subject, "exec:") {
		form = conformance.FormCluster
	}
	var errs, refusals []string
	for _, name := range sortedNames(mechs) {
		m := mechs[name]
		if !conformance.HasRole(m, role) {
			continue
		}
		if _, err := conformance.Subjects(m, map[string]string{role: subject}); err != nil && conformance.Takes(m, role, form) {
			errs = append(errs, "as "+name+"."+role+": "+err.Error())
		} else if err != nil {
			refusals = append(refusals, conformance.Refusal(m, role, form).Error())
		}
	}
	if len(errs) == 0 {
		errs = refusals
	}
	if len(errs) == 0 {
		return nil
	}
	return errors.New(strings.Join(errs, "; "))
}

// subjectsOf lists the subjects of a role in every mechanism that has it.
func subjectsOf(mechs map[string]conformance.Mechanism, role string) string {
	var out []string
	for name, m := range mechs {
		for _, r := range m.Roles() {
			if r.Name != role {
				continue
			}
			var names []string
			for _, s := range r.Subjects {
				names = append(names, s.Name)
			}
			out = append(out, name+"."+role+": "+strings.Join(names, ", "))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

func allRoles(mechs map[string]conformance.Mechanism) string {
	var out []string
	for name, m := range mechs {
		for _, r := range m.Roles() {
			out = append(out, name+"."+r.Name)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func progress(w io.Writer, i, n int, run reports.Run) {
	fmt.Fprintf(w, "[%d/%d] %s\n", i, n, run.Headline())
	if run.Error != "" {
		fmt.Fprintf(w, "        error: %s\n", shown(run.Error))
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
		fmt.Fprintf(w, "[%d/%d] %s ... %s of %s virtual\n", i, n, visible.Line(sc.Name), virtual.Truncate(time.Second), sc.Duration.Duration)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
