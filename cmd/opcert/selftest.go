package main

import (
	"context"
	"encoding/json"
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

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/visible"
)

// The self-test proves the rules both ways. Every broken subject (a
// mutant: not its role's reference, not a faithful variant, not another
// design's implementation, conformance.Role.Mutant) is played in its role,
// the references in the others, on its mechanism's built-in scenarios: a
// rule no mutant fails proves nothing, and a mutant no rule catches is a
// fault the rules let through. Every faithful variant (Subject.Faithful:
// written from the seed, different from the reference wherever the seed
// allows) is played the same way: a rule it fails judges the reference's
// choices, not the seed, and fails the self-test.

type selftestOptions struct {
	out      string
	only     []string
	maxCalls int
	apiPort  int
	strict   bool
	// reproducible leaves the wall-clock fields out of selftest.json and
	// selftest.md.
	reproducible bool
	shard        shardFlag
	mechanisms   mechanismFlags
}

func newSelftest() *cobra.Command {
	o := selftestOptions{}
	cmd := &cobra.Command{
		Use:   "selftest",
		Short: "Check that every rule is failed by some broken subject, every broken subject fails some rule, and no faithful variant fails any",
		Long: `Check the rules against broken subjects (mutation testing) and faithful variants.

Every subject that is not its role's reference (see 'opcert subjects') is a
mutant: it plays its role, with the reference in the other roles, in each of
its mechanism's built-in scenarios; the all-reference cast plays each
scenario once too. The result is a matrix of rules x mutants, written to
--out as selftest.json and selftest.md.

Every faithful variant (a subject written from the seed that differs from
the reference wherever the seed allows: other texts and orders, optional
fields left out, a reaction within the bound) plays each built-in the same
way, judged without --strict (a convention it words otherwise warns). Two
figures per mechanism and per rule come out: mutants killed and faithful
variants failed.

The self-test fails when a rule is failed by no mutant, when a mutant fails
no rule (a survivor; failing only a scenario's own expectations does not
count), when a faithful variant fails a rule or breaks a run (listed with
the failing evidence), or when the reference fails anything. A faithful
variant failing only a scenario's expectations is listed, not counted:
those are the scenario's, not the seed's. A convention rule (how a
message reads) that warns on a mutant has caught it; one that warns on the
reference is listed, and fails the self-test only with --strict.

Scenarios estimated above --max-calls API calls are skipped, and named; a
mechanism all of whose scenarios are skipped is not judged (its mutants are
not survivors), and said so; a --max-calls that skips every scenario is
refused.

Exit codes: 0 every rule and mutant checked out and no faithful variant
failed, 1 an unfailed rule, a survivor, a faithful variant's failure or a
reference failure, 2 the input's fault (flags, --out; nothing written), 3
the environment's fault (the API server, the disk), 128+n stopped by
signal n (the report directory left as it was).

With --shard INDEX/COUNT only that shard of the runs is played and --out
gets shard.json, its runs' verdicts; 'opcert merge' makes the self-test's
report of all the shards, and judges it (a shard alone judges nothing: a
mutant's killer may be in another shard). The shards are balanced by
estimated API calls.`,
		Example: `  opcert selftest
  opcert selftest --mechanism stale --out /tmp/selftest
  opcert selftest --shard 2/4 --out shard-2   # then: opcert merge shard-* --out opcert-selftest
  opcert selftest --max-calls 20000   # include the 24h fleet`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "out", "o", "opcert-selftest", "report directory (replaced when the self-test completes)")
	f.StringArrayVar(&o.only, "mechanism", nil, "test only this mechanism (repeatable; default all)")
	f.IntVar(&o.maxCalls, "max-calls", 2000, "skip scenarios estimated above this many API calls")
	f.IntVar(&o.apiPort, "api-port", 0, "port for the API server (0: any free port)")
	f.BoolVar(&o.strict, "strict", false, "count the warnings of convention rules (how messages read) as failures: a warning on the reference fails the self-test")
	f.BoolVar(&o.reproducible, "reproducible", false, "leave wall-clock fields (start time, durations, API server start-up, binaries' path) out of the report, so that the same input writes the same files")
	o.shard.add(f)
	o.mechanisms = addMechanismFlags(f)
	return cmd
}

// mutant is a broken subject in its role.
type mutant struct {
	mech, role, subject string
}

// String names a mutant as --subject takes it: stale.operator=slow.
func (m mutant) String() string { return m.mech + "." + m.role + "=" + m.subject }

