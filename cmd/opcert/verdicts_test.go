package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/reports"
)

// --time-scale is checked when the flag is parsed: NaN (which every range
// check let through, and which failed the reference), Inf, 0 (once read
// as 1), negatives, factors above 1 or below 0.001, and words are the
// input's fault, exit 2, before the API server starts; a factor in range
// is taken.
func TestTimeScaleIsCheckedBeforeAnythingStarts(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report")
	for _, scale := range []string{"NaN", "nan", "Inf", "-Inf", "+Inf", "0", "-0", "-1", "1.5", "1e-9", "0x1p-20", "fast", ""} {
		r := opcert(t, nil, "run", "--scenario", "stale-hang", "--time-scale", scale, "--out", out)
		if r.code != exitUsage || !strings.Contains(r.stderr, `for "--time-scale" flag`) || !strings.Contains(r.stderr, "give a factor from 0.001 to 1") {
			t.Errorf("--time-scale %q: exit %d, want 2 naming the flag and its range:\n%s", scale, r.code, r.stderr)
		}
		if strings.Contains(r.stderr, "starting kube-apiserver") {
			t.Errorf("--time-scale %q was refused only after the API server started:\n%s", scale, r.stderr)
		}
	}
	for _, scale := range []string{"1", "0.01", "0.001", "1e-2"} {
		if r := opcert(t, nil, "run", "--scenario", "stale-hang", "--time-scale", scale, "--dry-run", "--out", out); r.code != exitPass {
			t.Errorf("--time-scale %s: exit %d, want it taken:\n%s", scale, r.code, r.stderr)
		}
	}
}

// A step the client refuses to send (a kind the API server does not serve,
// a namespaced kind without a namespace), in a create or an expect, is the
// scenario's fault as the API server's own refusals are: exit 2 with the
// step's file:line, no rule failed, no report. It was blamed on the
// subjects (FAIL, exit 1).
func TestClientRefusedStepIsTheScenariosFault(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	dir := t.TempDir()
	for _, tc := range []struct{ name, step, want string }{
		{"unknown-kind.yaml", "create: {apiVersion: example.com/v1, kind: Nope, metadata: {name: x}}", `no matches for kind "Nope"`},
		{"no-namespace.yaml", "create: {apiVersion: v1, kind: ConfigMap, metadata: {name: cm}}", "an empty namespace may not be set"},
		{"expect-unknown-kind.yaml", `expect: {apiVersion: example.com/v1, kind: Nope, object: x, condition: Ready, status: "True"}`, `no matches for kind "Nope"`},
	} {
		sc := write(t, dir, tc.name, minimal+"steps:\n  - at: 1m\n    "+tc.step+"\n")
		out := filepath.Join(dir, "report")
		r := opcert(t, nil, "run", "--out", out, sc)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.name+":9: step at +1m0s: the client refused to send it") || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: exit %d, want 2 with the step's line and the client's reason:\n%s", tc.name, r.code, r.stderr)
		}
		if strings.Contains(r.stderr, "FAIL") {
			t.Errorf("%s: a step the client refused was reported as a rule failure:\n%s", tc.name, r.stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: a report was written for a broken scenario", tc.name)
		}
	}
}

