package main

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/opcert/opcert/apiserver"
)

// The tests run the real command (this test binary re-executed as opcert)
// to check exit codes, messages and what is left on disk.
func TestMain(m *testing.M) {
	if os.Getenv("OPCERT_TEST_MAIN") == "1" {
		main()
		return
	}
	apiserver.MaybeLaunch() // the watch tests' API server launches through this binary
	code := m.Run()
	stopSharedWorld()
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

func opcert(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "OPCERT_TEST_MAIN=1"), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// earlierReport makes out look like a report of an earlier run.
func earlierReport(t *testing.T, out string) {
	t.Helper()
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, out, "keep", "an earlier report")
	if err := writeManifest(out); err != nil {
		t.Fatal(err)
	}
}

// A report directory from an earlier run must survive a failed one, and no
// staging directory may be left beside it.
func checkUntouched(t *testing.T, out string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(out, "keep")); err != nil {
		t.Errorf("the earlier report in %s was disturbed: %v", out, err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*tmp-*"))
	if len(left) > 0 {
		t.Errorf("staging directories left behind: %v", left)
	}
}

const minimal = `name: tiny
mechanism: stale
duration: 30m
operators:
  - name: etcd
    conditions:
      - {type: Available, status: "True", reason: AsExpected, message: "All is well"}
`

func TestBadInputAndEnvironmentWriteNothing(t *testing.T) {
	dir := t.TempDir()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	port := strconv.Itoa(busy.Addr().(*net.TCPAddr).Port)
	empty := t.TempDir()
	cases := []struct {
		name string
		env  []string
		args []string
		want []string // in stderr
		code int      // 2 unless set
	}{
		{"malformed YAML", nil, []string{write(t, dir, "bad.yaml", "name: x\nsteps: [\n")}, []string{"bad.yaml:"}, 0},
		{"unknown action", nil, []string{write(t, dir, "act.yaml", minimal+"steps:\n  - at: 1m\n    explodeOperator: etcd\n")},
			[]string{"act.yaml:10:", `unknown field "explodeOperator"`, "killOperator"}, 0},
		{"negative duration", nil, []string{write(t, dir, "neg.yaml", minimal+"steps:\n  - at: -1m\n    killOperator: etcd\n")},
			[]string{"neg.yaml:9:", "steps[0].at"}, 0},
		{"missing file", nil, []string{filepath.Join(dir, "nope.yaml")}, []string{"nope.yaml"}, 0},
		{"unknown subject", nil, []string{"--subject", "operator=sluggish"}, []string{`no subject "sluggish"`, "slow"}, 0},
		{"unknown role", nil, []string{"--subject", "janitor=reference"}, []string{`no role "janitor"`, "stale.detector"}, 0},
		{"subject without role", nil, []string{"--subject", "slow"}, []string{"want [mechanism.]role=subject"}, 0},
		{"unknown built-in", nil, []string{"--scenario", "nope"}, []string{"nope", "stale-healthy-answer"}, 0},
		{"bad threshold", nil, []string{"--answer-budget", "-1s"}, []string{"--answer-budget -1s is out of range"}, 0},
		{"budget past unknown", nil, []string{"--answer-budget", "11m"}, []string{"not below --unknown-after"}, 0},
		{"port out of range", nil, []string{"--api-port", "70000"}, []string{"out of range"}, 0},
		{"same scenario twice", nil, []string{"--scenario", "stale-hang", "--scenario", "stale-hang"}, []string{`"stale-hang" is also`}, 0},
		{"missing envtest binary", []string{"KUBEBUILDER_ASSETS=" + empty}, []string{"--scenario", "stale-hang"},
			[]string{"kube-apiserver is missing", "KUBEBUILDER_ASSETS"}, 3},
		{"port in use", nil, []string{"--api-port", port, "--scenario", "stale-hang"}, []string{"port " + port + " is in use", "--api-port"}, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "report")
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			earlierReport(t, out)
			r := opcert(t, tc.env, append([]string{"run", "--out", out}, tc.args...)...)
			want := tc.code
			if want == 0 {
				want = 2
			}
			if r.code != want {
				t.Fatalf("exit %d, want %d\nstderr: %s", r.code, want, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
				}
			}
			if n := strings.Count(strings.TrimSpace(r.stderr), "opcert:"); n > 3 {
				t.Errorf("want one clear error, got:\n%s", r.stderr)
			}
			checkUntouched(t, out)
		})
	}
}

