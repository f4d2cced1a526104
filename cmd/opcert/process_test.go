package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stale/staletest"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// Process mode through the command (docs/guides/process.md): the example
// operator binary, built here, plays the operator role against opcert's
// API server in real time, at a time scale of 0.01 (a 10m challenge comes
// after 6s). What the example passes and fails is conformance/stale's
// test (operator_process_e2e_test.go); here, what opcert does of it.

// exampleOperator builds examples/staleoperator's binary once per test.
func exampleOperator(t *testing.T) string {
	return conformancetest.Build(t, "../../examples/staleoperator/cmd/staleoperator")
}

// processScenario has two operators; dns is killed at 5m (3s in).
func processScenario(t *testing.T, duration string) string {
	return staletest.DNSKilled(t, "process-mode", duration)
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
	for len(conformancetest.Running(bin)) < 1 && time.Now().Before(deadline) {
		<-time.After(50 * time.Millisecond)
	}
	if len(conformancetest.Running(bin)) == 0 {
		t.Fatal("no operator process started")
	}
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(t, 30*time.Second); code != 130 {
		t.Errorf("exit %d, want 130\n%s", code, p.stderr.String())
	}
	conformancetest.Gone(t, bin)
	noChildren(t, p.cmd.Process.Pid)
	noRunDirs(t, tmp)
}
