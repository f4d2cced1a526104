package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opcert/opcert/reports"
)

// Watching opcert's own API server (issue 20 §6): opcert run
// --kubeconfig-out keeps a kubeconfig of it while the run lasts, through
// which opcert watch records the run; with its defaults the watch takes
// opcert's own detector's writes (field manager opcert) for the
// detector's, and says who it saw write as what.

// startRun starts opcert run with args in the background; wait gives its
// exit status and output once it ends.
func startRun(t *testing.T, args ...string) (cmd *exec.Cmd, wait func() result) {
	t.Helper()
	cmd = exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "OPCERT_TEST_MAIN=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var code int
	go func() {
		defer close(done)
		if err := cmd.Wait(); err != nil {
			code = cmd.ProcessState.ExitCode()
		}
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	return cmd, func() result {
		select {
		case <-done:
		case <-time.After(3 * time.Minute):
			t.Fatalf("opcert run did not end within 3m\n%s", errb.String())
		}
		return result{out.String(), errb.String(), code}
	}
}

// waitFile waits, boundedly, for path to exist, as long as the run lasts.
func waitFile(t *testing.T, path string, wait func() result) os.FileInfo {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if fi, err := os.Stat(path); err == nil {
			return fi
		}
	}
	r := wait()
	t.Fatalf("no %s within 2m: the run exited %d\n%s", path, r.code, r.stderr)
	return nil
}

// The same run's report, analyzed, is held to the run's (analyzeAgrees):
// the process-mode case of TestAnalyzeAgreesWithAVirtualRun and
// TestAnalyzeAgreesWithAClusterModeRun, sharing the run to spare a minute.
func TestWatchAndAnalyzeOfAProcessModeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := exampleOperator(t)
	dir := t.TempDir()
	kc := filepath.Join(dir, "opcert.kubeconfig")
	// 20m at 0.01 is 12s; challenges after 2m (1.2s), so that the watch
	// sees opcert's detector write.
	_, wait := startRun(t, "run", processScenario(t, "20m"), "--time-scale", "0.01", "--challenge-after", "2m", "--kubeconfig-out", kc,
		"--out", filepath.Join(dir, "run"), "--subject", "operator=exec:"+bin+" --name {name}")
	if fi := waitFile(t, kc, wait); fi.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", kc, fi.Mode().Perm())
	}
	watched := filepath.Join(dir, "watch")
	w := opcert(t, nil, "watch", "--kubeconfig", kc, "--mechanism", "stale", "--for", "5s", "--time-scale", "0.01", "--challenge-after", "2m", "--out", watched)
	if w.code != exitPass && w.code != exitFail { // what the rules say of 5s is not this test's
		t.Fatalf("opcert watch: exit %d, want 0 or 1\n%s\n%s", w.code, w.stdout, w.stderr)
	}
	run := readReport(t, watched).Runs[0]
	writers := map[string]string{}
	for _, wr := range run.Recording.Writers {
		writers[wr.Name] = wr.Role
	}
	if writers["opcert"] != "detector" || writers["staleoperator"] != "operator" {
		t.Errorf("writers %+v, want opcert as detector and staleoperator as operator", run.Recording.Writers)
	}
	if !strings.Contains(w.stdout, "WRITERS watch [mechanism=stale]: ") || !strings.Contains(w.stdout, "opcert as detector") {
		t.Errorf("the summary does not say who wrote as what:\n%s", w.stdout)
	}
	analyzeAgrees(t, watched, w.code) // the watch's timeline, at the watch's time scale and flags
	if r := wait(); r.code != exitPass {
		t.Fatalf("opcert run: exit %d, want 0\n%s", r.code, r.stderr)
	}
	// Its own timeline, analyzed, gives its verdicts (issue 20 §3, process
	// mode: the example operator at time scale 0.01 under a challenge
	// threshold given to the run, with a real-time run's tolerance and its
	// events judged in time order as the run judged them).
	analyzeAgrees(t, filepath.Join(dir, "run"), exitPass)
	if _, err := os.Stat(kc); !os.IsNotExist(err) {
		t.Errorf("%s is still there after the run: %v", kc, err)
	}

	// A run stopped by a signal removes it too; one that exists is never
	// overwritten.
	cmd, wait := startRun(t, "run", processScenario(t, "60m"), "--time-scale", "0.01", "--kubeconfig-out", kc,
		"--out", filepath.Join(dir, "stopped"), "--subject", "operator=exec:"+bin+" --name {name}")
	waitFile(t, kc, wait)
	if r := opcert(t, nil, "run", "--scenario", "stale-healthy-answer", "--kubeconfig-out", kc, "--out", filepath.Join(dir, "refused")); r.code != exitUsage || !strings.Contains(r.stderr, "exists") {
		t.Errorf("a --kubeconfig-out that exists: exit %d, want 2 saying it exists\n%s", r.code, r.stderr)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if r := wait(); r.code != 128+int(syscall.SIGINT) {
		t.Errorf("opcert run after SIGINT: exit %d, want 130\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(kc); !os.IsNotExist(err) {
		t.Errorf("%s is still there after the run was stopped: %v", kc, err)
	}
}

// A stale recording in which no write was put down to the detector proves
// nothing: NOT JUDGED (exit 4), saying who wrote as what; opcert's own
// detector's writes (field manager opcert) are the detector's by default.
func TestStaleRecordingWithoutTheDetectorIsNotJudged(t *testing.T) {
	ltt := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	cond := func(message string) []configv1.ClusterOperatorStatusCondition {
		return []configv1.ClusterOperatorStatusCondition{{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: "AsExpected", Message: message, LastTransitionTime: ltt}}
	}
	dir := t.TempDir()
	alone := write(t, dir, "alone.json", kubectlStream(t, "co-alone", []streamWrite{
		{"etcd-operator", cond("All is well")}, {"etcd-operator", cond("All is still well")},
	}))
	out := filepath.Join(dir, "alone")
	r := opcert(t, nil, "analyze", "--mechanism", "stale", "--out", out, alone)
	if r.code != exitNotJudged || !strings.Contains(r.stdout, "no write by the detector was seen") || !strings.Contains(r.stdout, "etcd-operator as operator") ||
		!strings.Contains(r.stdout, "--detector-manager") {
		t.Errorf("no detector write: exit %d, want 4 saying so\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	challenged := write(t, dir, "challenged.json", kubectlStream(t, "co-challenged", []streamWrite{
		{"etcd-operator", cond("All is well")}, {"opcert", cond(seedChallenge + "All is well")}, {"etcd-operator", cond("All is well")},
	}))
	out = filepath.Join(dir, "challenged")
	r = opcert(t, nil, "analyze", "--mechanism", "stale", "--out", out, challenged)
	run := readReport(t, out).Runs[0]
	if !slices.Contains(run.Recording.Writers, reports.Writer{Name: "opcert", Role: "detector", Writes: 1}) || strings.Contains(strings.Join(run.NotJudged, ";"), "no write by the detector") {
		t.Errorf("opcert's detector: exit %d, writers %+v, not judged %q", r.code, run.Recording.Writers, run.NotJudged)
	}
}
