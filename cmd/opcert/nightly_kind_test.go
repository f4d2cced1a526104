package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/reports"
)

// TestNightlyOnKind runs the nightly workflow's own commands
// (examples/kind-nightly/nightly.yaml) on real kind clusters: every job of
// its matrix in turn, each step's script as GitHub runs it (bash -e with
// pipefail, the matrix entry's values in place), opcert's action as
// action.yml runs its before and opcert run. Each certification must
// pass; then a careless variant of the job's operator, deployed in its
// place, must fail its rule; and no node may have tried to pull an image.
// The always() steps (the cluster's deletion) run whatever happened.
//
// make e2e-kind runs it (hack/kind/e2e.sh: a Docker engine, the node
// image of hack/kind/build.sh in OPCERT_KIND_NODE_IMAGE and
// OPCERT_KIND_CONFIG, opcert and kubectl on PATH); elsewhere it is
// skipped.
func TestNightlyOnKind(t *testing.T) {
	if os.Getenv("OPCERT_KIND_E2E") == "" {
		t.Skip("make e2e-kind runs it: it needs a container engine and opcert's kind node image (hack/kind)")
	}
	for _, tool := range []string{"opcert", "kubectl", "docker"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not on PATH: make e2e-kind puts it there", tool)
		}
	}
	var a action
	readYAML(t, "../../action.yml", &a)
	jobs := nightlyJobs(t)
	slices.SortFunc(jobs, func(x, y jobRun) int { return strings.Compare(x.entry["mechanism"], y.entry["mechanism"]) })
	for _, job := range jobs {
		t.Run(job.entry["mechanism"], func(t *testing.T) { runNightlyJob(t, a, job) })
	}
}

// repoRoot is where the workflow's steps run: a checkout of the repository.
const repoRoot = "../.."

// runNightlyJob runs one job's steps, then its careless variant, then its
// always() steps.
func runNightlyJob(t *testing.T, a action, job jobRun) {
	var always []workflowStep
	for _, s := range job.steps {
		if strings.Contains(s.If, "always()") {
			always = append(always, s)
		}
	}
	defer func() {
		for _, s := range always {
			if _, err := runScript(t, s.Name, s.Run, nil); err != nil {
				t.Errorf("step %q: %v", s.Name, err)
			}
		}
		os.Remove(filepath.Join(repoRoot, "kind.kubeconfig")) // the reports stay, for a look after a failure
	}()
	for _, s := range job.steps {
		switch {
		case strings.Contains(s.If, "always()"):
			continue // run at the end, whatever happened (above)
		case usesAction(s):
			certifyAsTheActionDoes(t, a, s)
		case s.Uses != "":
			t.Logf("step %s: GitHub's own (%s), not run here", orName(s), s.Uses)
		default:
			if _, err := runScript(t, orName(s), s.Run, nil); err != nil {
				t.Fatalf("step %q: %v", orName(s), err)
			}
		}
	}
	if t.Failed() {
		return
	}
	c, ok := carelessVariants[job.entry["mechanism"]]
	if !ok {
		t.Fatalf("no careless variant for mechanism %q: add one to carelessVariants", job.entry["mechanism"])
	}
	c.check(t, job)
	noPulls(t)
}

// certifyAsTheActionDoes runs the action's steps that matter on this
// machine, with the step's inputs (and the action's defaults): before,
// then opcert run, which must pass.
func certifyAsTheActionDoes(t *testing.T, a action, s workflowStep) {
	t.Helper()
	env := map[string]string{}
	for name, in := range a.Inputs {
		v, given := s.With[name]
		if !given {
			v = in.Default
		}
		env[strings.ToUpper(name)] = v
	}
	for _, as := range a.Runs.Steps {
		if as.Name != "Before the run" && as.Name != "Run opcert" {
			continue // installing Go and opcert, caching, uploading: GitHub's
		}
		if as.Name == "Before the run" && env["BEFORE"] == "" {
			continue
		}
		if _, err := runScript(t, as.Name, as.Run, env); err != nil {
			t.Fatalf("action step %q: %v", as.Name, err)
		}
	}
	rep := readReport(t, filepath.Join(repoRoot, env["OUT"]))
	if v := rep.Verdict(); v != "PASS" || len(rep.Runs) == 0 {
		t.Errorf("%s: %s in %d runs, want PASS", s.With["args"], v, len(rep.Runs))
	}
}

// careless is a careless variant of a job's operator: the args added to
// its Deployments' container, and a scenario in which the rule must fail.
type careless struct {
	deployments []string
	args        []string
	scenario    string
	rule        string
}

// carelessVariants are the example operators' careless variants, by
// mechanism (each example's doc says what it gets wrong). The careless
// stale operator answers a challenge only at its resync, every 60s of
// real time, while the scenario marks an unanswered challenge Unknown 6s
// after it (20 minutes at 0.01): STALE-008.
var carelessVariants = map[string]careless{
	"stale": {[]string{"etcd-operator", "dns-operator", "auth-operator"}, []string{"--careless"},
		"stale-detector-returns", "STALE-008"},
	"clusteroperator": {[]string{"etcd-operator", "network-operator"}, []string{"--careless"}, "co-operand-stuck", "CO-002"},
	"stackable":       {[]string{"stackableoperator"}, []string{"--ignore-pause"}, "stackable-paused", "STACKABLE-005"},
	"olm":             {[]string{"olmoperator"}, []string{"--lies"}, "olm-operator-migration", "OLM-011"},
}

