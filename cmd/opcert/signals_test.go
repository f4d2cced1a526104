package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A descendant that detached itself (setsid, as an operator's wrapper may
// start it) is reparented to opcert, the subreaper, and killed when opcert
// exits. The opcert side runs in a child test process: killing every
// descendant of this one would kill the other tests' API servers.
func TestDetachedDescendantsAreKilled(t *testing.T) {
	if os.Getenv("OPCERT_TEST_REAPER") == "1" {
		becomeSubreaper()
		out, err := exec.Command("sh", "-c", "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!").Output()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("detached %s", out)
		for deadline := time.Now().Add(5 * time.Second); len(descendants(os.Getpid())) == 0; { // sh has exited: sleep is reparented
			if time.Now().After(deadline) {
				t.Fatal("the detached process was not reparented to the subreaper")
			}
			<-time.After(20 * time.Millisecond)
		}
		killDescendants()
		if left := descendants(os.Getpid()); len(left) > 0 {
			t.Fatalf("descendants left: %v", left)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDetachedDescendantsAreKilled$")
	cmd.Env = append(os.Environ(), "OPCERT_TEST_REAPER=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	_, rest, ok := strings.Cut(string(out), "detached ")
	pid, perr := strconv.Atoi(strings.TrimSpace(strings.SplitN(rest, "\n", 2)[0]))
	if !ok || perr != nil {
		t.Fatalf("no pid in\n%s", out)
	}
	if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && !strings.Contains(string(st), ") Z ") {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the detached process %d outlived its subreaper: %s", pid, st)
	}
}

// analyze honours the first Ctrl-C at once in every phase, judging
// included (clusteroperator judges at the end of the file, which took 20 s
// to notice a signal on a large capture), and then leaves --out as it was:
// it never exits 130 having replaced it.
func TestAnalyzeHonoursTheFirstSignal(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	tl := benchTimeline(t, 20_000) // about 2 s of reading and judging
	for i := range 3 {
		sig := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM}[rng.IntN(2)]
		delay := time.Duration(200+rng.IntN(1800)) * time.Millisecond
		t.Run(fmt.Sprintf("%d %s after %s", i, sig, delay), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "report")
			earlierReport(t, out)
			p := startOpcert(t, nil, "analyze", "--mechanism", "clusteroperator", tl, "--out", out)
			<-time.After(delay)
			sent := time.Now()
			_ = p.cmd.Process.Signal(sig)
			code := p.wait(t, 30*time.Second)
			took := time.Since(sent)
			switch code {
			case 128 + int(sig):
				checkUntouched(t, out)
				if took > 3*time.Second {
					t.Errorf("exit %d %s after the signal, want at once", code, took.Round(time.Millisecond))
				}
			case exitPass: // it was done before the signal
				completeReport(t, out)
			default:
				t.Errorf("exit %d, want %d or 0\n%s", code, 128+int(sig), p.stderr.String())
			}
		})
	}
}

// completeReport: out is a report opcert wrote and left as it was.
func completeReport(t *testing.T, out string) {
	t.Helper()
	if err := onlyWhatOpcertWrote(out); err != nil {
		t.Errorf("%s is not a complete report: %v", out, err)
	}
	m, err := readManifest(out)
	if err != nil || len(m.Files) < 2 {
		t.Errorf("%s lists %v (%v)", out, m.Files, err)
	}
	for _, f := range m.Files {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s lacks %s", out, f)
		}
	}
}

// keyLeftovers lists what may hold a key and must not outlive opcert:
// envtest's serving certificates, run directories (the API server's CA,
// the processes' kubeconfigs) and kubeconfigs anywhere under the dirs.
func keyLeftovers(dirs ...string) []string {
	var out []string
	for _, dir := range dirs {
		for _, pat := range []string{"envtest-serving-certs-*", "opcert-world-*"} {
			m, _ := filepath.Glob(filepath.Join(dir, pat))
			out = append(out, m...)
		}
		_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(path, ".kubeconfig") {
				out = append(out, path)
			}
			return nil
		})
	}
	return out
}

// linesOf reads a file's lines, for the pid files of test operators.
func linesOf(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		out = append(out, sc.Text())
	}
	return out
}