// A ClusterOperator that a create step makes, status and all, has no
// operator: the detector rightly challenges it and marks it, and the
// operator rules do not blame the subject for leaving it unanswered. The
// reference failed STALE-007 and STALE-008 on it.
func TestScenarioCreatedClusterOperatorIsNoOperators(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	dir := t.TempDir()
	sc := write(t, dir, "extra.yaml", minimal+`steps:
  - at: 1m
    create:
      apiVersion: config.openshift.io/v1
      kind: ClusterOperator
      metadata: {name: extra}
      spec: {}
      status:
        conditions:
          - {type: Available, status: "True", reason: AsExpected, message: "Fine", lastTransitionTime: "2020-01-01T00:00:00Z"}
`)
	out := filepath.Join(dir, "report")
	r := opcert(t, nil, "run", "--out", out, sc)
	if r.code != exitPass {
		t.Fatalf("exit %d, want the reference to pass:\n%s%s", r.code, r.stdout, r.stderr)
	}
	run := readReport(t, out).Runs[0]
	for _, rule := range []string{"STALE-007", "STALE-008"} {
		if c := caseOf(t, run, rule); c.Status != reports.Pass || strings.Contains(c.Message, "extra") {
			t.Errorf("%s: %s %q, want the etcd operator judged and extra, which no operator wrote, not", rule, c.Status, c.Message)
		}
	}
	if c := caseOf(t, run, "STALE-002"); c.Status != reports.Pass || !strings.Contains(c.Message, "judged") {
		t.Errorf("STALE-002: %s %q, want the detector judged on extra as on any ClusterOperator", c.Status, c.Message)
	}
}

