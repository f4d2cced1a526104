package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/opcert/opcert/apiserver"
)

// workflowStep is what the tests read of a step of a GitHub workflow or of
// a composite action.
type workflowStep struct {
	Name  string  `json:"name"`
	ID    string  `json:"id"`
	Uses  string  `json:"uses"`
	If    string  `json:"if"`
	Shell string  `json:"shell"`
	Run   string  `json:"run"`
	With  scalars `json:"with"`
}

type action struct {
	Inputs map[string]struct {
		Required bool   `json:"required"`
		Default  string `json:"default"`
	} `json:"inputs"`
	Runs struct {
		Using string         `json:"using"`
		Steps []workflowStep `json:"steps"`
	} `json:"runs"`
}

func readYAML(t *testing.T, path string, into any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// stepRunning finds the one step whose script contains text.
func stepRunning(t *testing.T, steps []workflowStep, text string) workflowStep {
	t.Helper()
	var found []workflowStep
	for _, s := range steps {
		if strings.Contains(s.Run, text) {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d steps run %q, want 1", len(found), text)
	}
	return found[0]
}

// checkCommandLine fails when an opcert command line names a command that
// does not exist, a flag the command does not have, or arguments it refuses.
func checkCommandLine(t *testing.T, line string) {
	t.Helper()
	checkCommandWords(t, strings.Fields(line))
}

// checkCommandWords is checkCommandLine of a command's words, as a shell
// gives them to opcert.
func checkCommandWords(t *testing.T, words []string) {
	t.Helper()
	line := strings.Join(words, " ")
	cmd, rest, err := newRoot().Find(words[1:])
	if err != nil {
		t.Errorf("%q: %v", line, err)
		return
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Errorf("%q: opcert %s: %v", line, cmd.Name(), err)
		return
	}
	if cmd.Args != nil {
		if err := cmd.Args(cmd, cmd.Flags().Args()); err != nil {
			t.Errorf("%q: opcert %s: %v", line, cmd.Name(), err)
		}
	}
}

// opcertLines are the lines of a script that run opcert.
func opcertLines(script string) []string {
	var lines []string
	for _, l := range strings.Split(script, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "opcert ") {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestActionAndNightlyAgree keeps the composite action (action.yml) and the
// nightly example that uses it (examples/kind-nightly/nightly.yaml) in step
// with each other and with opcert: the action installs this module's
// command, reads fields opcert version prints, caches the directory opcert
// looks in for the API server binaries and builds them with the script that
// exists; the nightly pins the action at a release, passes only inputs the
// action has (every required one), and every opcert command line in it,
// including the action's args, parses with opcert's own commands.
func TestActionAndNightlyAgree(t *testing.T) {
	var a action
	readYAML(t, "../../action.yml", &a)
	if a.Runs.Using != "composite" {
		t.Fatalf("action.yml runs using %q, want composite", a.Runs.Using)
	}
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	module := strings.TrimPrefix(strings.SplitN(string(gomod), "\n", 2)[0], "module ")

	install := stepRunning(t, a.Runs.Steps, "go install ")
	if want := `go install "` + module + `/cmd/opcert@$OPCERT_VERSION"`; !strings.Contains(install.Run, want) {
		t.Errorf("the action's install step does not run %s:\n%s", want, install.Run)
	}
	version, err := listCmd(t, "version", "-o", "yaml")
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := yaml.Unmarshal([]byte(version), &fields); err != nil {
		t.Fatal(err)
	}
	read := regexp.MustCompile(`\$\(field (\w+)\)`).FindAllStringSubmatch(install.Run, -1)
	if len(read) == 0 {
		t.Errorf("the action's install step reads no field of opcert version:\n%s", install.Run)
	}
	for _, m := range read {
		if _, ok := fields[m[1]]; !ok {
			t.Errorf("the action reads %q from opcert version -o yaml, which has %v", m[1], fields)
		}
	}
	t.Setenv("OPCERT_CACHE_DIR", "")
	t.Setenv("XDG_CACHE_HOME", "/cache")
	if want := `echo "assets-dir=${XDG_CACHE_HOME:-$HOME/.cache}/opcert/envtest"`; !strings.Contains(install.Run, want) ||
		filepath.Dir(apiserver.CacheDir()) != "/cache/opcert/envtest" {
		t.Errorf("the action caches %s/opcert/envtest, opcert looks in %s", "$XDG_CACHE_HOME", apiserver.CacheDir())
	}
	build := stepRunning(t, a.Runs.Steps, "/hack/envtest/build.sh")
	if _, err := os.Stat("../../hack/envtest/build.sh"); err != nil || !strings.Contains(build.Run, `"$GITHUB_ACTION_PATH/hack/envtest/build.sh"`) {
		t.Errorf("the action's build step %q does not run the repository's hack/envtest/build.sh (%v)", build.Run, err)
	}
	if run := stepRunning(t, a.Runs.Steps, "opcert run "); !strings.Contains(run.Run, `--out \"\$OUT\"`) {
		t.Errorf("the action's run step does not write the report to the out input: %s", run.Run)
	}

	jobs := nightlyJobs(t)
	var uses []workflowStep
	for _, job := range jobs {
		n := 0
		for _, s := range job.steps {
			if usesAction(s) {
				uses = append(uses, s)
				n++
			}
			if strings.Contains(s.Run, "./cmd/opcert") || strings.Contains(s.Run, "go install") {
				t.Errorf("the nightly builds opcert in step %q; the action installs the pinned one", s.Name)
			}
			for _, l := range opcertLines(s.Run) {
				checkCommandLine(t, l)
			}
		}
		if n != 1 {
			t.Fatalf("the nightly's job %v uses opcert's action in %d steps, want 1", job.entry, n)
		}
	}
	for _, step := range uses {
		checkActionStep(t, a, step)
	}
}

// checkActionStep checks a nightly step that uses opcert's action: pinned
// at a release, given only inputs the action has (every required one),
// its args and its before's opcert command lines parse.
func checkActionStep(t *testing.T, a action, step workflowStep) {
	t.Helper()
	if !regexp.MustCompile(`^opcert/opcert@v\d+\.\d+\.\d+$`).MatchString(step.Uses) {
		t.Errorf("the nightly uses %s, want the action pinned at a release tag (opcert/opcert@vX.Y.Z)", step.Uses)
	}
	for name := range step.With {
		if _, ok := a.Inputs[name]; !ok {
			t.Errorf("the nightly gives input %q, which the action does not have", name)
		}
	}
	for name, in := range a.Inputs {
		if _, given := step.With[name]; in.Required && !given {
			t.Errorf("the nightly does not give the action's required input %q", name)
		}
	}
	args := "opcert run " + step.With["args"]
	if slices.Contains(strings.Fields(args), "--out") {
		t.Errorf("the nightly's args set --out, which the action sets from its out input: %s", args)
	}
	checkCommandLine(t, args)
	lines := opcertLines(step.With["before"])
	if len(lines) == 0 {
		t.Errorf("the nightly's before runs no opcert command (opcert kind up): %q", step.With["before"])
	}
	for _, l := range lines {
		checkCommandLine(t, l)
	}
}
