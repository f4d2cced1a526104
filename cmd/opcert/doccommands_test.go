package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The user documents (README.md, docs/getting-started.md, docs/guides/)
// show commands in shell blocks; each of them is run by a machine, so that
// a reader who copies one gets what the page says. A command is run in one
// of three ways, and a command run in none of them fails
// TestDocumentedCommandsAreRun:
//
//   - here: TestDocumentedCommandsAreRun runs it itself, in document order,
//     with bash as a reader would, opcert on PATH being this test binary,
//     in a directory that looks like the checkout, and checks its exit
//     status;
//   - by a named test, which plays what the command does (a cluster, a
//     watch, a kubectl stream this machine cannot give the command itself);
//     the test must exist;
//   - by make: `make TARGET`, reached from .ci/run, and `go test ./PKG`,
//     which make test's `go test ./...` runs (the tests it names must
//     exist).

// userDocs are the documents whose shell blocks are held to this: the
// README and the pages a user copies commands from.
func userDocs(t *testing.T) []string {
	t.Helper()
	guides, err := filepath.Glob(filepath.Join(moduleRoot, "docs", "guides", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{filepath.Join(moduleRoot, "README.md"), filepath.Join(moduleRoot, "docs", "getting-started.md")}
	return append(docs, guides...)
}

const moduleRoot = "../.."

// runBy says how a documented command is run: here (with the exit status
// it must give), or by test ("PACKAGE TestName", the package relative to
// the module root).
type runBy struct {
	here bool
	code int
	test string
}

func here(code int) runBy      { return runBy{here: true, code: code} }
func byTest(test string) runBy { return runBy{test: test} }

// documented is every command of the user documents that is neither
// `make TARGET` nor `go test ./PKG`, exactly as a shell block shows it
// (continued lines joined, a trailing comment left out).
var documented = map[string]runBy{
	// Run here: no API server, or a virtual-time run of seconds, or the
	// process-mode example (about 30s).
	"opcert scenarios list":                         here(0),
	"opcert subjects":                               here(0),
	"opcert rules":                                  here(0),
	"opcert rules -o json":                          here(0),
	"opcert mechanisms":                             here(0),
	"opcert version":                                here(0),
	"opcert run --dry-run --mechanism stale":        here(0),
	"opcert run --scenario stale-hang --out report": here(0),
	"opcert perturb --scenario stale-healthy-answer --out perturbed":                             here(0),
	"opcert analyze report/timelines/01-stale-hang.jsonl --out again":                            here(0),
	"opcert run --scenario stale-hang --scenario stale-healthy-answer --shard 1/2 --out shard-1": here(0),
	"opcert run --scenario stale-hang --scenario stale-healthy-answer --shard 2/2 --out shard-2": here(0),
	"opcert merge shard-1 shard-2 --out merged":                                                  here(0),
	"opcert run --scenario stale-healthy-answer --subject operator=slow --out slow":              here(1),
	"opcert lint manifests fixtures/payloads/good":                                               here(0),
	"opcert lint manifests fixtures/payloads/ordering-trap":                                      here(1),
	"go build -o bin/staleoperator ./examples/staleoperator/cmd/staleoperator":                   here(0),
	"opcert run --scenario stale-restart-after-unknown --time-scale 0.01 --out report --subject operator=exec:'bin/staleoperator --name {name} --operand {operand} --resync 1s'": here(0),
	"opcert analyze report/timelines/01-stale-restart-after-unknown.jsonl --out again":                                                                                           here(0),
	// A command in the background (a trailing &) is waited for once the
	// others are done; the watch records 20s of a 36s run.
	"opcert run --scenario stale-healthy-answer --time-scale 0.01 --kubeconfig-out run.kubeconfig --out run --subject operator=exec:'bin/staleoperator --name {name} --operand {operand} --resync 1s' &": here(0),
	"until [ -e run.kubeconfig ]; do sleep 1; done":                                                            here(0),
	"opcert watch --kubeconfig run.kubeconfig --mechanism stale --time-scale 0.01 --for 20s --out stale-watch": here(0),

	// Cluster mode: opcert's own API server reached as a cluster, with a
	// stand-in kubelet running the examples' binaries (no kubectl or
	// cluster here); each test applies the files the guide applies.
	"kubectl apply -f config/rbac/opcert-cluster.yaml":    byTest("conformance/stale TestClusterModeCertifiesTheExampleOperator"),
	"kubectl apply -f examples/staleoperator/deploy.yaml": byTest("conformance/stale TestClusterModeCertifiesTheExampleOperator"),
	"opcert run --kubeconfig ci.kubeconfig --time-scale 0.01 --allow-disruption --scenario stale-healthy-answer --subject operator=deployment:example-operators/{name}-operator":                           byTest("conformance/stale TestClusterModeCertifiesTheExampleOperator"),
	"kubectl apply -f config/rbac/opcert-cluster.yaml -f config/rbac/opcert-cluster-components.yaml":                                                                                                       byTest("conformance/clusteroperator TestClusterModeCertifiesTheComponentOperator"),
	"kubectl apply -f examples/componentoperator/deploy.yaml":                                                                                                                                              byTest("conformance/clusteroperator TestClusterModeCertifiesTheComponentOperator"),
	"opcert run --kubeconfig ci.kubeconfig --time-scale 0.01 --allow-disruption --subject clusteroperator.operator=deployment:example-components/{name}-operator --scenario co-clean-install --out report": byTest("conformance/clusteroperator TestClusterModeCertifiesTheComponentOperator"),
	"kubectl apply -f config/rbac/opcert-cluster.yaml -f config/rbac/opcert-cluster-olm.yaml":                                                                                                              byTest("conformance/olm TestClusterModeCertifiesTheOLMOperator"),
	"kubectl apply -f examples/olmoperator/deploy.yaml":                                                                                                                                                    byTest("conformance/olm TestClusterModeCertifiesTheOLMOperator"),
	"opcert run --kubeconfig ci.kubeconfig --time-scale 0.05 --allow-disruption --subject olm.operator=deployment:example-olm/olmoperator --scenario olm-operator-migration --out report":                  byTest("conformance/olm TestClusterModeCertifiesTheOLMOperator"),
	"kubectl apply -f config/rbac/opcert-cluster.yaml -f config/rbac/opcert-cluster-stackable.yaml":                                                                                                        byTest("conformance/stackable TestClusterModeCertifiesTheStackableOperator"),
	"kubectl apply -f fixtures/sampleclusters.crd.yaml":                                                                                                                                                    byTest("conformance/stackable TestClusterModeCertifiesTheStackableOperator"),
	"kubectl apply -f examples/stackableoperator/deploy.yaml":                                                                                                                                              byTest("conformance/stackable TestClusterModeCertifiesTheStackableOperator"),
	"opcert run --kubeconfig ci.kubeconfig --time-scale 0.05 --allow-disruption --subject stackable.operator=deployment:example-stackable/stackableoperator --scenario stackable-steady --out report":      byTest("conformance/stackable TestClusterModeCertifiesTheStackableOperator"),

	// Nightly on kind: make e2e-kind (CI) runs the workflow's commands,
	// which the guide shows for the stale job, on kind clusters here.
	"CGO_ENABLED=0 go build -o dist/staleoperator ./examples/staleoperator/cmd/staleoperator":                                       byTest("cmd/opcert TestNightlyOnKind"),
	"docker build -f examples/kind-nightly/Dockerfile --build-arg OPERATOR=dist/staleoperator -t opcert-example-staleoperator:ci .": byTest("cmd/opcert TestNightlyOnKind"),
	"opcert kind up --name opcert --kubeconfig kind.kubeconfig --image opcert-example-staleoperator:ci":                             byTest("cmd/opcert TestNightlyOnKind"),
	"kubectl --kubeconfig kind.kubeconfig apply -f examples/staleoperator/deploy.yaml":                                              byTest("cmd/opcert TestNightlyOnKind"),
	"opcert kind down --name opcert --kubeconfig kind.kubeconfig":                                                                   byTest("cmd/opcert TestNightlyOnKind"),

	// The Indexed Job recipe on kind: make e2e-kind (CI) runs it.
	`image=$(docker load -i dist/opcert-image.tar | sed -n 's/^Loaded image: //p')`:                                                                                                                          byTest("cmd/opcert TestIndexedJobOnKind"),
	`opcert kind up --name opcert --kubeconfig kind.kubeconfig --image "$image"`:                                                                                                                             byTest("cmd/opcert TestIndexedJobOnKind"),
	"docker exec opcert-control-plane mkdir -p /var/lib/opcert-results":                                                                                                                                      byTest("cmd/opcert TestIndexedJobOnKind"),
	`sed "s|opcert:VERSION|$image|" examples/sharding/indexed-job.yaml | kubectl --kubeconfig kind.kubeconfig apply -f -`:                                                                                    byTest("cmd/opcert TestIndexedJobOnKind"),
	"kubectl --kubeconfig kind.kubeconfig -n opcert-shards wait --for=condition=Complete job/opcert-selftest --timeout 10m":                                                                                  byTest("cmd/opcert TestIndexedJobOnKind"),
	"docker cp opcert-control-plane:/var/lib/opcert-results results":                                                                                                                                         byTest("cmd/opcert TestIndexedJobOnKind"),
	"opcert merge results/shard-0 results/shard-1 --out opcert-selftest":                                                                                                                                     byTest("cmd/opcert TestIndexedJobOnKind"),
	"opcert run --kubeconfig kind.kubeconfig --allow-disruption --subject operator=deployment:example-operators/{name}-operator --time-scale 0.01 --scenario stale-healthy-answer --out opcert-report-stale": byTest("cmd/opcert TestNightlyOnKind"),

	// Watching and analyzing what only a cluster or kubectl gives.
	"opcert watch --kubeconfig ~/.kube/config --mechanism clusteroperator --for 2h --out co-watch": byTest("cmd/opcert TestWatchClusterOperator"),
	"kubectl get clusteroperators -w -o json --show-managed-fields > co.json":                      byTest("cmd/opcert TestAnalyzeClusterOperatorStream"),
	"opcert analyze co.json --mechanism clusteroperator --out co-report":                           byTest("cmd/opcert TestAnalyzeClusterOperatorStream"),
}

// docCommand is a command of a shell block and where it is.
type docCommand struct {
	text, at string
}

// shellCommands returns the commands of a Markdown file's sh, bash and
// shell blocks: a line continued by a backslash joined to the next, a
// trailing "   # comment" and a leading "$ " left out.
func shellCommands(t *testing.T, path string) []docCommand {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(moduleRoot, path)
	var out []docCommand
	in, pending, start := false, "", 0
	for i, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			in = slices.Contains([]string{"```sh", "```bash", "```shell"}, trimmed)
			continue
		}
		if !in || trimmed == "" && pending == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if pending == "" {
			start = i + 1
		}
		if c, _, ok := strings.Cut(trimmed, "   #"); ok {
			trimmed = strings.TrimSpace(c)
		}
		if cont, ok := strings.CutSuffix(trimmed, "\\"); ok {
			pending += strings.TrimSpace(cont) + " "
			continue
		}
		text := strings.TrimPrefix(pending+trimmed, "$ ")
		pending = ""
		out = append(out, docCommand{text, fmt.Sprintf("%s:%d", rel, start)})
	}
	return out
}

