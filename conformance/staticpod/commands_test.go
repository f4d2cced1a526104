package staticpod_test

import (
	"context"
	"os/exec"
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

// Process mode for seed 003's installer and pruner: the example installer
// (examples/staticpodinstaller) and pruner (examples/staticpodpruner),
// standard library only, nothing of opcert, play every node's installer
// or pruner as a command run once per piece of work (commands.go). Their
// changes to the node's files must reach the timeline as the reference's
// do: every run judged and passed, the role's rules judged and passed; a
// command that does nothing (/bin/true, exit 0) never passes.
//
// The built-ins played are those whose story involves the role and that
// play in seconds: an installer that waits for the monitor's lock
// (-lock-race), one killed and restarted, which installs the retry asked
// meanwhile (-installer-down-at-retry), a pruner that keeps last-known-good
// (-ready-at-the-deadline). Three lanes side by side, about 36s of wall
// time, at commandScale.
//
// commandScale is twice processScale: the rules' real-time tolerance (1s)
// is not scaled, the reaction bound is (1.2s here), and the chain from an
// ask to the kubelet's look (the runner, the command's start, the node's
// poller) is real time; on two cores shared with other work, 0.6s of bound
// left too little of it.
const commandScale = 0.02

// commandRun is a built-in, the role a command plays in it, and whether
// the command is the example (or /bin/true).
type commandRun struct {
	scenario, role string
	example        bool
}

var commandLanes = [][]commandRun{
	{{"staticpod-installer-down-at-retry", staticpod.RoleInstaller, true}},
	{{"staticpod-lock-race", staticpod.RoleInstaller, true}, {"staticpod-healthy-rollout", staticpod.RoleInstaller, false}},
	{{"staticpod-ready-at-the-deadline", staticpod.RolePruner, true}, {"staticpod-ready-at-the-deadline", staticpod.RolePruner, false}},
}

// commandRules are the rules that judge each role.
var commandRules = map[string][]string{
	staticpod.RoleInstaller: {"STATICPOD-010", "STATICPOD-014"},
	staticpod.RolePruner:    {"STATICPOD-009"},
}

func TestProcessModeInstallerAndPruner(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	// Built on their own, not this test binary under their names: a
	// command runs once per ask, and a binary of the standard library
	// starts in a millisecond where this one's initialisation takes a
	// few hundred on busy cores.
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", dir+"/",
		"github.com/opcert/opcert/examples/staticpodinstaller/cmd/staticpodinstaller",
		"github.com/opcert/opcert/examples/staticpodpruner/cmd/staticpodpruner")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the examples: %v\n%s", err, out)
	}
	// The installer takes its placeholders as flags, the pruner its
	// OPCERT_ variables alone.
	examples := map[string]string{
		staticpod.RoleInstaller: "exec:" + filepath.Join(dir, "staticpodinstaller") + " --revision {revision} --source-dir {sourceDir}" +
			" --resources-dir {resourcesDir} --manifests-dir {manifestsDir} --lock-file {lockFile}",
		staticpod.RolePruner: "exec:" + filepath.Join(dir, "staticpodpruner"),
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	judged := map[string]bool{}
	for _, lane := range commandLanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, r := range lane {
				if !r.example {
					commandDoesNothing(t, r)
					continue
				}
				for _, id := range commandCertified(t, r, examples[r.role]) {
					mu.Lock()
					judged[r.role+" "+id] = true
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for role, ids := range commandRules {
		for _, id := range ids {
			if !judged[role+" "+id] {
				t.Errorf("%s was never judged and passed on the example %s's runs", id, role)
			}
		}
	}
}

// commandCertified plays a built-in with the example and wants it passed
// and judged; it returns the role's rules it passed.
func commandCertified(t *testing.T, r commandRun, example string) []string {
	run := playRole(t, r.scenario, r.role, example)
	if run.Error != "" || run.Stopped != "" || len(run.NotJudged) > 0 {
		t.Errorf("%s (%s): error %q, stopped %q, not judged %q", r.scenario, r.role, run.Error, run.Stopped, run.NotJudged)
	}
	var passed []string
	for _, c := range run.Cases {
		switch {
		case c.Status == reports.Fail:
			t.Errorf("%s (%s) %s: %s", r.scenario, r.role, c.Rule, c.Message)
		case c.Rule == "EXPECT" && c.Status != reports.Pass:
			t.Errorf("%s (%s) EXPECT: %s %s", r.scenario, r.role, c.Status, c.Message)
		case c.Status == reports.Pass && slices.Contains(commandRules[r.role], c.Rule):
			passed = append(passed, c.Rule)
		}
	}
	return passed
}

// commandDoesNothing plays a built-in with /bin/true as the role's
// command, and wants it not passed: a rule of the role failed, or the run
// proves nothing.
func commandDoesNothing(t *testing.T, r commandRun) {
	run := playRole(t, r.scenario, r.role, "exec:/bin/true")
	failed := slices.ContainsFunc(run.Cases, func(c reports.Case) bool {
		return c.Status == reports.Fail && slices.Contains(commandRules[r.role], c.Rule)
	})
	if !failed && len(run.NotJudged) == 0 {
		t.Errorf("%s: a %s that does nothing failed no rule and was judged: %+v", r.scenario, r.role, run.Cases)
	}
	t.Logf("%s: /bin/true as the %s: a rule of the role failed %t, not judged %q", r.scenario, r.role, failed, run.NotJudged)
}

// playRole plays a built-in with subject as every node's role, in process
// mode at commandScale.
func playRole(t *testing.T, name, role, subject string) reports.Run {
	t.Helper()
	sc, err := scenarios.BuiltinNamed(name)
	if err != nil {
		t.Fatal(err)
	}
	m := staticpod.Mechanism(staticpod.DefaultConfig())
	cast, err := conformance.Subjects(m, map[string]string{role: subject})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	run, _ := conformance.Play(context.Background(), api.Client, m, sc, cast, conformance.Options{
		Prefix: prefix(), Dir: api.Dir(), Host: api, ProcessDir: t.TempDir(), TimeScale: commandScale})
	t.Logf("%s with %s %s: %s of wall time, %s in all", name, role, subject, run.Wall, time.Since(start))
	return run
}