func TestListings(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"version"}, []string{"opcert", "kube-apiserver v1.36.3", "etcd v3.6.16"}},
		{[]string{"scenarios", "list"}, []string{"stale-healthy-answer", "stale-fleet-24h", "24h0m0s"}},
		{[]string{"subjects"}, []string{"detector", "eager", "operator", "slow", "fails STALE-007"}},
		{[]string{"rules"}, []string{"STALE-001", "000 §Proposal ¶2", "STALE-007", "000 §Test Plan"}},
		{[]string{"run", "--help"}, []string{"Exit codes", "--subject", "--out", "KUBEBUILDER_ASSETS"}},
	} {
		r := opcert(t, nil, tc.args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, r.code, r.stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%v: stdout does not say %q:\n%s", tc.args, w, r.stdout)
			}
		}
	}
}

// Needs kube-apiserver and etcd (make envtest).
func TestRunWritesReportsAndExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	dir := t.TempDir()
	sc := write(t, dir, "tiny.yaml", minimal)
	out := filepath.Join(dir, "report")
	if err := os.Mkdir(out, 0o755); err != nil { // an empty directory may be used
		t.Fatal(err)
	}
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(free.Addr().(*net.TCPAddr).Port)
	free.Close()
	r := opcert(t, nil, "run", "--out", out, "--api-port", port, sc)
	if r.code != 0 {
		t.Fatalf("reference run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "API server up at https://127.0.0.1:"+port+"/ ") {
		t.Errorf("--api-port %s was not honoured:\n%s", port, r.stderr)
	}
	if !ours(out) {
		t.Errorf("the report directory lacks its marker %s", marker)
	}
	for _, f := range []string{"junit.xml", "report.json", "report.md", "timelines/01-tiny.jsonl"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	if !strings.Contains(r.stderr, "API server up at") || !strings.Contains(r.stderr, "[1/1] tiny") {
		t.Errorf("no progress on stderr:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "PASS") {
		t.Errorf("no summary on stdout:\n%s", r.stdout)
	}

	r = opcert(t, nil, "run", "--out", out, "--subject", "operator=slow", "--scenario", "stale-healthy-answer")
	if r.code != 1 {
		t.Fatalf("slow operator: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "FAIL STALE-007") || !strings.Contains(r.stdout, "over the 30s budget") {
		t.Errorf("the summary does not name the failed invariant:\n%s", r.stdout)
	}
	junit, err := os.ReadFile(filepath.Join(out, "junit.xml"))
	if err != nil || !bytes.Contains(junit, []byte("STALE-007")) || !bytes.Contains(junit, []byte("<failure")) {
		t.Errorf("junit.xml lacks the STALE-007 failure (%v)", err)
	}
}

// What controller-runtime logs reaches stderr once per distinct line.
func TestLogsOnceEach(t *testing.T) {
	var out strings.Builder
	l := onceEach(&out)
	for range 3 {
		l.Info("unknown field \"spec.x\"")
	}
	l.Info("another")
	if got := strings.Count(out.String(), "\n"); got != 2 || !strings.HasPrefix(out.String(), "opcert: ") {
		t.Errorf("logged %q, want each of the two lines once", out.String())
	}
}

// runOpcert is opcert for a goroutine other than the test's: the error
// is returned, not fatal.
func runOpcert(args ...string) (result, error) {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "OPCERT_TEST_MAIN=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return result{out.String(), errb.String(), exit.ExitCode()}, nil
	}
	return result{out.String(), errb.String(), 0}, err
}
