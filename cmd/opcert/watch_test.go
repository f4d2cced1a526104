package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/reports"
)

// The watch and analyze tests share one API server, started on first use
// and stopped by TestMain: a live cluster as opcert watch sees it, reached
// only through a kubeconfig.
var (
	sharedOnce  sync.Once
	shared      *apiserver.Server
	sharedError error
)

func sharedWorld(t *testing.T) *apiserver.Server {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the API server")
	}
	sharedOnce.Do(func() { shared, sharedError = apiserver.Start(context.Background(), apiserver.Options{}) })
	if sharedError != nil {
		t.Fatal(sharedError)
	}
	return shared
}

func stopSharedWorld() {
	if shared != nil {
		_ = shared.Stop()
	}
}

// kubeconfig writes a kubeconfig of a user of its own for the server.
func kubeconfig(t *testing.T, w *apiserver.Server, user string) string {
	t.Helper()
	data, _, err := w.AddUser(user, "")
	if err != nil {
		t.Fatal(err)
	}
	return write(t, t.TempDir(), "kubeconfig", string(data))
}

const seedChallenge = "Operator checking for stale status, the active operator will reset this message: "

// fleetWrites plays, on the server, an operator whose ClusterOperator is
// challenged by the detector (field manager stale-detector) and answered
// after answer.
func challengeAndAnswer(t *testing.T, c client.Client, name string, answer time.Duration) {
	t.Helper()
	ctx := context.Background()
	ltt := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	co := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Create(ctx, co, client.FieldOwner(name+"-operator")); err != nil {
		t.Fatal(err)
	}
	co.Status.Conditions = []configv1.ClusterOperatorStatusCondition{
		{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: "AsExpected", Message: "All is well", LastTransitionTime: ltt},
		{Type: configv1.OperatorDegraded, Status: configv1.ConditionFalse, Reason: "AsExpected", Message: "No problems", LastTransitionTime: ltt},
	}
	status := func(manager string, prefix string) {
		t.Helper()
		co.Status.Conditions[0].Message = prefix + "All is well"
		co.Status.Conditions[1].Message = prefix + "No problems"
		if err := c.Status().Update(ctx, co, client.FieldOwner(manager)); err != nil {
			t.Fatal(err)
		}
	}
	status(name+"-operator", "")
	status("stale-detector", seedChallenge)
	time.Sleep(answer) // the operator's answer time is what is under test
	status(name+"-operator", "")
}

func caseOf(t *testing.T, run reports.Run, rule string) reports.Case {
	t.Helper()
	for _, c := range run.Cases {
		if c.Rule == rule {
			return c
		}
	}
	t.Fatalf("no case %s", rule)
	return reports.Case{}
}

// opcert watch records a cluster through a kubeconfig, writes nothing to
// it, and judges what it saw: a slow answer fails STALE-007 with its
// evidence, a quick one passes, with the recorder's lag and tolerance in
// the report; --for ends it with the verdict's exit code, and Ctrl-C
// ends it with 130 after judging what was recorded.
func TestWatchRecordsAndJudges(t *testing.T) {
	w := sharedWorld(t)
	kc := kubeconfig(t, w, "opcert-watch")
	out := filepath.Join(t.TempDir(), "watch")
	p := startOpcert(t, nil, "watch", "--kubeconfig", kc, "--mechanism", "stale", "--for", "9s", "--out", out, "--answer-budget", "1s", "--unknown-after", "1m")
	p.waitLine(t, "opcert: recording stale on", 30*time.Second)
	challengeAndAnswer(t, w.Client, "quick", 100*time.Millisecond)
	challengeAndAnswer(t, w.Client, "slow", 4*time.Second)
	if code := p.wait(t, time.Minute); code != exitFail {
		t.Fatalf("exit %d, want 1 (STALE-007 failed); stderr:\n%s", code, p.stderr.String())
	}
	rep := readReport(t, out)
	run := rep.Runs[0]
	c := caseOf(t, run, "STALE-007")
	if c.Status != reports.Fail || !strings.Contains(c.Message, "ClusterOperator/slow") || strings.Contains(c.Message, "quick") {
		t.Errorf("STALE-007: %s %q, want slow failing and quick not", c.Status, c.Message)
	}
	if len(c.Evidence) != 2 || c.Evidence[0].Actor != "stale-detector" || c.Evidence[1].Actor != "slow-operator" {
		t.Errorf("evidence %+v, want the challenge and the late answer with their managers", c.Evidence)
	}
	r := run.Recording
	if r == nil || r.Format != "opcert-jsonl" || r.Lag == nil || r.Lag.Count < 8 || r.Tolerance < time.Second || r.Tolerance > 5*time.Second {
		t.Errorf("recording %+v, want the lag measured and a tolerance of a second or two", r)
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if !strings.Contains(string(md), "Recorder lag") || !strings.Contains(string(md), "+") {
		t.Errorf("report.md does not state the recorder's lag:\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(out, run.Timeline)); err != nil {
		t.Errorf("timeline: %v", err)
	}
	// Read-only: no object carries a write of the watcher (its manager
	// would be this binary's name).
	var list configv1.ClusterOperatorList
	if err := w.Client.List(context.Background(), &list); err != nil {
		t.Fatal(err)
	}
	for _, co := range list.Items {
		for _, mf := range co.ManagedFields {
			if strings.HasPrefix(mf.Manager, filepath.Base(os.Args[0])) {
				t.Errorf("%s was written by %s: opcert watch wrote to the cluster", co.Name, mf.Manager)
			}
		}
	}

	t.Run("Ctrl-C judges what was recorded, and --judge-every judges before", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "watch")
		p := startOpcert(t, nil, "watch", "--kubeconfig", kc, "--mechanism", "stale", "--out", out, "--answer-budget", "1s", "--unknown-after", "1m", "--judge-every", "1s")
		p.waitLine(t, "opcert: recording stale on", 30*time.Second)
		challengeAndAnswer(t, w.Client, "interrupted", 0)
		p.waitLine(t, "opcert: judged watch", 30*time.Second) // --judge-every rewrites the report while recording
		if _, err := os.Stat(filepath.Join(out, "report.json")); err != nil {
			t.Errorf("no report after a --judge-every: %v", err)
		}
		// The answer is judged once its 1s budget has passed within the recording.
		time.Sleep(1500 * time.Millisecond)
		if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		if code := p.wait(t, time.Minute); code != 130 {
			t.Fatalf("exit %d, want 130; stderr:\n%s", code, p.stderr.String())
		}
		rep := readReport(t, out)
		if c := caseOf(t, rep.Runs[0], "STALE-007"); c.Status != reports.Pass {
			t.Errorf("STALE-007 after Ctrl-C: %s %q, want the answer judged", c.Status, c.Message)
		}
		if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*tmp-*")); len(left) > 0 {
			t.Errorf("left behind: %v", left)
		}
	})
}