// selftestRun is one run of the self-test: a mutant's, a faithful
// variant's, or the reference's (both empty).
type selftestRun struct {
	Mechanism string
	Mutant    string
	Faithful  string
	Run       reports.Run
}

// wantKills is how many mutants each rule should be failed by: a rule
// shown to catch several ways of getting its requirement wrong (one second
// either side of a deadline, a phase change, a wrong text) is trusted more
// than one shown failing once. Fewer is reported, not failed.
const wantKills = 3

// matrix is what the self-test found.
type matrix struct {
	Rules    []matrixRule   `json:"rules"`
	Mutants  []matrixMutant `json:"mutants"`
	Caught   int            `json:"caught"`
	KillRate float64        `json:"killRate"` // caught mutants / mutants
	// Unfailed are the rules no mutant fails; Survivors the mutants that
	// fail no rule; Reference what the all-reference cast failed.
	Unfailed []string `json:"unfailedRules"`
	// Thin are the rules fewer than wantKills mutants fail: they pass, but
	// a rule shown failing one way only is weakly shown.
	Thin      []string `json:"thinRules"`
	Survivors []string `json:"survivors"`
	Reference []string `json:"referenceFailures"`
	// ReferenceWarnings are the convention rules the reference broke in a
	// run that was not strict: listed, failing nothing.
	ReferenceWarnings []string `json:"referenceWarnings"`
	// Faithful are the faithful variants and what each failed;
	// FaithfulFailed how many failed a rule or broke a run (must be 0).
	Faithful       []matrixFaithful `json:"faithful"`
	FaithfulFailed int              `json:"faithfulFailed"`
}

type matrixRule struct {
	ID        string   `json:"id"`
	Mechanism string   `json:"mechanism"`
	FailedBy  []string `json:"failedBy"` // mutants
	// FaithfulFails are the faithful variants that failed the rule.
	FaithfulFails []string `json:"faithfulFails"`
}

// matrixFaithful is a faithful variant: the rules and the scenario
// expectations it failed, where and why (must be none: built-in
// expectations hold for any faithful subject, conformance/expect.go).
type matrixFaithful struct {
	Name      string            `json:"name"` // mechanism.role=subject
	Mechanism string            `json:"mechanism"`
	Failures  []faithfulFailure `json:"failures"`
}

// faithfulFailure is one failure of a faithful variant, with its evidence
// as the reports write it.
type faithfulFailure struct {
	Scenario string   `json:"scenario"`
	Rule     string   `json:"rule"` // empty: the run broke (Message says how)
	Message  string   `json:"message"`
	Evidence []string `json:"evidence,omitempty"`
}

// maxFaithfulEvidence is how many events of a faithful variant's failure
// the self-test keeps: enough to see what the rule held against it, with
// the timeline in the run's report for the rest.
const maxFaithfulEvidence = 5

type matrixMutant struct {
	Name      string   `json:"name"` // mechanism.role=subject
	Mechanism string   `json:"mechanism"`
	Fails     []string `json:"fails"`                 // rules
	Expects   []string `json:"expectsOnly,omitempty"` // scenarios whose expectations it failed, counted for nothing
}

// ok tells whether the self-test passes.
func (m *matrix) ok() bool {
	return len(m.Unfailed) == 0 && len(m.Survivors) == 0 && len(m.Reference) == 0 && m.FaithfulFailed == 0
}

