package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/opcert/opcert/shard"
)

// The sharding recipe for GitHub Actions (examples/sharding/github-actions.yaml):
// a matrix of shard jobs, each uploading its report directory as an
// artifact, and a merge job. TestShardingRecipeAgrees holds its parts to
// each other and to opcert's action; TestShardingRecipeRuns runs it here.

const shardingRecipe = "../../examples/sharding/github-actions.yaml"

// recipeScope is what TestShardingRecipeRuns puts in the recipe's ARGS,
// the work's scope, which a team edits there too: the stale mechanism's
// built-ins estimated at 300 API calls or fewer, 261 runs that a shard of
// four plays in about 3 seconds after its API server's start. The
// recipe's own scope, every mechanism, is make selftest's (about 17
// minutes here).
const recipeScope = "--mechanism stale --max-calls 300"

// TestShardingRecipeAgrees checks the recipe without running it: the
// shards' --shard INDEX/COUNT, one job per INDEX from 1 to COUNT; each
// shard's --out uploaded, with hidden files, whatever the shard's verdict,
// under a name of its own that the merge's download pattern matches; the
// merge given exactly the downloaded directories, run whatever the shards
// did, its report uploaded whatever its verdict; opcert and the API
// server binaries installed and cached as opcert's action does; and every
// opcert command line, the comments' too, parses with opcert's commands.
// The command lines are the words bash gives opcert (ARGS eval'ed, globs
// expanded), taken by a shell function in opcert's place.
func TestShardingRecipeAgrees(t *testing.T) {
	w, runs := readWorkflow(t, shardingRecipe)
	shards, merges := runsOf(runs, "shards"), runsOf(runs, "merge")
	if len(shards) == 0 || len(merges) != 1 {
		t.Fatalf("%d shard jobs and %d merge jobs, want a matrix of shards and one merge", len(shards), len(merges))
	}
	if ff := w.Jobs["shards"].Strategy.FailFast; ff == nil || *ff {
		t.Error("the shards' matrix does not say fail-fast: false: a failing shard would cancel the others, reported only as missing")
	}
	if m := w.Jobs["merge"]; !slices.Contains(m.Needs, "shards") || !strings.Contains(m.If, "always()") {
		t.Errorf("the merge job needs %v if %q, want needs shards if always(): it must report failed and cancelled shards too", m.Needs, m.If)
	}

	var indexes []int
	count := 0
	uploaded := map[string]bool{}
	for _, r := range shards {
		words := oneInvocation(t, t.TempDir(), stepRunning(t, r.steps, "--shard"), w.env("shards"))
		spec, err := shard.Parse(flagValue(words, "--shard"))
		if err != nil {
			t.Fatalf("shard job %v: %v", r.entry, err)
		}
		if count != 0 && spec.Count != count {
			t.Errorf("shard job %v plays %s, another job counts %d shards", r.entry, spec, count)
		}
		count = spec.Count
		indexes = append(indexes, spec.Index)
		up := uploadOf(t, r.steps, flagValue(words, "--out"))
		if uploaded[up.With["name"]] {
			t.Errorf("two shard jobs upload artifact %q: an artifact's name is uploaded once per workflow run", up.With["name"])
		}
		uploaded[up.With["name"]] = true
	}
	slices.Sort(indexes)
	want := make([]int, count)
	for i := range want {
		want[i] = i + 1
	}
	if !slices.Equal(indexes, want) {
		t.Errorf("the matrix's jobs play shards %v of %d, want each of 1 to %d once: the matrix's list and COUNT in --shard INDEX/COUNT must agree", indexes, count, count)
	}

	m := merges[0]
	down := stepUsing(t, m.steps, "actions/download-artifact@")
	if down.With["name"] != "" || down.With["merge-multiple"] == "true" {
		t.Errorf("the merge downloads with name %q, merge-multiple %q: want a pattern and one directory per shard", down.With["name"], down.With["merge-multiple"])
	}
	workspace := t.TempDir()
	var dirs []string
	for name := range uploaded {
		if ok, err := path.Match(down.With["pattern"], name); !ok || err != nil {
			t.Errorf("the merge's download pattern %q does not match artifact %q (%v)", down.With["pattern"], name, err)
			continue
		}
		dir := path.Join(down.With["path"], name)
		dirs = append(dirs, dir)
		if err := os.MkdirAll(filepath.Join(workspace, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	words := oneInvocation(t, workspace, stepRunning(t, m.steps, "opcert merge"), w.env("merge"))
	slices.Sort(dirs)
	if got := slices.DeleteFunc(slices.Clone(words[2:]), func(w string) bool { return w == "--out" || w == flagValue(words, "--out") }); words[1] != "merge" || !slices.Equal(got, dirs) {
		t.Errorf("the merge runs %q, want opcert merge of the downloaded shards %v", words, dirs)
	}
	uploadOf(t, m.steps, flagValue(words, "--out"))

	checkRecipeInstalls(t, shards[0].steps, m.steps)
	checkCommentedCommands(t)
}

// TestShardingRecipeRuns runs the recipe here: every job of the shards'
// matrix (side by side, as many at once as go test runs parallel tests,
// GOMAXPROCS), each uploading its shard as an artifact, then the merge
// job, which downloads them: the merged self-test must pass. Then the
// merge job again with one shard's artifact left out, as when its job
// was cancelled: the merge must exit 3 and its report, uploaded all the
// same, say INCOMPLETE. The runner (workflow_run_test.go) copies the
// artifacts as GitHub stores them; the recipe's ARGS is recipeScope.
func TestShardingRecipeRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the shards start API servers")
	}
	w, runs := readWorkflow(t, shardingRecipe)
	if _, ok := w.Env["ARGS"]; !ok {
		t.Fatal("the recipe's env has no ARGS, the work's scope: the test narrows the work there")
	}
	r := newRunner(t, w, map[string]string{"ARGS": recipeScope})
	shards, merge := runsOf(runs, "shards"), runsOf(runs, "merge")
	if len(shards) < 2 || len(merge) != 1 {
		t.Fatalf("%d shard jobs and %d merge jobs, want two shards or more and one merge", len(shards), len(merge))
	}
	t.Run("shards", func(t *testing.T) {
		for _, job := range shards {
			t.Run(job.entry["shard"], func(t *testing.T) {
				t.Parallel()
				if res := r.runJob(t, job); res.failed {
					t.Errorf("shard job %v failed: %v", job.entry, res.exit)
				}
			})
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	left := shards[len(shards)/2]
	name := stepUsing(t, left.steps, "actions/upload-artifact@").With["name"]
	incomplete := r.without(t, name)
	merged := stepUsing(t, merge[0].steps, "actions/upload-artifact@").With["name"]
	mergeStep := orName(stepRunning(t, merge[0].steps, "opcert merge"))

	t.Run("merge", func(t *testing.T) {
		res := r.runJob(t, merge[0])
		if res.failed {
			t.Errorf("the merge job failed: %v", res.exit)
		}
		rep := readSelftestReport(t, filepath.Join(r.artifacts, merged))
		if !rep.Passed || len(rep.Missing) > 0 || rep.Runs == 0 {
			t.Errorf("the merged self-test: passed %v, %d runs, missing %v; want passed, every shard", rep.Passed, rep.Runs, rep.Missing)
		}
		if !strings.Contains(res.summary, "opcert selftest: PASS") {
			t.Errorf("the job summary does not say PASS:\n%s", res.summary)
		}
	})
	t.Run("merge without shard "+left.entry["shard"], func(t *testing.T) {
		res := incomplete.runJob(t, merge[0])
		if code := res.exit[mergeStep]; code != exitEnv || !res.failed {
			t.Errorf("the merge without %s exited %d (job failed: %v), want %d and a failed job: a missing shard is never a pass", name, code, res.failed, exitEnv)
		}
		rep := readSelftestReport(t, filepath.Join(incomplete.artifacts, merged))
		if want := []string{left.entry["shard"] + "/" + strconv.Itoa(len(shards))}; rep.Passed || !slices.Equal(rep.Missing, want) {
			t.Errorf("the merged self-test without %s: passed %v, missing %v; want not passed, missing %v", name, rep.Passed, rep.Missing, want)
		}
		if !strings.Contains(res.summary, "INCOMPLETE") {
			t.Errorf("the job summary does not say INCOMPLETE:\n%s", res.summary)
		}
	})
}

// oneInvocation is the words of the one opcert command a step runs,
// checked to parse with opcert's commands.
func oneInvocation(t *testing.T, dir string, s workflowStep, env map[string]string) []string {
	t.Helper()
	calls := invocations(t, dir, s.Run, env)
	if len(calls) != 1 {
		t.Fatalf("step %q runs opcert %d times, want once: %q", s.Name, len(calls), calls)
	}
	checkCommandWords(t, calls[0])
	return calls[0]
}

// invocations runs script with opcert a shell function that writes down
// its words instead of running: what bash would run of opcert.
func invocations(t *testing.T, dir, script string, env map[string]string) [][]string {
	t.Helper()
	calls := filepath.Join(t.TempDir(), "calls")
	env = withEnv(env, map[string]string{"OPCERT_CALLS": calls})
	prelude := `opcert() { printf 'a%s\0' opcert "$@" >>"$OPCERT_CALLS"; printf 'e\0' >>"$OPCERT_CALLS"; }` + "\n"
	if _, err := runScriptIn(t, dir, "the words of opcert in "+strings.SplitN(script, "\n", 2)[0], prelude+script, env); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(calls)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var out [][]string
	var words []string
	for _, rec := range strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00") {
		if w, ok := strings.CutPrefix(rec, "a"); ok {
			words = append(words, w)
		} else if rec == "e" {
			out = append(out, words)
			words = nil
		}
	}
	return out
}

// flagValue is the value of flag in a command's words ("" without it).
func flagValue(words []string, flag string) string {
	for i, w := range words {
		if v, ok := strings.CutPrefix(w, flag+"="); ok {
			return v
		}
		if w == flag && i+1 < len(words) {
			return words[i+1]
		}
	}
	return ""
}

// stepUsing is the one step that uses an action (uses: prefix...).
func stepUsing(t *testing.T, steps []workflowStep, prefix string) workflowStep {
	t.Helper()
	var found []workflowStep
	for _, s := range steps {
		if strings.HasPrefix(s.Uses, prefix) {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d steps use %s, want 1", len(found), prefix)
	}
	return found[0]
}

// uploadOf is the step that uploads dir, checked to upload it whatever
// happened before, hidden files included (the directory as opcert wrote
// it).
func uploadOf(t *testing.T, steps []workflowStep, dir string) workflowStep {
	t.Helper()
	for _, s := range steps {
		if !strings.HasPrefix(s.Uses, "actions/upload-artifact@") || s.With["path"] != dir {
			continue
		}
		if !strings.Contains(s.If, "always()") || s.With["include-hidden-files"] != "true" || s.With["name"] == "" {
			t.Errorf("step %q uploads %s if %q, include-hidden-files %q, named %q: want if always(), include-hidden-files true and a name",
				s.Name, dir, s.If, s.With["include-hidden-files"], s.With["name"])
		}
		return s
	}
	t.Fatalf("no step uploads %s", dir)
	return workflowStep{}
}

// checkRecipeInstalls holds the recipe's installation to opcert's action
// (action.yml): the same Go; in a shard job every line of the action's
// install step but its first (which wants the action's tag), so that both
// install opcert alike and name the same cache, the action's cache step,
// and on a cache miss opcert's own build script of the installed version;
// in the merge job the action's go install.
func checkRecipeInstalls(t *testing.T, shardSteps, mergeSteps []workflowStep) {
	t.Helper()
	var a action
	readYAML(t, "../../action.yml", &a)
	install := strings.Split(strings.TrimSpace(stepRunning(t, a.Runs.Steps, "go install ").Run), "\n")
	cache := stepUsing(t, a.Runs.Steps, "actions/cache@")
	for job, steps := range map[string][]workflowStep{"shards": shardSteps, "merge": mergeSteps} {
		if g := stepUsing(t, steps, "actions/setup-go@"); g.With["go-version"] != a.Inputs["go-version"].Default {
			t.Errorf("the %s job sets up Go %q, the action %q", job, g.With["go-version"], a.Inputs["go-version"].Default)
		}
		lines := install[1:]
		if job == "merge" {
			lines = slices.DeleteFunc(slices.Clone(install), func(l string) bool { return !strings.Contains(l, "go install ") })
		}
		have := strings.Split(stepRunning(t, steps, "go install ").Run, "\n")
		for _, l := range lines {
			if !slices.Contains(have, strings.TrimSpace(l)) {
				t.Errorf("the %s job's install step does not run the action's %q", job, strings.TrimSpace(l))
			}
		}
	}
	if c := stepUsing(t, shardSteps, "actions/cache@"); c.Uses != cache.Uses || !maps.Equal(c.With, cache.With) {
		t.Errorf("the shards cache %s %v, the action %s %v", c.Uses, c.With, cache.Uses, cache.With)
	}
	checkout := stepUsing(t, shardSteps, "actions/checkout@")
	build := stepRunning(t, shardSteps, "hack/envtest/build.sh")
	if checkout.With["repository"] != "opcert/opcert" || checkout.With["ref"] != "${{ env.OPCERT_VERSION }}" ||
		!strings.Contains(build.Run, path.Join(checkout.With["path"], "hack/envtest/build.sh")) {
		t.Errorf("the shards build the API server binaries with %q from a checkout of %s at %s in %s: want opcert's hack/envtest/build.sh at OPCERT_VERSION",
			build.Run, checkout.With["repository"], checkout.With["ref"], checkout.With["path"])
	}
	if _, err := os.Stat("../../hack/envtest/build.sh"); err != nil {
		t.Error(err)
	}
	for _, s := range []workflowStep{checkout, build} {
		if !strings.Contains(s.If, "cache-hit != 'true'") {
			t.Errorf("step %q runs if %q, want only on a cache miss", orName(s), s.If)
		}
	}
}

// commentedCommand is an opcert command line in the recipe's comments,
// set off by its indent from the prose.
var commentedCommand = regexp.MustCompile(`(?m)^#\s{2,}(opcert .*)$`)

// checkCommentedCommands parses the command lines the recipe's comments
// show (how a team's opcert run would read).
func checkCommentedCommands(t *testing.T) {
	t.Helper()
	data, err := os.ReadFile(shardingRecipe)
	if err != nil {
		t.Fatal(err)
	}
	lines := commentedCommand.FindAllStringSubmatch(string(data), -1)
	if len(lines) == 0 {
		t.Error("the recipe's comments show no opcert command line (the team's opcert run)")
	}
	for _, l := range lines {
		for _, words := range invocations(t, t.TempDir(), l[1], nil) {
			checkCommandWords(t, words)
		}
	}
}

// withEnv is env with more added.
func withEnv(env map[string]string, more map[string]string) map[string]string {
	out := maps.Clone(env)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, more)
	return out
}

// readSelftestReport reads a self-test's selftest.json.
func readSelftestReport(t *testing.T, dir string) selftestReport {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "selftest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep selftestReport
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}
