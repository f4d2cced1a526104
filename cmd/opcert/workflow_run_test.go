package main

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// runner runs a workflow's jobs on this machine as GitHub's runners would,
// as far as the recipes need: each job in a workspace of its own, its run
// steps with bash -e -o pipefail (runScriptIn) and the workflow's and the
// job's environment, a step skipped once one before it failed unless its
// if says always(); upload-artifact and download-artifact by copying
// directories, one per artifact name, as GitHub stores them. Other
// actions (setup-go, cache, checkout) and the steps that install opcert
// or build the API server binaries are GitHub's: opcert is this test
// binary on PATH (opcertOnPath) and the binaries are those make test
// built, where opcert looks by itself.
type runner struct {
	w         workflow
	env       map[string]string // besides the workflow's and the job's: PATH, and what the test puts in place
	artifacts string            // the workflow run's artifacts, a directory per name
}

func newRunner(t *testing.T, w workflow, replace map[string]string) *runner {
	t.Helper()
	env := withEnv(replace, map[string]string{"PATH": opcertOnPath(t), "OPCERT_TEST_MAIN": "1", "RUNNER_OS": "Linux"})
	return &runner{w: w, env: env, artifacts: t.TempDir()}
}

// jobResult is what a job did: whether it failed, each run step's exit
// status by name, and the job summary it wrote.
type jobResult struct {
	failed  bool
	exit    map[string]int
	summary string
}

// runJob runs one job's steps in a new workspace.
func (r *runner) runJob(t *testing.T, job jobRun) jobResult {
	t.Helper()
	workspace, files := t.TempDir(), t.TempDir()
	env := withEnv(r.w.env(job.job), r.env)
	env = withEnv(env, map[string]string{"GITHUB_WORKSPACE": workspace})
	for _, f := range []string{"GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH"} {
		env[f] = filepath.Join(files, strings.ToLower(f))
	}
	res := jobResult{exit: map[string]int{}}
	for _, s := range job.steps {
		always := strings.Contains(s.If, "always()")
		switch {
		case res.failed && !always:
			t.Logf("step %s: skipped, a step before failed", orName(s))
		case strings.HasPrefix(s.Uses, "actions/upload-artifact@"):
			r.upload(t, workspace, s)
		case strings.HasPrefix(s.Uses, "actions/download-artifact@"):
			r.download(t, workspace, s)
		case s.Uses != "":
			t.Logf("step %s: GitHub's own (%s), not run here", orName(s), s.Uses)
		case strings.Contains(s.Run, "go install ") || strings.Contains(s.Run, "hack/envtest/build.sh"):
			t.Logf("step %s: installs opcert or the API server binaries, not run here: opcert is this test binary, the binaries make test's", orName(s))
		case s.If != "" && !always:
			t.Fatalf("step %q runs if %q, which the test does not evaluate", orName(s), s.If)
		default:
			code, err := runScriptIn(t, workspace, orName(s), s.Run, env)
			if err != nil && code == 0 {
				t.Fatalf("step %q: %v", orName(s), err)
			}
			res.exit[orName(s)] = code
			res.failed = res.failed || code != 0
		}
	}
	summary, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	res.summary = string(summary)
	return res
}

// upload stores a step's path as the artifact of its name: the
// directory's contents (or the file), hidden files only with
// include-hidden-files; no artifact when the path does not exist.
func (r *runner) upload(t *testing.T, workspace string, s workflowStep) {
	t.Helper()
	name, from := s.With["name"], s.With["path"]
	if name == "" || strings.ContainsAny(from, "*?[\n") || strings.Contains(name+from, "${{") {
		t.Fatalf("step %q uploads path %q as %q: the test copies one path under a name it knows", orName(s), from, name)
	}
	src := filepath.Join(workspace, from)
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		t.Logf("step %s: no files at %s, no artifact %s", orName(s), from, name)
		return
	}
	dst := filepath.Join(r.artifacts, name)
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatalf("step %q: artifact %s: %v (a name is uploaded once per workflow run)", orName(s), name, err)
	}
	copyTree(t, src, dst, s.With["include-hidden-files"] == "true")
	t.Logf("step %s: uploaded %s as artifact %s", orName(s), from, name)
}

// download copies the artifacts whose names match the step's pattern into
// its path, each in a directory of its name unless merge-multiple.
func (r *runner) download(t *testing.T, workspace string, s workflowStep) {
	t.Helper()
	pattern := s.With["pattern"]
	if s.With["name"] != "" || pattern == "" {
		t.Fatalf("step %q downloads name %q, pattern %q: the test downloads by pattern", orName(s), s.With["name"], pattern)
	}
	entries, err := os.ReadDir(r.artifacts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if ok, err := path.Match(pattern, e.Name()); err != nil || !ok {
			continue
		}
		dst := filepath.Join(workspace, s.With["path"])
		if s.With["merge-multiple"] != "true" {
			dst = filepath.Join(dst, e.Name())
		}
		copyTree(t, filepath.Join(r.artifacts, e.Name()), dst, true)
		got = append(got, e.Name())
	}
	t.Logf("step %s: downloaded %v", orName(s), got)
}

// copyTree copies src (a directory's contents, or a file) into dst, the
// hidden files and directories below src only if hidden.
func copyTree(t *testing.T, src, dst string, hidden bool) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel == "." && !d.IsDir() {
			rel = d.Name()
		}
		if !hidden && rel != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// without is a runner of the same workflow run but for the artifact name,
// as if its job had been cancelled before uploading it.
func (r *runner) without(t *testing.T, name string) *runner {
	t.Helper()
	out := &runner{w: r.w, env: r.env, artifacts: t.TempDir()}
	entries, err := os.ReadDir(r.artifacts)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != name {
			copyTree(t, filepath.Join(r.artifacts, e.Name()), filepath.Join(out.artifacts, e.Name()), true)
		}
	}
	return out
}
