package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// Process mode, end to end (README "As a process"): the example operator
// binary, built here, plays the operator role against opcert's API server
// in real time, at a time scale of 0.01 (a 10m challenge comes after 6s).
// They wait on wall time by nature: a few minutes at most in all.

// exampleOperator builds examples/staleoperator's binary once per test.
func exampleOperator(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "staleoperator")
	out, err := exec.Command("go", "build", "-o", bin, "../../examples/staleoperator/cmd/staleoperator").CombinedOutput()
	if err != nil {
		t.Fatalf("building the example operator: %v\n%s", err, out)
	}
	return bin
}

// processScenario has two operators; dns is killed at 5m (3s in).
func processScenario(t *testing.T, duration string) string {
	return write(t, t.TempDir(), "pm.yaml", `name: process-mode
mechanism: stale
duration: `+duration+`
operators:
  - name: etcd
    conditions: [{type: Available, status: "True", reason: AsExpected, message: All is well}]
  - name: dns
    conditions: [{type: Available, status: "True", reason: AsExpected, message: All is well}]
steps:
  - at: 5m
    killOperator: dns
`)
}

func readReport(t *testing.T, out string) reports.Report {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep reports.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

func readTimeline(t *testing.T, path string) []timeline.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []timeline.Event
	for line := range strings.Lines(string(data)) {
		var e timeline.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, e)
	}
	return out
}

func TestProcessModeCertifiesTheExample(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := exampleOperator(t)
	sc := processScenario(t, "25m") // 15s of wall time

	out := filepath.Join(t.TempDir(), "good")
	r := opcert(t, nil, "run", sc, "--time-scale", "0.01", "--out", out, "--subject", "operator=exec:"+bin+" --name {name}")
	if r.code != 0 {
		t.Fatalf("the example operator: exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	run := readReport(t, out).Runs[0]
	judged := map[string]reports.Status{}
	for _, c := range run.Cases {
		judged[c.Rule] = c.Status
	}
	// A live operator answered its challenges; the dead one was challenged
	// and set Unknown: every rule with something to judge judged it.
	for _, id := range []string{"STALE-001", "STALE-002", "STALE-003", "STALE-004", "STALE-007", "STALE-008"} {
		if judged[id] != reports.Pass {
			t.Errorf("%s is %s, want pass", id, judged[id])
		}
	}
	// Each operator's writes are put down to its process by the user the
	// API server authenticated (its audit), the only attribution process
	// mode makes.
	writes := map[string]int{}
	for _, e := range readTimeline(t, filepath.Join(out, run.Timeline)) {
		if e.IsWrite() && e.Object.Kind == "ClusterOperator" && e.Actor != "detector" {
			writes[e.Actor+" "+e.Role+" "+e.Object.Name]++
		}
	}
	if writes["operator/etcd operator etcd"] == 0 || writes["operator/dns operator dns"] == 0 || len(writes) != 2 {
		t.Errorf("ClusterOperator writes by actor, role and object: %v, want operator/etcd's and operator/dns's only", writes)
	}
	if run.TimeScale != 0.01 || len(run.Processes) != 2 {
		t.Fatalf("time scale %v, %d processes", run.TimeScale, len(run.Processes))
	}
	for _, p := range run.Processes {
		want := []string{stoppedAtEnd}
		if p.Name == "operator/dns" {
			want = []string{killedByStep}
		}
		if !endedAs(p.Endings, want) {
			t.Errorf("%s ended %q, want %q", p.Name, p.Endings, want)
		}
		if log, err := os.ReadFile(filepath.Join(out, p.Log)); err != nil || len(log) == 0 {
			t.Errorf("%s's output %s: %v", p.Name, p.Log, err)
		}
	}
	noProcess(t, bin)
}

func TestProcessModeFailsTheCarelessExample(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := exampleOperator(t)
	// It looks every 40s of wall time, so it answers a challenge 6s in
	// about 34s later: over the 30s budget, which is not scaled.
	sc := processScenario(t, "80m")
	out := filepath.Join(t.TempDir(), "careless")
	r := opcert(t, nil, "run", sc, "--time-scale", "0.01", "--out", out,
		"--subject", "operator=exec:"+bin+" --name {name} --careless --resync 40s")
	if r.code != 1 {
		t.Fatalf("the careless operator: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, c := range readReport(t, out).Runs[0].Cases {
		if c.Rule == "STALE-007" && (c.Status != reports.Fail || len(c.Evidence) == 0 || !strings.Contains(c.Message, "etcd")) {
			t.Errorf("STALE-007: %s %s (%d events of evidence), want a failure naming etcd", c.Status, c.Message, len(c.Evidence))
		}
	}
	noProcess(t, bin)
}

// SIGINT in the middle of a process-mode run leaves no process of the
// subject's behind, and no run directory.
func TestProcessModeInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := exampleOperator(t)
	tmp, out := t.TempDir(), filepath.Join(t.TempDir(), "report")
	p := startOpcert(t, []string{"TMPDIR=" + tmp}, "run", processScenario(t, "2h"), "--time-scale", "0.01", "--out", out,
		"--subject", "operator=exec:"+bin+" --name {name}")
	p.waitLine(t, "API server up", time.Minute)
	deadline := time.Now().Add(30 * time.Second)
	for len(running(bin)) < 1 && time.Now().Before(deadline) {
		<-time.After(50 * time.Millisecond)
	}
	if len(running(bin)) == 0 {
		t.Fatal("no operator process started")
	}
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(t, 30*time.Second); code != 130 {
		t.Errorf("exit %d, want 130\n%s", code, p.stderr.String())
	}
	noProcess(t, bin)
	noChildren(t, p.cmd.Process.Pid)
	noRunDirs(t, tmp)
}

// running lists the processes running bin.
func running(bin string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		exe, err := os.Readlink(filepath.Join(d, "exe"))
		if err == nil && exe == bin {
			out = append(out, filepath.Base(d))
		}
	}
	return out
}

// noProcess fails if bin still runs a few seconds on.
func noProcess(t *testing.T, bin string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); len(running(bin)) > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("processes of %s outlived the run: %v", bin, running(bin))
		}
		<-time.After(50 * time.Millisecond)
	}
}

// stoppedAtEnd is how a process that exits on SIGTERM, as the examples
// do, ended when the run was over (conformance.Processes.Close).
const stoppedAtEnd = `^running at the end of the run, stopped by opcert with SIGTERM after [0-9.]+m?s \(exited with status 0\)$`

// killedByStep is how a process a killOperator step killed ended.
const killedByStep = `^killed by opcert \(SIGKILL\)$`

// endedAs tells whether each of endings matches the pattern of want at
// its place.
func endedAs(endings, want []string) bool {
	if len(endings) != len(want) {
		return false
	}
	for i, w := range want {
		if !regexp.MustCompile(w).MatchString(endings[i]) {
			return false
		}
	}
	return true
}