// A kubeconfig that reaches nothing is the environment's fault, an --out
// opcert must not replace is the input's; neither writes anything.
func TestWatchRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := write(t, dir, "kc", "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:1'}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {token: x}\n")
	if r := opcert(t, nil, "watch", "--kubeconfig", bad, "--mechanism", "stale", "--out", filepath.Join(dir, "out")); r.code != exitEnv || !strings.Contains(r.stderr, "127.0.0.1:1") {
		t.Errorf("unreachable cluster: exit %d, %s", r.code, r.stderr)
	}
	if r := opcert(t, nil, "watch", "--kubeconfig", filepath.Join(dir, "none"), "--mechanism", "clusteroperator", "--out", filepath.Join(dir, "out")); r.code != exitUsage || !strings.Contains(r.stderr, "kubeconfig") {
		t.Errorf("missing kubeconfig: exit %d, %s", r.code, r.stderr)
	}
	if r := opcert(t, nil, "watch", "--kubeconfig", bad, "--mechanism", "olm", "--out", filepath.Join(dir, "out")); r.code != exitUsage {
		t.Errorf("a mechanism that cannot be recorded: exit %d, %s", r.code, r.stderr)
	}
	if r := opcert(t, nil, "watch", "--kubeconfig", bad, "--out", filepath.Join(dir, "out")); r.code != exitUsage || !strings.Contains(r.stderr, "(clusteroperator, stackable, stale, staticpod)") {
		t.Errorf("no --mechanism with three that can be recorded: exit %d, %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("a refused watch wrote its report directory")
	}
}

// opcert watch --mechanism clusteroperator judges the ClusterOperators it
// records by the CO rules: an operator's Available turning False with its
// lastTransitionTime kept fails CO-020, its Degraded=True without a
// message warns CO-024 (a "should"), its lower-case message warns CO-021,
// and the cluster-version operator's write is its own role's, judged by no
// rule.
func TestWatchClusterOperator(t *testing.T) {
	w := sharedWorld(t)
	kc := kubeconfig(t, w, "opcert-watch-co")
	out := filepath.Join(t.TempDir(), "watch")
	p := startOpcert(t, nil, "watch", "--kubeconfig", kc, "--mechanism", "clusteroperator", "--for", "5s", "--out", out)
	p.waitLine(t, "opcert: recording clusteroperator on", 30*time.Second)
	ctx := context.Background()
	c := w.Client
	co := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: "watched-ingress"}}
	if err := c.Create(ctx, co, client.FieldOwner("cluster-version-operator")); err != nil {
		t.Fatal(err)
	}
	ltt := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	co.Status.Conditions = []configv1.ClusterOperatorStatusCondition{
		{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: "AsExpected", Message: "ingress is available", LastTransitionTime: ltt},
		{Type: configv1.OperatorDegraded, Status: configv1.ConditionTrue, Reason: "Failed", LastTransitionTime: ltt},
	}
	if err := c.Status().Update(ctx, co, client.FieldOwner("ingress-operator")); err != nil {
		t.Fatal(err)
	}
	co.Status.Conditions[0].Status = configv1.ConditionFalse
	if err := c.Status().Update(ctx, co, client.FieldOwner("ingress-operator")); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t, time.Minute); code != exitFail {
		t.Fatalf("exit %d, want 1 (CO-020 failed); stderr:\n%s", code, p.stderr.String())
	}
	run := readReport(t, out).Runs[0]
	if run.Mechanism != "clusteroperator" {
		t.Errorf("judged by %q, want clusteroperator", run.Mechanism)
	}
	c20 := caseOf(t, run, "CO-020")
	if c20.Status != reports.Fail || len(c20.Evidence) != 1 || c20.Evidence[0].Actor != "ingress-operator" || c20.Evidence[0].Role != "operator" {
		t.Errorf("CO-020: %s %q %+v, want the operator's write failing", c20.Status, c20.Message, c20.Evidence)
	}
	if c24 := caseOf(t, run, "CO-024"); c24.Status != reports.Warn {
		t.Errorf("CO-024: %s %q, want a warning", c24.Status, c24.Message)
	}
	if c21 := caseOf(t, run, "CO-021"); c21.Status != reports.Warn {
		t.Errorf("CO-021: %s %q, want a warning", c21.Status, c21.Message)
	}
}
