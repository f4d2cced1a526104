package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/opcert/opcert/apiserver"
)

// A descendant that detached itself (setsid, as an operator's wrapper may
// start it) is reparented to opcert, the subreaper, and killed when opcert
// exits. The opcert side runs in a child test process: killing every
// descendant of this one would kill the other tests' API servers.
func TestDetachedDescendantsAreKilled(t *testing.T) {
	if os.Getenv("OPCERT_TEST_REAPER") == "1" {
		apiserver.BecomeSubreaper()
		out, err := exec.Command("sh", "-c", "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!").Output()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("detached %s", out)
		for deadline := time.Now().Add(5 * time.Second); len(apiserver.Descendants(os.Getpid())) == 0; { // sh has exited: sleep is reparented
			if time.Now().After(deadline) {
				t.Fatal("the detached process was not reparented to the subreaper")
			}
			<-time.After(20 * time.Millisecond)
		}
		apiserver.KillDescendants()
		if left := apiserver.Descendants(os.Getpid()); len(left) > 0 {
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
	seed := signalSeed(t)
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

// detachingOperator is an operator executable that starts a child in a
// session of its own (as a wrapper using setsid would) and then idles:
// neither may outlive opcert.
func detachingOperator(t *testing.T) string {
	t.Helper()
	path := write(t, t.TempDir(), "operator.sh", "#!/bin/sh\nsetsid sleep 300 </dev/null >/dev/null 2>&1 &\nexec sleep 300\n")
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// Every command that writes a report, stopped by a signal at a random
// point (seeded and logged; start-up, mid-work, around the report): it
// exits 128+n, or with its normal status had it finished first (or had it
// already replaced --out); --out is the earlier report untouched or a
// complete new one, never a part; the inputs are all there; and no
// process, staging directory, run directory or key is left behind. A
// second signal (GNU timeout -s INT signals the child, then its group)
// stops at once under the same guarantees.
func TestSignalsAtRandomPointsForEveryCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	seed := signalSeed(t)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	w := sharedWorld(t)
	inputs := t.TempDir()
	scenario := write(t, inputs, "pm.yaml", `name: signals
mechanism: stale
duration: 10m
operators:
  - name: etcd
    conditions: [{type: Available, status: "True", reason: AsExpected, message: All is well}]
`)
	operator := detachingOperator(t)
	timeline := benchTimeline(t, 20_000)
	kc := kubeconfig(t, w, "opcert-signals")
	type command struct {
		name  string
		args  []string
		ready string        // the stderr line after which the signal may come
		span  time.Duration // how long after it the command may still be working
		codes []int         // its normal exit statuses
	}
	for _, c := range []command{
		// The operator only sleeps: a run that completes before the signal
		// proved nothing of it, NOT JUDGED (exit 4).
		{"run", []string{"run", scenario, "--time-scale", "0.01", "--subject", "operator=exec:" + operator + " {name}"}, "starting kube-apiserver", 20 * time.Second, []int{exitPass, exitFail, exitNotJudged}},
		{"analyze", []string{"analyze", "--mechanism", "clusteroperator", timeline}, "", 3 * time.Second, []int{exitPass}},
		{"selftest", []string{"selftest", "--mechanism", "stale", "--max-calls", "200"}, "starting kube-apiserver", 15 * time.Second, []int{exitPass, exitFail}},
		{"fuzz", []string{"fuzz", "--mechanism", "stale", "--runs", "2", "--duration", "1h", "--shrink-runs", "0"}, "starting kube-apiserver", 15 * time.Second, []int{exitPass, exitFail}},
		// The API server it watches has no ClusterOperator: what it records
		// judges nothing, NOT JUDGED (exit 4), unless a signal ends it first.
		{"watch", []string{"watch", "--kubeconfig", kc, "--mechanism", "stale", "--for", "4s", "--judge-every", "1s"}, "", 6 * time.Second, []int{exitPass, exitFail, exitNotJudged}},
	} {
		sig := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT}[rng.IntN(3)]
		twice := rng.IntN(3) == 0
		delay := time.Duration(rng.Int64N(int64(c.span)))
		name := fmt.Sprintf("%s %s after %s", c.name, sig, delay.Round(time.Millisecond))
		if twice {
			name += " twice"
		}
		t.Run(name, func(t *testing.T) {
			tmp, out := t.TempDir(), filepath.Join(t.TempDir(), "report")
			earlierReport(t, out)
			p := startOpcert(t, []string{"TMPDIR=" + tmp}, append(c.args, "--out", out)...)
			if c.ready != "" {
				p.waitLine(t, c.ready, time.Minute)
			}
			<-time.After(delay)
			_ = p.cmd.Process.Signal(sig)
			if twice {
				<-time.After(time.Duration(rng.IntN(300)) * time.Millisecond)
				_ = p.cmd.Process.Signal(syscall.SIGINT)
			}
			code := p.wait(t, 40*time.Second)
			switch {
			case code == 128+int(sig):
			case slices.Contains(c.codes, code):
			default:
				t.Errorf("exit %d, want %d or %v\n%s", code, 128+int(sig), c.codes, p.stderr.String())
			}
			_, err := os.Stat(filepath.Join(out, "keep"))
			t.Logf("exit %d, --out replaced: %t", code, err != nil)
			if err == nil {
				checkUntouched(t, out)
				if slices.Contains(c.codes, code) && c.name != "watch" {
					t.Errorf("exit %d, the report's, but --out was not replaced\n%s", code, p.stderr.String())
				}
			} else {
				completeReport(t, out)
			}
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*tmp-*")); len(left) > 0 {
				t.Errorf("staging directories left behind: %v", left)
			}
			if keys := keyLeftovers(tmp, filepath.Dir(out)); len(keys) > 0 {
				t.Errorf("keys left behind: %v", keys)
			}
			for _, in := range []string{scenario, operator, timeline, kc} {
				if _, err := os.Stat(in); err != nil {
					t.Errorf("input %s: %v", in, err)
				}
			}
			noChildren(t, p.cmd.Process.Pid)
		})
	}
}

// A SIGKILL of opcert gives its detached descendants to init, out of its
// reach: the next opcert's start-up kills them (they carry the dead run's
// directory in their environment), as it removes that directory.
func TestNextStartKillsWhatAKilledOpcertLeft(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	tmp := t.TempDir()
	sc := write(t, t.TempDir(), "pm.yaml", `name: killed
mechanism: stale
duration: 1h
operators:
  - name: etcd
    conditions: [{type: Available, status: "True", reason: AsExpected, message: All is well}]
`)
	p := startOpcert(t, []string{"TMPDIR=" + tmp}, "run", sc, "--time-scale", "0.01", "--subject", "operator=exec:"+detachingOperator(t)+" {name}", "--out", filepath.Join(t.TempDir(), "r"))
	p.waitLine(t, "API server up", time.Minute)
	for deadline := time.Now().Add(10 * time.Second); len(detached(p.cmd.Process.Pid)) == 0; <-time.After(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the operator did not start its detached child")
		}
	}
	_ = p.cmd.Process.Kill()
	p.wait(t, 10*time.Second)
	if len(detached(p.cmd.Process.Pid)) == 0 {
		t.Fatal("no detached child survived the SIGKILL: the test proves nothing")
	}
	if r := opcert(t, []string{"TMPDIR=" + tmp}, "run", "--scenario", "stale-hang", "--out", filepath.Join(t.TempDir(), "r")); r.code != exitPass {
		t.Fatalf("the next run: exit %d\n%s", r.code, r.stderr)
	}
	noChildren(t, p.cmd.Process.Pid)
	noRunDirs(t, tmp)
}

// detached lists the live processes of opcert pid that left its session.
func detached(pid int) []string {
	var out []string
	for _, c := range children(pid) {
		if strings.Contains(c, "(sleep)") {
			n, _ := strconv.Atoi(strings.Fields(c)[0])
			if sid, _ := unix.Getsid(n); sid == n {
				out = append(out, c)
			}
		}
	}
	return out
}

// signalSeed is a test's random seed, logged; OPCERT_SIGNAL_SEED replays
// a logged one.
func signalSeed(t *testing.T) int64 {
	seed := time.Now().UnixNano()
	if s := os.Getenv("OPCERT_SIGNAL_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("OPCERT_SIGNAL_SEED: %v", err)
		}
	}
	t.Logf("seed %d (OPCERT_SIGNAL_SEED=%d replays it)", seed, seed)
	return seed
}
