package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/opcert/opcert/shard"
)

// shardedCommands are the commands that shard, each with work small
// enough for a test and big enough for four shards; fuzz with a subject
// that fails, so that the merge must cut at the first failing draw.
var shardedCommands = []struct {
	name string
	args []string
	code int // the unsharded command's exit status
}{
	{"run", []string{"run", "--scenario", "stale-healthy-answer", "--scenario", "stale-operator-death", "--scenario", "stale-hang", "--scenario", "stale-detector-returns", "--scenario", "stale-condition-moves"}, 0},
	{"selftest", []string{"selftest", "--mechanism", "stale", "--max-calls", "150"}, 0},
	{"fuzz", []string{"fuzz", "--mechanism", "stale", "--runs", "8", "--duration", "2h", "--subject", "operator=slow", "--shrink-runs", "3"}, 1},
	{"perturb", []string{"perturb", "--scenario", "stale-healthy-answer", "--scenario", "stale-operator-death", "--faithful", "--budget", "1"}, 0},
}

// shards plays args as count shards side by side, each to dir/<index>,
// and returns their directories; each must exit with code.
func shards(t *testing.T, dir string, count, code int, args []string) []string {
	t.Helper()
	var wg sync.WaitGroup
	dirs := make([]string, count)
	for i := range count {
		dirs[i] = filepath.Join(dir, fmt.Sprint(i+1))
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], append(args, "--shard", fmt.Sprintf("%d/%d", i+1, count), "--out", dirs[i])...)
			cmd.Env = append(os.Environ(), "OPCERT_TEST_MAIN=1")
			out, err := cmd.CombinedOutput()
			if got := cmd.ProcessState.ExitCode(); got != code && !(code == 1 && got == 0) {
				// A shard of a failing fuzz campaign may hold no failure.
				t.Errorf("shard %d/%d: exit %d (%v), want %d\n%s", i+1, count, got, err, code, out)
			}
		}()
	}
	wg.Wait()
	return dirs
}

// sameFiles fails unless dirs a and b hold the same files, byte for byte.
func sameFiles(t *testing.T, a, b string) {
	t.Helper()
	files := func(root string) map[string][]byte {
		out := map[string][]byte{}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			out[rel], err = os.ReadFile(path)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	fa, fb := files(a), files(b)
	for name, data := range fa {
		other, ok := fb[name]
		switch {
		case !ok:
			t.Errorf("%s: no %s", b, name)
		case !bytes.Equal(data, other):
			t.Errorf("%s differs from the unsharded run's (%d and %d bytes)", name, len(other), len(data))
		}
	}
	for name := range fb {
		if _, ok := fa[name]; !ok {
			t.Errorf("%s: %s, which the unsharded run did not write", b, name)
		}
	}
}

// The merged report of 1, 2 and 4 shards is the unsharded command's, byte
// for byte, with --reproducible: for each command that shards. Needs
// kube-apiserver and etcd (make envtest).
func TestMergeIsTheUnshardedReport(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	for _, c := range shardedCommands {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			whole := filepath.Join(dir, "whole")
			r := opcert(t, nil, append(c.args, "--reproducible", "--out", whole)...)
			if r.code != c.code {
				t.Fatalf("unsharded: exit %d, want %d\n%s\n%s", r.code, c.code, r.stdout, r.stderr)
			}
			for _, n := range []int{1, 2, 4} {
				dirs := shards(t, filepath.Join(dir, fmt.Sprint(n)), n, c.code, c.args)
				merged := filepath.Join(dir, fmt.Sprintf("merged-%d", n))
				m := opcert(t, nil, append([]string{"merge", "--reproducible", "--out", merged}, dirs...)...)
				if m.code != c.code {
					t.Fatalf("merge of %d shards: exit %d, want %d\n%s\n%s", n, m.code, c.code, m.stdout, m.stderr)
				}
				sameFiles(t, whole, merged)
				if n == 4 && c.name == "selftest" {
					mergeRefusals(t, dir, dirs)
				}
			}
		})
	}
}

