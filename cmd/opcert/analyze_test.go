package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// opcert analyze of the timelines an opcert run wrote gives the run's
// verdicts, messages and evidence offsets included (each timeline judged up
// to the instant its run reached, which the report beside it says).
func TestAnalyzeJudgesRunTimelinesAsTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	dir := t.TempDir()
	ran := filepath.Join(dir, "run")
	r := opcert(t, nil, "run", "--scenario", "stale-healthy-answer", "--scenario", "stale-restart-after-unknown", "--subject", "operator=slow", "--out", ran)
	if r.code != exitFail {
		t.Fatalf("opcert run: exit %d, want 1 (slow fails STALE-007)\n%s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(ran, "timelines", "*.jsonl"))
	analyzed := filepath.Join(dir, "analyzed")
	a := opcert(t, nil, append([]string{"analyze", "--out", analyzed}, files...)...)
	if a.code != exitFail {
		t.Fatalf("opcert analyze: exit %d, want 1 as the run\n%s", a.code, a.stderr)
	}
	want, got := readReport(t, ran), readReport(t, analyzed)
	if len(got.Runs) != len(want.Runs) {
		t.Fatalf("%d runs, want %d", len(got.Runs), len(want.Runs))
	}
	for i, w := range want.Runs {
		g := got.Runs[i]
		if g.Recording == nil || g.Recording.Format != "opcert-jsonl" || g.Recording.Tolerance != 0 {
			t.Errorf("%s: recording %+v, want a virtual timeline judged exactly", w.Scenario, g.Recording)
		}
		for j, wc := range w.Cases {
			gc := g.Cases[j]
			if gc.Rule != wc.Rule || gc.Status != wc.Status || gc.Message != wc.Message || !sameEvidence(gc.Evidence, wc.Evidence) {
				t.Errorf("%s %s: analyze %s %q, run %s %q", w.Scenario, wc.Rule, gc.Status, gc.Message, wc.Status, wc.Message)
			}
		}
	}
	md, _ := os.ReadFile(filepath.Join(analyzed, "report.md"))
	if !strings.Contains(string(md), "+10m0s detector update-status ClusterOperator/etcd") {
		t.Errorf("evidence offsets are not from the run's start:\n%s", md)
	}
}

func sameEvidence(a, b []timeline.Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if reports.FormatEvent(a[i]) != reports.FormatEvent(b[i]) {
			return false
		}
	}
	return true
}

// opcert analyze reads what kubectl get clusteroperators -w -o json
// --show-managed-fields prints, tells the mechanism from the kind, and
// judges it: an answer 3s after the challenge fails a 1s budget, with the
// kubectl stream's tolerance (a second: its times are managedFields').
func TestAnalyzeKubectlStream(t *testing.T) {
	w := sharedWorld(t)
	ctx := context.Background()
	c := w.Client
	var stream bytes.Buffer
	co := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: "kubectl-" + strings.ToLower(t.Name()[:4])}}
	print := func() {
		var got configv1.ClusterOperator
		if err := c.Get(ctx, client.ObjectKeyFromObject(co), &got); err != nil {
			t.Fatal(err)
		}
		got.APIVersion, got.Kind = "config.openshift.io/v1", "ClusterOperator"
		data, _ := json.MarshalIndent(&got, "", "    ")
		stream.Write(append(data, '\n'))
	}
	if err := c.Create(ctx, co, client.FieldOwner("etcd-operator")); err != nil {
		t.Fatal(err)
	}
	print()
	ltt := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	co.Status.Conditions = []configv1.ClusterOperatorStatusCondition{{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: "AsExpected", Message: "All is well", LastTransitionTime: ltt}}
	for _, step := range []struct {
		manager, prefix string
		after           time.Duration
	}{{"etcd-operator", "", 0}, {"stale-detector", seedChallenge, 0}, {"etcd-operator", "", 3 * time.Second}} {
		time.Sleep(step.after) // the operator's answer time is what is judged
		co.Status.Conditions[0].Message = step.prefix + "All is well"
		if err := c.Status().Update(ctx, co, client.FieldOwner(step.manager)); err != nil {
			t.Fatal(err)
		}
		print()
	}
	dir := t.TempDir()
	file := write(t, dir, "co.json", stream.String())
	out := filepath.Join(dir, "report")
	r := opcert(t, nil, "analyze", file, "--answer-budget", "1s", "--unknown-after", "1m", "--out", out)
	if r.code != exitFail {
		t.Fatalf("exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	run := readReport(t, out).Runs[0]
	if rec := run.Recording; rec == nil || rec.Format != "kubectl-watch-json" || rec.Events != 4 || rec.Tolerance != time.Second {
		t.Errorf("recording %+v, want 4 events of a kubectl stream judged with a second's tolerance", rec)
	}
	c7 := caseOf(t, run, "STALE-007")
	if c7.Status != reports.Fail || !strings.Contains(c7.Message, "reset after 3s") || len(c7.Evidence) != 2 ||
		c7.Evidence[0].Actor != "stale-detector" || c7.Evidence[1].Actor != "etcd-operator" {
		t.Errorf("STALE-007: %s %q %+v", c7.Status, c7.Message, c7.Evidence)
	}
	if _, err := os.Stat(filepath.Join(out, run.Timeline)); err != nil {
		t.Errorf("the stream's timeline is not in the report: %v", err)
	}
}

// Files that are no timeline, flags that make no sense and an --out that
// is not opcert's are refused with exit 2, and nothing is written.
func TestAnalyzeRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{write(t, dir, "notes.txt", "hello\n")}, "neither an opcert timeline"},
		{[]string{write(t, dir, "pod.json", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}`)}, "--show-managed-fields"},
		{[]string{write(t, dir, "late.jsonl", `{"time":"2026-01-01T00:01:00Z","actor":"a","verb":"v"}`+"\n"+`{"time":"2026-01-01T00:00:00Z","actor":"a","verb":"v"}`), "--mechanism", "stale"}, "goes back"},
		{[]string{filepath.Join(dir, "missing.jsonl")}, "missing.jsonl"},
		{[]string{dir}, "is not a file"},
		{[]string{write(t, dir, "x.jsonl", ""), "--mechanism", "olm"}, `no such mechanism`},
	} {
		r := opcert(t, nil, append([]string{"analyze", "--out", out}, tc.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused analysis wrote its report directory")
	}
}