// check deploys the variant in place of the operator and plays the
// scenario with the job's own subject and time scale: the rule must fail.
func (c careless) check(t *testing.T, job jobRun) {
	t.Helper()
	ns := job.entry["namespace"]
	kubectl := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("kubectl", append([]string{"--kubeconfig", filepath.Join(repoRoot, "kind.kubeconfig"), "-n", ns}, args...)...).Output()
		if err != nil {
			t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	for _, d := range c.deployments {
		var args []string
		if have := kubectl("get", "deployment", d, "-o", "jsonpath={.spec.template.spec.containers[0].args}"); have != "" {
			if err := json.Unmarshal([]byte(have), &args); err != nil {
				t.Fatalf("%s's args %q: %v", d, have, err)
			}
		}
		patch, err := json.Marshal([]map[string]any{{"op": "add", "path": "/spec/template/spec/containers/0/args", "value": append(args, c.args...)}})
		if err != nil {
			t.Fatal(err)
		}
		kubectl("patch", "deployment", d, "--type", "json", "-p", string(patch))
	}
	if _, err := runCommand(t, "kubectl", "--kubeconfig", "kind.kubeconfig", "-n", ns, "rollout", "status", "deployment", "--timeout", "3m"); err != nil {
		t.Fatal(err)
	}
	// A rollout is complete when the new pods are available, while the old
	// ones may still run out their grace period, answering as the faithful
	// operator does: the variant plays alone once they are gone.
	for deadline := time.Now().Add(2 * time.Minute); ; {
		left := strings.Fields(kubectl("get", "pods", "-o", "jsonpath={range .items[?(@.metadata.deletionTimestamp)]}{.metadata.name} {end}"))
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pods %v still terminating after 2 minutes", left)
		}
		time.Sleep(time.Second)
	}
	out := t.TempDir()
	args := []string{"run", "--kubeconfig", "kind.kubeconfig", "--allow-disruption", "--scenario", c.scenario, "--out", out}
	fields := strings.Fields(job.entry["args"])
	for i, f := range fields {
		if (f == "--subject" || f == "--time-scale") && i+1 < len(fields) {
			args = append(args, f, fields[i+1])
		}
	}
	code, err := runCommand(t, "opcert", args...)
	if code != exitFail {
		t.Fatalf("the careless variant (%s) exited %d (%v), want %d: a rule failed", strings.Join(c.args, " "), code, err, exitFail)
	}
	for _, r := range readReport(t, out).Runs {
		if !slices.ContainsFunc(r.Cases, func(k reports.Case) bool { return k.Rule == c.rule && k.Status == reports.Fail }) {
			t.Errorf("the careless variant (%s) in %s: %s did not fail", strings.Join(c.args, " "), r.Scenario, c.rule)
		}
	}
}

// noPulls fails if a node's containerd was ever asked to pull an image:
// every image the nodes run was built here and loaded.
func noPulls(t *testing.T) {
	t.Helper()
	out, err := exec.Command("docker", "ps", "--filter", "label=io.x-k8s.kind.cluster=opcert", "--format", "{{.Names}}").Output()
	if err != nil {
		t.Fatalf("listing the nodes: %v", err)
	}
	for _, node := range strings.Fields(string(out)) {
		log, err := exec.Command("docker", "exec", node, "journalctl", "-u", "containerd", "--no-pager").Output()
		if err != nil {
			t.Fatalf("%s: containerd's log: %v", node, err)
		}
		for _, l := range strings.Split(string(log), "\n") {
			if strings.Contains(l, "PullImage") {
				t.Errorf("%s: containerd was asked to pull: %s", node, l)
			}
		}
	}
}

// runScript runs a step's script in the checkout as GitHub runs a bash
// step (bash -e, pipefail), with env added; it logs how long it took.
func runScript(t *testing.T, name, script string, env map[string]string) (int, error) {
	t.Helper()
	return runScriptIn(t, repoRoot, name, script, env)
}

// runScriptIn is runScript in dir, a job's workspace.
func runScriptIn(t *testing.T, dir, name, script string, env map[string]string) (int, error) {
	t.Helper()
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Dir = dir
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if cmd.Env != nil {
		cmd.Env = append(os.Environ(), cmd.Env...)
	}
	return run(t, name, cmd)
}

func runCommand(t *testing.T, name string, args ...string) (int, error) {
	t.Helper()
	return run(t, name+" "+strings.Join(args, " "), exec.Command(name, args...))
}

// run runs cmd (in the checkout unless its Dir says otherwise), bounded,
// and logs its output and time.
func run(t *testing.T, what string, cmd *exec.Cmd) (int, error) {
	t.Helper()
	if cmd.Dir == "" {
		cmd.Dir = repoRoot
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	err := cmd.Start()
	if err == nil {
		timer := time.AfterFunc(15*time.Minute, func() { _ = cmd.Process.Kill() })
		err = cmd.Wait()
		timer.Stop()
	}
	t.Logf("%s: %s\n%s", what, time.Since(start).Round(100*time.Millisecond), out.String())
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), err
	}
	return 0, err
}

func orName(s workflowStep) string {
	if s.Name != "" {
		return s.Name
	}
	return s.Uses
}