// buildMatrix judges the runs: rules maps each mechanism to its rule IDs,
// mutants and faithful each mechanism to its mutants' and faithful
// variants' names, in the order to report.
// A mutant's failed EXPECT cases catch nothing, and a convention rule's
// warning catches as its failure would (the rule was shown to see the
// fault); the reference's failures of any kind (a rule, an expectation, a
// run its subjects broke) are listed, and its warnings apart.
func buildMatrix(rules, mutants, faithful map[string][]string, runs []selftestRun) *matrix {
	fails := map[string]map[string]bool{} // mutant -> rule
	expects := map[string]map[string]bool{}
	out := &matrix{}
	variants := faithfulVariants(faithful, runs)
	for _, r := range runs {
		if r.Faithful != "" {
			continue // faithfulVariants
		}
		if r.Mutant == "" {
			if r.Run.Error != "" {
				out.Reference = append(out.Reference, fmt.Sprintf("%s: ERROR: %s", r.Run.Scenario, oneLine(r.Run.Error)))
			}
			for _, why := range r.Run.NotJudged {
				// A built-in the reference leaves unjudged tests nothing.
				out.Reference = append(out.Reference, fmt.Sprintf("%s: %s: %s", r.Run.Scenario, reports.NotJudged, why))
			}
			for _, c := range r.Run.Cases {
				switch c.Status {
				case reports.Fail:
					out.Reference = append(out.Reference, fmt.Sprintf("%s: %s: %s", r.Run.Scenario, c.Rule, oneLine(c.Message)))
				case reports.Warn:
					out.ReferenceWarnings = append(out.ReferenceWarnings, fmt.Sprintf("%s: %s: %s", r.Run.Scenario, c.Rule, oneLine(c.Message)))
				}
			}
			continue
		}
		for _, c := range r.Run.Cases {
			if c.Status != reports.Fail && c.Status != reports.Warn {
				continue
			}
			set := fails
			name := c.Rule
			if c.Rule == "EXPECT" {
				set, name = expects, r.Run.Scenario
			}
			if set[r.Mutant] == nil {
				set[r.Mutant] = map[string]bool{}
			}
			set[r.Mutant][name] = true
		}
	}
	for _, mech := range sortedKeys(rules) {
		for _, id := range rules[mech] {
			row := matrixRule{ID: id, Mechanism: mech, FailedBy: []string{}, FaithfulFails: []string{}}
			for _, mu := range mutants[mech] {
				if fails[mu][id] {
					row.FailedBy = append(row.FailedBy, mu)
				}
			}
			for _, v := range variants {
				if v.Mechanism == mech && slices.ContainsFunc(v.Failures, func(f faithfulFailure) bool { return f.Rule == id }) {
					row.FaithfulFails = append(row.FaithfulFails, v.Name)
				}
			}
			switch n := len(row.FailedBy); {
			case n == 0:
				out.Unfailed = append(out.Unfailed, id)
			case n < wantKills:
				out.Thin = append(out.Thin, fmt.Sprintf("%s (%d)", id, n))
			}
			out.Rules = append(out.Rules, row)
		}
	}
	total := 0
	for _, mech := range sortedKeys(mutants) {
		known := map[string]bool{}
		for _, id := range rules[mech] {
			known[id] = true
		}
		for _, mu := range mutants[mech] {
			total++
			col := matrixMutant{Name: mu, Mechanism: mech, Fails: []string{}}
			for id := range fails[mu] {
				col.Fails = append(col.Fails, id)
			}
			sort.Strings(col.Fails)
			if len(col.Fails) == 0 {
				out.Survivors = append(out.Survivors, mu)
				for sc := range expects[mu] {
					col.Expects = append(col.Expects, sc)
				}
				sort.Strings(col.Expects)
			} else {
				out.Caught++
			}
			out.Mutants = append(out.Mutants, col)
		}
	}
	if total > 0 {
		out.KillRate = float64(out.Caught) / float64(total)
	}
	out.Faithful = variants
	for _, v := range variants {
		if len(v.Failures) > 0 {
			out.FaithfulFailed++
		}
	}
	return out
}