var (
	makeCommand   = regexp.MustCompile(`^make ([a-z-]+)$`)
	goTestCommand = regexp.MustCompile(`^go test (\./[a-z/]+)(?: -run '?([A-Za-z|]+)'?)?(?: -v)?$`)
)

// TestDocumentedCommandsAreRun holds every command of the user documents
// to a machine that runs it (the comment at the top of this file), and
// runs those it runs here.
func TestDocumentedCommandsAreRun(t *testing.T) {
	ci := ciTargets(t)
	used := map[string]bool{}
	var run []docCommand
	for _, doc := range userDocs(t) {
		for _, c := range shellCommands(t, doc) {
			if m := makeCommand.FindStringSubmatch(c.text); m != nil {
				if !ci[m[1]] {
					t.Errorf("%s: %q: make %s is not reached from .ci/run", c.at, c.text, m[1])
				}
				continue
			}
			if m := goTestCommand.FindStringSubmatch(c.text); m != nil {
				for _, name := range strings.Split(m[2], "|") {
					checkTest(t, c, strings.TrimPrefix(m[1], "./"), name)
				}
				continue
			}
			by, ok := documented[c.text]
			if !ok {
				t.Errorf("%s: %q is run by no test nor by CI: run it (add it to documented in %s) or leave it out of the shell block", c.at, c.text, "cmd/opcert/doccommands_test.go")
				continue
			}
			used[c.text] = true
			if by.here {
				if !slices.ContainsFunc(run, func(r docCommand) bool { return r.text == c.text }) {
					run = append(run, c)
				}
				continue
			}
			pkg, name, _ := strings.Cut(by.test, " ")
			checkTest(t, c, pkg, name)
		}
	}
	for text := range documented {
		if !used[text] {
			t.Errorf("documented holds %q, which no user document shows any more: take it out", text)
		}
	}
	if testing.Short() {
		t.Log("-short: the commands run here need the API server; not run")
		return
	}
	dir, path := docWorkdir(t), opcertOnPath(t)
	var background []*exec.Cmd
	for _, c := range run {
		want := documented[c.text].code
		if text, ok := strings.CutSuffix(c.text, " &"); ok {
			cmd := docShell(dir, path, text)
			if err := cmd.Start(); err != nil {
				t.Fatalf("%s: %q: %v", c.at, c.text, err)
			}
			background = append(background, cmd)
			continue
		}
		if code, output := runDocumented(t, docShell(dir, path, c.text)); code != want {
			t.Errorf("%s: %q exited %d, want %d:\n%s", c.at, c.text, code, want, output)
		}
	}
	for _, cmd := range background {
		if code, output := runDocumented(t, cmd); code != 0 {
			t.Errorf("%q exited %d, want 0:\n%s", cmd.Args[len(cmd.Args)-1], code, output)
		}
	}
}

