package staticpod_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/staticpod"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
)

// Process mode for seed 003: the example startup-monitor
// (examples/startupmonitor, plain client-go, nothing of opcert) plays the startup-monitor of each node against the package's API
// server in real time, the node simulated (processes.go). Its writes to
// the node's files must reach the timeline as the reference's do: every
// monitor rule judged and passed, the expectations held.
//
// The built-ins played are those whose story is the monitor's and that
// play in seconds at processScale: 5m is 3s, the reaction bound 0.6s,
// plus conformance.RealtimeTolerance (1s, not scaled). They play in three
// lanes side by side (about 45s of wall time), each lane's one after the
// other, with two runs of a monitor that does nothing. Left out: the long
// ones (staticpod-backoff-ladder-24h, -etcd-unhealthy,
// -monitor-misses-readiness: hours of scenario), those whose monitor
// writes take time (-lock-race, -lock-held-by-installer: a process's
// writes take what they take), and those about the operator and the
// installer.
const processScale = 0.01

// exampleMonitor is the name under which this test binary is the example
// startup-monitor.
const exampleMonitor = "startupmonitor"

// processLanes are the runs of each lane: a built-in, and whether its
// monitor is the example (or a process that does nothing).
var processLanes = [][]processRun{
	{{"staticpod-hook-never-finishes", true}, {"staticpod-healthy-rollout", true}, {"staticpod-bootstrap", true}},
	{{"staticpod-bad-manifest", true}, {"staticpod-bad-config-observer", true}, {"staticpod-monitor-owes-step-two", true}},
	{{"staticpod-upgrade-without-link", true}, {"staticpod-fallback-two-back", true},
		{"staticpod-healthy-rollout", false}, {"staticpod-bad-manifest", false}},
}

type processRun struct {
	scenario string
	example  bool
}

// monitorRules are the rules that judge the startup-monitor.
var monitorRules = []string{"STATICPOD-001", "STATICPOD-002", "STATICPOD-003", "STATICPOD-004", "STATICPOD-005", "STATICPOD-012", "STATICPOD-013"}

// The example passes every run, judged, each monitor rule passed
// somewhere; a process that does nothing (it sleeps) never passes: a
// rule that judges the monitor fails, or the run proves nothing.
func TestProcessModeStartupMonitor(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	// The example runs in this test binary under its own name (TestMain),
	// which spares linking one more client-go binary.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), exampleMonitor)
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	// The placeholders the example takes in the first lane's command, the
	// OPCERT_ variables alone in the others'.
	examples := []string{"exec:" + bin + " --revision {revision} --timeout {timeout} --manifest {manifest}" +
		" --manifests-dir {manifestsDir} --resources-dir {resourcesDir} --lock-file {lockFile}" +
		" --termination-log {terminationLog} --health-url {healthUrl} --namespace {namespace} --pod {pod}",
		"exec:" + bin}
	// Lanes in goroutines, not parallel subtests: -parallel is GOMAXPROCS,
	// and a real-time lane waits on the clock, not on a core.
	var mu sync.Mutex
	var wg sync.WaitGroup
	judged := map[string]bool{}
	for i, lane := range processLanes {
		example := examples[min(i, 1)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, r := range lane {
				if !r.example {
					doesNothing(t, r.scenario)
					continue
				}
				for _, id := range certified(t, r.scenario, example) {
					mu.Lock()
					judged[id] = true
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for _, id := range monitorRules {
		if !judged[id] {
			t.Errorf("%s was never judged and passed on the example's runs", id)
		}
	}
}

// certified plays a built-in with the example and wants it passed and
// judged; it returns the monitor rules it passed.
func certified(t *testing.T, name, example string) []string {
	run := playProcess(t, name, example)
	if run.Error != "" || run.Stopped != "" || len(run.NotJudged) > 0 {
		t.Errorf("%s: error %q, stopped %q, not judged %q", name, run.Error, run.Stopped, run.NotJudged)
	}
	var passed []string
	for _, c := range run.Cases {
		switch {
		case c.Status == reports.Fail:
			t.Errorf("%s %s: %s", name, c.Rule, c.Message)
		case c.Rule == "EXPECT" && c.Status != reports.Pass:
			t.Errorf("%s EXPECT: %s %s", name, c.Status, c.Message)
		case c.Status == reports.Pass && slices.Contains(monitorRules, c.Rule):
			passed = append(passed, c.Rule)
		}
	}
	return passed
}

// doesNothing plays a built-in with a monitor that sleeps, and wants it
// not passed.
func doesNothing(t *testing.T, name string) {
	run := playProcess(t, name, "exec:/bin/sleep 3600")
	failed := slices.ContainsFunc(run.Cases, func(c reports.Case) bool {
		return c.Status == reports.Fail && slices.Contains(monitorRules, c.Rule)
	})
	if !failed && len(run.NotJudged) == 0 {
		t.Errorf("%s: a monitor that does nothing failed no rule and was judged: %+v", name, run.Cases)
	}
}

// playProcess plays a built-in with subject as every node's
// startup-monitor, in process mode at processScale.
func playProcess(t *testing.T, name, subject string) reports.Run {
	t.Helper()
	sc, err := scenarios.BuiltinNamed(name)
	if err != nil {
		t.Fatal(err)
	}
	m := staticpod.Mechanism(staticpod.DefaultConfig())
	cast, err := conformance.Subjects(m, map[string]string{"startup-monitor": subject})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	run, _ := conformance.Play(context.Background(), api.Client, m, sc, cast, conformance.Options{
		Prefix: prefix(), Dir: api.Dir(), Host: api, ProcessDir: t.TempDir(), TimeScale: processScale})
	t.Logf("%s with %s: %s of wall time, %s in all", name, subject, run.Wall, time.Since(start))
	return run
}