// faithfulVariants gathers what each faithful variant failed in its runs:
// a rule's FAIL (a convention's warning is not one: the variant words its
// messages its own way) or a run it broke, with the evidence; and, apart,
// the scenarios whose expectations it failed.
func faithfulVariants(faithful map[string][]string, runs []selftestRun) []matrixFaithful {
	byName := map[string]*matrixFaithful{}
	var out []matrixFaithful
	for _, mech := range sortedKeys(faithful) {
		for _, name := range faithful[mech] {
			out = append(out, matrixFaithful{Name: name, Mechanism: mech, Failures: []faithfulFailure{}})
		}
	}
	for i := range out {
		byName[out[i].Name] = &out[i]
	}
	for _, r := range runs {
		v := byName[r.Faithful]
		if v == nil {
			continue
		}
		if r.Run.Error != "" {
			v.Failures = append(v.Failures, faithfulFailure{Scenario: r.Run.Scenario, Message: "the run broke: " + oneLine(r.Run.Error)})
		}
		for _, why := range r.Run.NotJudged {
			v.Failures = append(v.Failures, faithfulFailure{Scenario: r.Run.Scenario, Message: reports.NotJudged + ": " + why})
		}
		for _, c := range r.Run.Cases {
			if c.Status != reports.Fail {
				continue
			}
			f := faithfulFailure{Scenario: r.Run.Scenario, Rule: c.Rule, Message: oneLine(c.Message)}
			for _, e := range c.Evidence[:min(len(c.Evidence), maxFaithfulEvidence)] {
				f.Evidence = append(f.Evidence, reports.BriefEventFrom(e, r.Run.Start))
			}
			v.Failures = append(v.Failures, f)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// casts are what plays each of p's scenarios, in order: the reference
// (the zero mutant), the mutants, the faithful variants.
func (p selftestPlan) casts() []mutant {
	return append(append([]mutant{{}}, p.mutants...), p.faithful...)
}

// selftestPlan is a mechanism's share of the self-test.
type selftestPlan struct {
	m        conformance.Mechanism
	mutants  []mutant
	faithful []mutant
	scs      []*scenarios.Scenario
	skipped  []skippedScenario
}

type skippedScenario struct {
	Scenario  string `json:"scenario"`
	Mechanism string `json:"mechanism"`
	Calls     int    `json:"estimatedCalls"`
}

// notJudgedMechanism is a mechanism none of whose scenarios the self-test
// plays (each is over --max-calls): its mutants were never played, so they
// are not survivors, and its rules not unfailed; it is reported as not
// judged, and fails nothing, as a skipped scenario fails nothing.
type notJudgedMechanism struct {
	Mechanism string   `json:"mechanism"`
	Rules     []string `json:"rules"`
	Mutants   []string `json:"mutants"`
	Faithful  []string `json:"faithful"`
	Why       string   `json:"why"`
}

// matrixInputs are the rules, mutants and faithful variants of each
// mechanism the self-test plays scenarios of, for buildMatrix, and the
// mechanisms it plays none of.
func matrixInputs(plans []selftestPlan, maxCalls int) (rules, mutants, faithful map[string][]string, notJudged []notJudgedMechanism) {
	rules, mutants, faithful = map[string][]string{}, map[string][]string{}, map[string][]string{}
	for _, p := range plans {
		var rs, ms, fs []string
		for _, r := range p.m.Rules() {
			rs = append(rs, r.ID)
		}
		for _, mu := range p.mutants {
			ms = append(ms, mu.String())
		}
		for _, v := range p.faithful {
			fs = append(fs, v.String())
		}
		if len(p.scs) == 0 {
			notJudged = append(notJudged, notJudgedMechanism{Mechanism: p.m.Name(), Rules: rs, Mutants: ms, Faithful: fs,
				Why: fmt.Sprintf("each of its %d scenarios is over --max-calls %d", len(p.skipped), maxCalls)})
			continue
		}
		rules[p.m.Name()], mutants[p.m.Name()], faithful[p.m.Name()] = rs, ms, fs
	}
	return rules, mutants, faithful, notJudged
}

func (o *selftestOptions) plan(mechs map[string]conformance.Mechanism) ([]selftestPlan, error) {
	names := sortedKeys(mechs)
	if len(o.only) > 0 {
		names = nil
		seen := map[string]bool{}
		for _, n := range o.only {
			if _, ok := mechs[n]; !ok {
				return nil, fmt.Errorf("--mechanism %q: no such mechanism; mechanisms: %s", n, strings.Join(sortedKeys(mechs), ", "))
			}
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
		sort.Strings(names)
	}
	if o.maxCalls < 0 {
		return nil, fmt.Errorf("--max-calls %d is negative", o.maxCalls)
	}
	all, err := scenarios.Builtin()
	if err != nil {
		return nil, err
	}
	var out []selftestPlan
	var cheapest skippedScenario // of those skipped
	played := 0
	for _, n := range names {
		p := selftestPlan{m: mechs[n]}
		for _, r := range p.m.Roles() {
			for _, s := range r.Subjects[1:] {
				switch {
				case s.Faithful:
					p.faithful = append(p.faithful, mutant{n, r.Name, s.Name})
				case r.Mutant(s):
					p.mutants = append(p.mutants, mutant{n, r.Name, s.Name})
				}
			}
		}
		for _, sc := range all {
			if sc.Mechanism != n {
				continue
			}
			if c := (plan{sc: sc, m: p.m}).calls(); c > o.maxCalls {
				p.skipped = append(p.skipped, skippedScenario{sc.Name, n, c})
				if cheapest.Scenario == "" || c < cheapest.Calls {
					cheapest = skippedScenario{sc.Name, n, c}
				}
				continue
			}
			p.scs = append(p.scs, sc)
		}
		played += len(p.scs)
		out = append(out, p)
	}
	if played == 0 && cheapest.Scenario != "" {
		// Nothing would be judged: every mutant would be counted a
		// survivor of runs that never happened.
		return nil, fmt.Errorf("--max-calls %d skips every scenario: the cheapest, %s, costs about %d API calls; give at least that", o.maxCalls, cheapest.Scenario, cheapest.Calls)
	}
	return out, nil
}

// selftestReport is selftest.json.
type selftestReport struct {
	Tool        string               `json:"tool"`
	StartedAt   time.Time            `json:"startedAt"`
	Wall        time.Duration        `json:"wallNanos"`
	Environment reports.Environment  `json:"environment"`
	Mechanisms  []string             `json:"mechanisms"`
	MaxCalls    int                  `json:"maxCalls"`
	Scenarios   map[string][]string  `json:"scenarios"` // per mechanism, those played
	Skipped     []skippedScenario    `json:"skipped"`
	NotJudged   []notJudgedMechanism `json:"notJudged,omitempty"`
	Runs        int                  `json:"runs"`
	APICalls    int                  `json:"apiCalls"`
	Passed      bool                 `json:"passed"`
	// Missing are the shards a merge was not given (INDEX/COUNT): the
	// matrix holds none of their runs, so the self-test is not passed.
	Missing []string `json:"missingShards,omitempty"`
	Matrix  *matrix  `json:"matrix"`
}

func (o *selftestOptions) run(cmd *cobra.Command) error {
	stderr, stdout := cmd.ErrOrStderr(), cmd.OutOrStdout()
	mechs, err := o.mechanisms.build()
	if err != nil {
		return err
	}
	if err := checkPort(o.apiPort); err != nil {
		return err
	}
	if err := checkOut(o.out); err != nil {
		return err
	}
	plans, err := o.plan(mechs)
	if err != nil {
		return err
	}
	rep := &selftestReport{Tool: "opcert selftest", MaxCalls: o.maxCalls, Scenarios: map[string][]string{}}
	rules, mutants, faithful, notJudged := matrixInputs(plans, o.maxCalls)
	rep.NotJudged = notJudged
	for _, p := range plans {
		rep.Mechanisms = append(rep.Mechanisms, p.m.Name())
		for _, sc := range p.scs {
			rep.Scenarios[p.m.Name()] = append(rep.Scenarios[p.m.Name()], sc.Name)
		}
		rep.Skipped = append(rep.Skipped, p.skipped...)
		for _, s := range p.skipped {
			fmt.Fprintf(stderr, "opcert: skipping %s: about %d API calls, over --max-calls %d\n", s.Scenario, s.Calls, o.maxCalls)
		}
	}
	for _, n := range notJudged {
		fmt.Fprintf(stderr, "opcert: not judging %s: %s\n", n.Mechanism, n.Why)
	}
	spec, err := o.shard.spec()
	if err != nil {
		return err
	}
	sh := newSharding(cmd, spec, toolSelftest, selftestUnits(plans))
	sh.says(stderr)
	total := len(sh.mine)
	b, err := startBench(cmd.Context(), stderr, o.out, o.apiPort)
	if err != nil {
		return err
	}
	defer b.close()
	staging, w, ctx := b.staging, b.w, b.ctx
	rep.StartedAt = time.Now().UTC()
	rep.Environment = environment(w)

	start := time.Now()
	var runs []selftestRun
	i, played := 0, 0
	for _, p := range plans {
		for _, sc := range p.scs {
			for k, mu := range p.casts() {
				choice := map[string]string{}
				name := ""
				if mu.subject != "" {
					choice[mu.role], name = mu.subject, mu.String()
				}
				// A faithful variant words its messages its own way: its
				// conventions warn, whatever --strict says.
				isFaithful := k > len(p.mutants)
				cast, err := conformance.Subjects(p.m, choice)
				if err != nil {
					return err
				}
				i++
				if !sh.plays[i-1] {
					continue
				}
				played++
				// The prefix is the run's place in the whole self-test, so
				// that a shard's run is the unsharded one's.
				run, _ := conformance.Play(ctx, w.Client, p.m, sc, cast, conformance.Options{
					Prefix:   fmt.Sprintf("t%03d-", i),
					Dir:      w.Dir(),
					Progress: ticker(stderr, played, total, sc),
					Strict:   o.strict && !isFaithful,
				})
				progress(stderr, played, total, run)
				switch run.Stopped {
				case reports.StopInterrupted:
					return fmt.Errorf("%w; %s was left as it was", context.Cause(ctx), o.out)
				case reports.StopScenario:
					return errors.New(run.Error)
				case reports.StopEnvironment:
					return envError{fmt.Errorf("%s: the self-test stopped at %s; %s was left as it was", run.Error, sc.Name, o.out)}
				}
				r := selftestRun{Mechanism: p.m.Name(), Mutant: name, Run: brief(run)}
				if isFaithful {
					r.Mutant, r.Faithful = "", name
				}
				runs = append(runs, r)
			}
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%w; %s was left as it was", context.Cause(ctx), o.out)
	}
	rep.Wall = time.Since(start)
	in := matrixIn{Rules: rules, Mutants: mutants, Faithful: faithful}
	if spec.On() {
		return o.writeShard(stdout, staging, sh, rep, in, runs)
	}
	return finishSelftest(stdout, staging, o.out, o.reproducible, rep, in, runs)
}

// matrixIn are the rules, mutants and faithful variants of each mechanism
// a self-test judges (matrixInputs).
type matrixIn struct {
	Rules    map[string][]string `json:"rules"`
	Mutants  map[string][]string `json:"mutants"`
	Faithful map[string][]string `json:"faithful"`
}

// finishSelftest judges the runs (those of the whole self-test, in its
// order), writes the report to staging, swaps it in for out and says the
// verdict: the end of an unsharded self-test and of a merge of shards.
func finishSelftest(stdout io.Writer, staging, out string, reproducible bool, rep *selftestReport, in matrixIn, runs []selftestRun) error {
	rep.Runs, rep.APICalls = len(runs), 0
	for _, r := range runs {
		rep.APICalls += r.Run.APICalls
	}
	rep.Matrix = buildMatrix(in.Rules, in.Mutants, in.Faithful, runs)
	rep.Passed = rep.Matrix.ok() && len(rep.Missing) == 0
	written := rep
	if reproducible { // the terminal summary keeps its wall-clock figures
		c := *rep
		c.StartedAt, c.Wall = time.Time{}, 0
		c.Environment.Startup, c.Environment.Assets = 0, ""
		written = &c
	}
	if err := writeSelftest(staging, written); err != nil {
		return envError{err}
	}
	var verdict error
	switch {
	case len(rep.Missing) > 0:
		verdict = envError{fmt.Errorf("the self-test is INCOMPLETE: shards %s are missing; its report in %s says what their runs would have judged is unknown", strings.Join(rep.Missing, ", "), out)}
	case !rep.Passed:
		verdict = errRulesFailed
	}
	if err := commitReport(staging, out, verdict); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	writeSelftestSummary(stdout, rep)
	fmt.Fprintf(stdout, "\nmatrix in %s (selftest.json, selftest.md)\n", visible.Quote(out))
	return verdict
}

func writeSelftest(dir string, rep *selftestReport) error {
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "selftest.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	var md strings.Builder
	writeSelftestMarkdown(&md, rep)
	return os.WriteFile(filepath.Join(dir, "selftest.md"), []byte(md.String()), 0o644)
}

// verdict is the self-test's: INCOMPLETE when shards are missing, else
// PASS or FAIL.
func (rep *selftestReport) verdict() string {
	switch {
	case len(rep.Missing) > 0:
		return "INCOMPLETE"
	case !rep.Passed:
		return "FAIL"
	}
	return "PASS"
}

func percent(f float64) string {
	return fmt.Sprintf("%.0f%%", 100*f)
}

func mutantCount(rep *selftestReport) int { return len(rep.Matrix.Mutants) }

// writeSelftestSummary is the terminal summary: one line per mechanism, the
// skipped scenarios, what failed, and the verdict with the kill rate.
func writeSelftestSummary(w io.Writer, rep *selftestReport) {
	m := rep.Matrix
	for _, mech := range rep.Mechanisms {
		if n := notJudgedOf(rep, mech); n != nil {
			fmt.Fprintf(w, "%s: NOT JUDGED: %d rules x %d mutants, none played: %s\n", mech, len(n.Rules), len(n.Mutants), n.Why)
			continue
		}
		nr, nm, caught := 0, 0, 0
		for _, r := range m.Rules {
			if r.Mechanism == mech {
				nr++
			}
		}
		for _, mu := range m.Mutants {
			if mu.Mechanism == mech {
				nm++
				if len(mu.Fails) > 0 {
					caught++
				}
			}
		}
		rate := "n/a"
		if nm > 0 {
			rate = percent(float64(caught) / float64(nm))
		}
		nf, failed := faithfulOf(m, mech)
		fmt.Fprintf(w, "%s: %d rules, %d scenarios: mutants killed %s (%d/%d), faithful variants failed %d/%d\n", mech, nr, len(rep.Scenarios[mech]), rate, caught, nm, failed, nf)
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(w, "SKIPPED %s: about %d API calls, over --max-calls %d\n", s.Scenario, s.Calls, rep.MaxCalls)
	}
	for _, id := range m.Unfailed {
		fmt.Fprintf(w, "UNFAILED rule %s: no mutant fails it\n", id)
	}
	for _, id := range m.Thin {
		fmt.Fprintf(w, "THIN rule %s mutants fail it, fewer than %d\n", id, wantKills)
	}
	for _, mu := range m.Mutants {
		if len(mu.Fails) > 0 {
			continue
		}
		why := "fails no rule"
		if len(mu.Expects) > 0 {
			why += " (only the expectations of " + strings.Join(mu.Expects, ", ") + ")"
		}
		fmt.Fprintf(w, "SURVIVOR %s: %s\n", mu.Name, why)
	}
	for _, v := range m.Faithful {
		for _, f := range v.Failures {
			fmt.Fprintf(w, "FAITHFUL FAILS %s\n", f.line(v.Name))
			for _, e := range f.Evidence {
				fmt.Fprintf(w, "    %s\n", e)
			}
		}
	}
	for _, f := range m.Reference {
		fmt.Fprintf(w, "REFERENCE FAILS %s\n", f)
	}
	for _, f := range m.ReferenceWarnings {
		fmt.Fprintf(w, "REFERENCE WARNS %s\n", f)
	}
	verdict := rep.verdict()
	if len(rep.Missing) > 0 {
		fmt.Fprintf(w, "MISSING shards %s: their runs were not merged\n", strings.Join(rep.Missing, ", "))
	}
	notJudged := ""
	if len(rep.NotJudged) > 0 {
		notJudged = fmt.Sprintf(", %d mechanisms not judged", len(rep.NotJudged))
	}
	fmt.Fprintf(w, "%s: %d rules x %d mutants, kill rate %s (%d/%d caught), %d survivors, %d unfailed rules, faithful variants failed %d/%d, %d reference failures%s; %d runs, %d API calls in %s\n",
		verdict, len(m.Rules), mutantCount(rep), percent(m.KillRate), m.Caught, mutantCount(rep), len(m.Survivors), len(m.Unfailed),
		m.FaithfulFailed, len(m.Faithful), len(m.Reference), notJudged, rep.Runs, rep.APICalls, rep.Wall.Round(time.Millisecond))
}

// faithfulOf counts mech's faithful variants and those that failed.
func faithfulOf(m *matrix, mech string) (n, failed int) {
	for _, v := range m.Faithful {
		if v.Mechanism == mech {
			n++
			if len(v.Failures) > 0 {
				failed++
			}
		}
	}
	return n, failed
}

// line says a faithful variant's failure in one line.
func (f faithfulFailure) line(variant string) string {
	if f.Rule == "" {
		return fmt.Sprintf("%s in %s: %s", variant, f.Scenario, f.Message)
	}
	return fmt.Sprintf("%s in %s: %s: %s", variant, f.Scenario, f.Rule, f.Message)
}

// notJudgedOf is mech's entry in rep.NotJudged, or nil.
func notJudgedOf(rep *selftestReport, mech string) *notJudgedMechanism {
	for i := range rep.NotJudged {
		if rep.NotJudged[i].Mechanism == mech {
			return &rep.NotJudged[i]
		}
	}
	return nil
}

// writeSelftestMarkdown writes selftest.md: per mechanism a table of rules
// (rows) by mutants (columns), then the findings.
func writeSelftestMarkdown(w io.Writer, rep *selftestReport) {
	m := rep.Matrix
	fmt.Fprintf(w, "# opcert selftest: %s\n\n", rep.verdict())
	if len(rep.Missing) > 0 {
		fmt.Fprintf(w, "**Incomplete**: shards %s were not merged; their runs are in no figure below, so a mutant or rule they would have shown is missing too.\n\n", strings.Join(rep.Missing, ", "))
	}
	fmt.Fprintf(w, "%d rules x %d mutants, kill rate %s (%d/%d caught); faithful variants failed %d/%d; %d runs, %d API calls in %s (kube-apiserver %s).\n\n",
		len(m.Rules), mutantCount(rep), percent(m.KillRate), m.Caught, mutantCount(rep), m.FaithfulFailed, len(m.Faithful), rep.Runs, rep.APICalls,
		rep.Wall.Round(time.Millisecond), rep.Environment.KubeVersion)
	fmt.Fprintln(w, "A mutant is a broken subject, played in its role with the reference in the others;")
	fmt.Fprintln(w, "`x` marks a rule it fails in at least one scenario. Failing only a scenario's expectations counts for nothing.")
	fmt.Fprintln(w, "A faithful variant, written from the seed and different from the reference wherever the seed allows, is played the same way;")
	fmt.Fprintln(w, "the last column counts those that failed the rule (it must be 0).")
	for _, mech := range rep.Mechanisms {
		fmt.Fprintf(w, "\n## %s\n\n", mech)
		if n := notJudgedOf(rep, mech); n != nil {
			fmt.Fprintf(w, "Not judged: %s. Its %d mutants were not played (they are not survivors) and its %d rules not tried.\n", n.Why, len(n.Mutants), len(n.Rules))
			continue
		}
		fmt.Fprintf(w, "Scenarios: %s.\n\n", strings.Join(rep.Scenarios[mech], ", "))
		var cols []matrixMutant
		for _, mu := range m.Mutants {
			if mu.Mechanism == mech {
				cols = append(cols, mu)
			}
		}
		fmt.Fprint(w, "| rule |")
		for i := range cols {
			fmt.Fprintf(w, " %d |", i+1)
		}
		fmt.Fprint(w, " mutants killed by it | faithful variants failed |\n| --- |")
		for range cols {
			fmt.Fprint(w, " :-: |")
		}
		fmt.Fprint(w, " --: | --: |\n")
		for _, r := range m.Rules {
			if r.Mechanism != mech {
				continue
			}
			fmt.Fprintf(w, "| %s |", r.ID)
			in := map[string]bool{}
			for _, mu := range r.FailedBy {
				in[mu] = true
			}
			for _, c := range cols {
				mark := ""
				if in[c.Name] {
					mark = "x"
				}
				fmt.Fprintf(w, " %s |", mark)
			}
			fmt.Fprintf(w, " %d | %d |\n", len(r.FailedBy), len(r.FaithfulFails))
		}
		fmt.Fprintln(w, "\nMutants (columns):")
		fmt.Fprintln(w)
		for i, c := range cols {
			fails := strings.Join(c.Fails, ", ")
			if fails == "" {
				fails = "**nothing: a survivor**"
			}
			fmt.Fprintf(w, "%d. `%s` fails %s\n", i+1, c.Name, fails)
		}
		fmt.Fprintln(w, "\nFaithful variants:")
		fmt.Fprintln(w)
		n := 0
		for _, v := range m.Faithful {
			if v.Mechanism != mech {
				continue
			}
			n++
			verdict := "fails no rule"
			if len(v.Failures) > 0 {
				verdict = fmt.Sprintf("**fails %d times**", len(v.Failures))
			}
			fmt.Fprintf(w, "- `%s` %s\n", v.Name, verdict)
			for _, f := range v.Failures {
				fmt.Fprintf(w, "  - %s\n", f.line(v.Name))
				for _, e := range f.Evidence {
					fmt.Fprintf(w, "    - `%s`\n", strings.ReplaceAll(e, "`", "'"))
				}
			}
		}
		if n == 0 {
			fmt.Fprintln(w, "- none: the rules were shown only to accept the reference")
		}
	}
	fmt.Fprintln(w, "\n## Findings")
	fmt.Fprintln(w)
	list := func(title string, items []string) {
		if len(items) == 0 {
			fmt.Fprintf(w, "- %s: none\n", title)
			return
		}
		fmt.Fprintf(w, "- %s:\n", title)
		for _, it := range items {
			fmt.Fprintf(w, "  - %s\n", it)
		}
	}
	list("Rules no mutant fails", m.Unfailed)
	list(fmt.Sprintf("Rules fewer than %d mutants fail (reported, not failed)", wantKills), m.Thin)
	list("Survivors (mutants that fail no rule)", m.Survivors)
	var faithfulFails []string
	for _, v := range m.Faithful {
		for _, f := range v.Failures {
			faithfulFails = append(faithfulFails, f.line(v.Name))
		}
	}
	list("Faithful variants' failures (rules that judge the reference's choices, not the seed)", faithfulFails)
	list("Reference failures", m.Reference)
	list("Reference warnings (convention rules; they fail the self-test only with --strict)", m.ReferenceWarnings)
	var skipped []string
	for _, s := range rep.Skipped {
		skipped = append(skipped, fmt.Sprintf("%s (about %d API calls, over --max-calls %d)", s.Scenario, s.Calls, rep.MaxCalls))
	}
	list("Scenarios skipped", skipped)
	var notJudged []string
	for _, n := range rep.NotJudged {
		notJudged = append(notJudged, fmt.Sprintf("%s (%s)", n.Mechanism, n.Why))
	}
	list("Mechanisms not judged", notJudged)
}