// checkTest fails unless package pkg (relative to the module root) has a
// test function name, or, with no name, tests at all.
func checkTest(t *testing.T, c docCommand, pkg, name string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(moduleRoot, pkg, "*_test.go"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if name == "" || strings.Contains(string(data), "\nfunc "+name+"(t *testing.T)") {
			return
		}
	}
	t.Errorf("%s: %q is said to be run by %s %s, which does not exist", c.at, c.text, pkg, name)
}

// ciTargets are the make targets .ci/run runs, with every target they
// depend on.
func ciTargets(t *testing.T) map[string]bool {
	t.Helper()
	script, err := os.ReadFile(filepath.Join(moduleRoot, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	makefile, err := os.ReadFile(filepath.Join(moduleRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	deps := map[string][]string{}
	for _, m := range regexp.MustCompile(`(?m)^([a-z-]+):(.*)$`).FindAllStringSubmatch(string(makefile), -1) {
		deps[m[1]] = strings.Fields(m[2])
	}
	reached := map[string]bool{}
	var reach func(string)
	reach = func(target string) {
		if _, ok := deps[target]; !ok || reached[target] {
			return
		}
		reached[target] = true
		for _, d := range deps[target] {
			reach(d)
		}
	}
	for _, m := range regexp.MustCompile(`(?m)^make ([a-z-]+)`).FindAllStringSubmatch(string(script), -1) {
		reach(m[1])
	}
	if len(reached) == 0 {
		t.Fatal(".ci/run runs no make target")
	}
	return reached
}

// docWorkdir is a directory that looks like the checkout (its files and
// directories linked in) where the commands' outputs can land without
// touching the checkout.
func docWorkdir(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "bin" || strings.HasPrefix(name, "opcert-") {
			continue // not the project's: a build's or a run's output
		}
		if err := os.Symlink(filepath.Join(root, name), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// opcertOnPath is a PATH whose first directory holds opcert, this test
// binary under that name (TestMain runs opcert's main when
// OPCERT_TEST_MAIN=1).
func opcertOnPath(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(self, filepath.Join(bin, "opcert")); err != nil {
		t.Fatal(err)
	}
	return bin + string(os.PathListSeparator) + os.Getenv("PATH")
}

// docShell is a command as a reader runs it: bash, in dir, with opcert on
// PATH.
func docShell(dir, path, text string) *exec.Cmd {
	cmd := exec.Command("bash", "-c", text)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+path, "OPCERT_TEST_MAIN=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a timeout ends all it started
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	return cmd
}

// runDocumented runs (or waits for) a command of docShell, at most 3
// minutes, and returns its exit status and output.
func runDocumented(t *testing.T, cmd *exec.Cmd) (int, string) {
	t.Helper()
	start := time.Now()
	if cmd.Process == nil {
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(3 * time.Minute):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
	}
	text := cmd.Args[len(cmd.Args)-1]
	t.Logf("%s: %s", time.Since(start).Round(time.Millisecond), text)
	output := cmd.Stdout.(*strings.Builder).String()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), output
	case err != nil:
		t.Fatalf("%q: %v", text, err)
	}
	return 0, output
}

// TestReadmeStaysShort keeps README.md a front page (issue 22: about 250
// lines at most): what grows goes to docs/, which it links.
func TestReadmeStaysShort(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n > 250 {
		t.Errorf("README.md has %d lines, at most 250: move the detail to a page of docs/ and link it", n)
	}
}
