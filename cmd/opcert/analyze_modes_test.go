package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/opcert/opcert/cluster/clustertest"
)

// opcert analyze of the timelines a run wrote gives the run's verdicts,
// case by case (rule, status, message, evidence), in every mode: the
// report.json beside them keeps the mechanism, its flags, the time scale,
// the tolerance, strictness and the run's end (issue 20 §3: analyze of a
// process-mode run gave 12 failures on a run whose rules all passed).
// Process mode's case is TestWatchAndAnalyzeOfAProcessModeRun's, whose
// run it shares.

// analyzeAgrees analyzes every timeline of the report ran (a run's or a
// watch's) and holds what it finds to the report's, exit status included.
func analyzeAgrees(t *testing.T, ran string, exit int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(ran, "timelines", "*.jsonl"))
	analyzed := filepath.Join(t.TempDir(), "analyzed")
	a := opcert(t, nil, append([]string{"analyze", "--out", analyzed}, files...)...)
	if a.code != exit {
		t.Errorf("opcert analyze: exit %d, want %d as the run\n%s\n%s", a.code, exit, a.stdout, a.stderr)
	}
	want, got := readReport(t, ran), readReport(t, analyzed)
	if len(got.Runs) != len(want.Runs) {
		t.Fatalf("%d runs, want %d", len(got.Runs), len(want.Runs))
	}
	for i, w := range want.Runs {
		g := got.Runs[i]
		if g.Mechanism != w.Mechanism || g.TimeScale != w.TimeScale || g.Reaction != w.Reaction {
			t.Errorf("%s: judged by %s at scale %g, reaction bound %s; the run by %s at %g, %s", w.Scenario, g.Mechanism, g.TimeScale, g.Reaction, w.Mechanism, w.TimeScale, w.Reaction)
		}
		tolerance := w.Tolerance
		if w.Recording != nil { // a watch's
			tolerance = w.Recording.Tolerance
		}
		if g.Recording == nil || g.Recording.Tolerance != tolerance || !g.Start.Equal(w.Start) && !w.Start.IsZero() {
			t.Errorf("%s: recording %+v from %s; the run's tolerance %s, start %s", w.Scenario, g.Recording, g.Start, tolerance, w.Start)
		}
		if len(g.Cases) != len(w.Cases) {
			t.Fatalf("%s: %d cases, want %d", w.Scenario, len(g.Cases), len(w.Cases))
		}
		for j, wc := range w.Cases {
			gc := g.Cases[j]
			if gc.Rule != wc.Rule || gc.Status != wc.Status || gc.Message != wc.Message || !sameEvidence(gc.Evidence, wc.Evidence) {
				t.Errorf("%s %s: analyze %s %q, run %s %q", w.Scenario, wc.Rule, gc.Status, gc.Message, wc.Status, wc.Message)
			}
		}
		if strings.Join(g.NotJudged, "; ") != strings.Join(w.NotJudged, "; ") {
			t.Errorf("%s: analyze not judged %q, run %q", w.Scenario, g.NotJudged, w.NotJudged)
		}
	}
}

// Virtual time: the reference (clusteroperator) and a mutant that fails
// STALE-007 (stale), under a challenge threshold the run was given, which
// analyze takes from the report; a flag that contradicts the run is
// refused, naming it.
func TestAnalyzeAgreesWithAVirtualRun(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	ran := filepath.Join(t.TempDir(), "run")
	r := opcert(t, nil, "run", "--scenario", "stale-healthy-answer", "--scenario", "stale-restart-after-unknown", "--scenario", "co-clean-install",
		"--subject", "stale.operator=slow", "--unknown-after", "25m", "--out", ran)
	if r.code != exitFail {
		t.Fatalf("opcert run: exit %d, want 1 (slow fails STALE-007)\n%s", r.code, r.stderr)
	}
	if j := readReport(t, ran).Judging; j == nil || strings.Join(j.Flags, " ") != "--unknown-after=25m0s" {
		t.Errorf("the report keeps the flags %+v, want --unknown-after=25m0s", j)
	}
	analyzeAgrees(t, ran, exitFail)

	file := filepath.Join(ran, "timelines", "01-stale-healthy-answer.jsonl")
	out := filepath.Join(t.TempDir(), "a")
	for _, flags := range [][]string{{"--unknown-after", "20m"}, {"--mechanism", "clusteroperator"}, {"--strict"}, {"--until", "1m"}} {
		a := opcert(t, nil, append(append([]string{"analyze", "--out", out}, flags...), file)...)
		if a.code != exitUsage || !strings.Contains(a.stderr, flags[0]) || !strings.Contains(a.stderr, "is not its run's") {
			t.Errorf("analyze %s of a run's timeline: exit %d, want 2 naming the flag\n%s", flags, a.code, a.stderr)
		}
	}
	if a := opcert(t, nil, "analyze", "--unknown-after", "25m", "--out", out, file); a.code != exitFail {
		t.Errorf("analyze with the run's own --unknown-after: exit %d, want 1 (slow fails STALE-007)\n%s", a.code, a.stderr)
	}
}

// Cluster mode: the example operator's Deployments on a cluster reached
// through a kubeconfig (opcert's API server with a stand-in for the
// kubelet).
func TestAnalyzeAgreesWithAClusterModeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	tm := setupTeam(t)
	bindOpcertRBAC(t, tm, "opcert-ci", true)
	kc := clustertest.Kubeconfig(t, sharedWorld(t), "opcert-analyze", "opcert-ci")
	ran := filepath.Join(t.TempDir(), "run")
	r := opcert(t, nil, "run", processScenario(t, "12m"), "--kubeconfig", kc, "--subject", deploySubject,
		"--allow-disruption", "--time-scale", "0.01", "--out", ran)
	if r.code != exitPass {
		t.Fatalf("the example operator on the cluster: exit %d, want 0\n%s\n%s\n%s", r.code, r.stdout, r.stderr, tm.Kubelet.Logs())
	}
	analyzeAgrees(t, ran, exitPass)
}