// mergeRefusals: shards of other work, of another opcert or given twice
// are refused before anything is written; a shard missing makes the merge
// INCOMPLETE, never a pass. dirs are the four shards of one self-test.
func mergeRefusals(t *testing.T, dir string, dirs []string) {
	other := filepath.Join(dir, "other")
	if r := opcert(t, nil, "selftest", "--mechanism", "stale", "--max-calls", "100", "--shard", "4/4", "--out", other); r.code != 0 {
		t.Fatalf("a shard of another plan: exit %d\n%s", r.code, r.stderr)
	}
	older := filepath.Join(dir, "older")
	if err := os.CopyFS(older, os.DirFS(dirs[3])); err != nil {
		t.Fatal(err)
	}
	m, err := shard.Read(older)
	if err != nil {
		t.Fatal(err)
	}
	m.Version = "opcert v0.0.1"
	if err := shard.Write(older, m); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "refused")
	for name, tc := range map[string]struct {
		dirs []string
		says string
	}{
		"another plan":   {[]string{dirs[0], dirs[1], dirs[2], other}, "different plans"},
		"another opcert": {[]string{dirs[0], dirs[1], dirs[2], older}, "different opcert versions"},
		"given twice":    {[]string{dirs[0], dirs[1], dirs[2], dirs[2]}, "both shard 3/4"},
		"not a shard":    {[]string{dirs[0], t.TempDir()}, "not the report directory of a shard"},
	} {
		r := opcert(t, nil, append([]string{"merge", "--out", out}, tc.dirs...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.says) {
			t.Errorf("%s: exit %d, want 2 saying %q\n%s", name, r.code, tc.says, r.stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: %s written", name, out)
		}
	}
	r := opcert(t, nil, "merge", "--out", out, dirs[0], dirs[2], dirs[3])
	if r.code != 3 || !strings.Contains(r.stdout, "INCOMPLETE") || !strings.Contains(r.stdout, "MISSING shards 2/4") {
		t.Errorf("a shard missing: exit %d, want 3 and INCOMPLETE naming it\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "selftest.json"))
	var rep selftestReport
	if err != nil || json.Unmarshal(data, &rep) != nil || rep.Passed || len(rep.Missing) != 1 {
		t.Errorf("selftest.json of a merge without shard 2/4: passed %v, missing %v (%v)", rep.Passed, rep.Missing, err)
	}
}

// A run merged without a shard says so in every format.
func TestMergedRunMissingAShard(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	dir := t.TempDir()
	dirs := shards(t, dir, 2, 0, []string{"run", "--scenario", "stale-healthy-answer", "--scenario", "stale-operator-death"})
	out := filepath.Join(dir, "merged")
	r := opcert(t, nil, "merge", "--out", out, dirs[1])
	if r.code != 3 || !strings.Contains(r.stdout, "MISSING shard 1/2") || !strings.Contains(r.stdout, "INCOMPLETE:") {
		t.Fatalf("exit %d, want 3 and the shard named missing\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for file, says := range map[string]string{
		"report.md":   "## Missing shards",
		"junit.xml":   "MISSING: shard 1/2",
		"report.html": "Missing shards",
		"report.json": `"missingShards": [`,
	} {
		data, err := os.ReadFile(filepath.Join(out, file))
		if err != nil || !strings.Contains(string(data), says) {
			t.Errorf("%s does not say %q (%v)", file, says, err)
		}
	}
}

func TestShardBadInput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report")
	earlierReport(t, out)
	for _, tc := range []struct {
		env  []string
		args []string
		says string
	}{
		{nil, []string{"run", "--shard", "0/2"}, "INDEX counts from 1"},
		{nil, []string{"selftest", "--shard", "3/2"}, "INDEX counts from 1"},
		{nil, []string{"fuzz", "--mechanism", "stale", "--shard", "two"}, "not INDEX/COUNT"},
		{nil, []string{"perturb", "--shard", "1/0"}, "COUNT must be"},
		{[]string{"JOB_COMPLETION_INDEX=1"}, []string{"selftest"}, "OPCERT_SHARD_COUNT is not"},
		{[]string{"OPCERT_SHARD=5/4"}, []string{"run"}, "OPCERT_SHARD="},
	} {
		r := opcert(t, tc.env, append(tc.args, "--out", out)...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.says) {
			t.Errorf("%v %v: exit %d, want 2 saying %q\n%s", tc.env, tc.args, r.code, tc.says, r.stderr)
		}
	}
	checkUntouched(t, out)
	if r := opcert(t, nil, "merge", "--out", out); r.code != 2 {
		t.Errorf("merge of nothing: exit %d, want 2", r.code)
	}
}

// An Indexed Job's pod plays the shard its index says: shard.json holds
// it. Needs kube-apiserver and etcd (make envtest).
func TestShardFromAnIndexedJob(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	out := filepath.Join(t.TempDir(), "pod")
	r := opcert(t, []string{"JOB_COMPLETION_INDEX=1", "OPCERT_SHARD_COUNT=3"}, "run", "--scenario", "stale-healthy-answer", "--scenario", "stale-operator-death", "--scenario", "stale-hang", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	m, err := shard.Read(out)
	if err != nil || m.Shard != (shard.Spec{Index: 2, Count: 3}) || m.Tool != toolRun || m.Total != 3 || len(m.Units) != 1 || m.Done != 1 {
		t.Errorf("shard.json %+v (%v), want shard 2/3 of opcert run with one of its three runs", m, err)
	}
}