// opcert olm explain refuses an --annotation that is not a condition
// annotation of seed 002 (exit 2, nothing on stdout); it said "gate: open",
// exit 0.
func TestExplainRefusesUnknownAnnotation(t *testing.T) {
	r := opcert(t, nil, "olm", "explain", "--annotation", "Foo=X", filepath.Join("..", "..", "conformance", "olm", "testdata", "explain", "foos.yaml"))
	if r.code != exitUsage || !strings.Contains(r.stderr, `not "Foo"`) || strings.Contains(r.stdout, "gate:") {
		t.Errorf("exit %d, want 2 refusing the annotation and no verdict on the gate:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// selftest --max-calls that skips every scenario is refused before the API
// server starts (exit 2, naming the cheapest scenario's cost): it reported
// every mutant a survivor of runs that never happened, exit 1.
func TestSelftestRefusesMaxCallsThatSkipsEverything(t *testing.T) {
	out := filepath.Join(t.TempDir(), "selftest")
	for _, calls := range []string{"0", "1"} {
		r := opcert(t, nil, "selftest", "--max-calls", calls, "--out", out)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--max-calls "+calls+" skips every scenario: the cheapest") || strings.Contains(r.stdout+r.stderr, "survivor") {
			t.Errorf("--max-calls %s: exit %d, want 2 refusing it:\n%s%s", calls, r.code, r.stdout, r.stderr)
		}
		if strings.Contains(r.stderr, "starting kube-apiserver") {
			t.Errorf("--max-calls %s was refused only after the API server started", calls)
		}
	}
}

// A mechanism all of whose scenarios --max-calls skips is not judged: its
// mutants are not survivors and its rules not unfailed, and the summary
// and selftest.md say it was not judged, and why.
func TestSelftestMechanismOverMaxCallsIsNotJudged(t *testing.T) {
	mechs, err := addMechanismFlags(pflag.NewFlagSet("t", pflag.ContinueOnError)).build()
	if err != nil {
		t.Fatal(err)
	}
	cheapest := func(mech string) int {
		o := selftestOptions{only: []string{mech}, maxCalls: math.MaxInt}
		plans, err := o.plan(mechs)
		if err != nil {
			t.Fatal(err)
		}
		least := math.MaxInt
		for _, sc := range plans[0].scs {
			least = min(least, plan{sc: sc, m: plans[0].m}.calls())
		}
		return least
	}
	played, skipped := "stale", "stackable"
	if cheapest(played) >= cheapest(skipped) {
		t.Fatalf("the test wants %s's cheapest scenario cheaper than %s's", played, skipped)
	}
	o := selftestOptions{only: []string{played, skipped}, maxCalls: cheapest(played)}
	plans, err := o.plan(mechs)
	if err != nil {
		t.Fatal(err)
	}
	rules, mutants, faithful, notJudged := matrixInputs(plans, o.maxCalls)
	if len(notJudged) != 1 || notJudged[0].Mechanism != skipped || len(notJudged[0].Mutants) == 0 || !strings.Contains(notJudged[0].Why, "over --max-calls") {
		t.Fatalf("not judged %+v, want %s alone, with its mutants", notJudged, skipped)
	}
	if _, in := mutants[skipped]; in {
		t.Errorf("%s's mutants are in the matrix", skipped)
	}
	m := buildMatrix(rules, mutants, faithful, nil)
	for _, s := range m.Survivors {
		if strings.HasPrefix(s, skipped+".") {
			t.Errorf("%s, never played, is a survivor", s)
		}
	}
	rep := &selftestReport{Mechanisms: []string{played, skipped}, MaxCalls: o.maxCalls, NotJudged: notJudged, Matrix: m}
	var sum, md strings.Builder
	writeSelftestSummary(&sum, rep)
	writeSelftestMarkdown(&md, rep)
	if !strings.Contains(sum.String(), skipped+": NOT JUDGED") || !strings.Contains(sum.String(), "1 mechanisms not judged") {
		t.Errorf("the summary does not say %s was not judged:\n%s", skipped, sum.String())
	}
	if !strings.Contains(md.String(), "Not judged: each of its") || !strings.Contains(md.String(), "Mechanisms not judged:\n  - "+skipped) {
		t.Errorf("selftest.md does not say %s was not judged:\n%s", skipped, md.String())
	}
}

// A watch whose cluster dies mid-recording is the environment's fault:
// stderr says what was lost while it happens and at the end, exit 3, and
// the report marks the watch ERROR with every rule that had passed not
// judged, saying why. It reported PASS, exit 0, with nothing on stderr.
func TestWatchThatLosesItsClusterIsAnEnvironmentError(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	w, err := apiserver.Start(context.Background(), apiserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	kc := kubeconfig(t, w, "opcert-watch-dies")
	out := filepath.Join(t.TempDir(), "watch")
	p := startOpcert(t, nil, "watch", "--kubeconfig", kc, "--mechanism", "stale", "--for", "10s", "--out", out)
	p.waitLine(t, "opcert: recording stale on", 30*time.Second)
	challengeAndAnswer(t, w.Client, "before-death", 100*time.Millisecond)
	time.Sleep(2 * time.Second)
	killAPIServerOf(t, w)
	if code := p.wait(t, time.Minute); code != exitEnv {
		t.Fatalf("exit %d, want 3; stderr:\n%s", code, p.stderr.String())
	}
	for _, say := range []string{"opcert: lost ClusterOperator", "never reached it again"} {
		if !strings.Contains(p.stderr.String(), say) {
			t.Errorf("stderr does not say %q:\n%s", say, p.stderr.String())
		}
	}
	run := readReport(t, out).Runs[0]
	if run.Stopped != reports.StopEnvironment || !strings.Contains(run.Error, "lost ClusterOperator") {
		t.Errorf("report: stopped %q, error %q, want the environment's fault naming the loss", run.Stopped, run.Error)
	}
	judged := false
	for _, c := range run.Cases {
		switch {
		case c.Status == reports.Pass:
			t.Errorf("%s passed on a recording that lost its cluster: %s", c.Rule, c.Message)
		case c.Status == reports.Skip && strings.Contains(c.Message, "not judged from +") && strings.Contains(c.Message, "never reached the cluster again"):
			judged = true
		}
	}
	if !judged {
		t.Errorf("no rule says it was not judged because the cluster was lost: %+v", run.Cases)
	}
}

// killAPIServerOf kills w's kube-apiserver (SIGKILL): the one whose
// command line names w's directory, not the shared world's.
func killAPIServerOf(t *testing.T, w *apiserver.Server) {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		cmdline, err1 := os.ReadFile(filepath.Join(d, "cmdline"))
		comm, err2 := os.ReadFile(filepath.Join(d, "comm"))
		if err1 != nil || err2 != nil || strings.TrimSpace(string(comm)) != "kube-apiserver" || !strings.Contains(string(cmdline), w.Dir()) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(d))
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("no kube-apiserver of the world in %s", w.Dir())
}
