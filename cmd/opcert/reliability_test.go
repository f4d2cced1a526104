package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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

// The tests below run opcert as a real process and hurt it the way nightly
// CI and laptops do: signals, a killed API server, binaries that hang or
// fail. They wait on wall time by nature, each wait bounded.

// proc is opcert started in the background, its stderr read line by line.
type proc struct {
	cmd    *exec.Cmd
	lines  chan string
	stderr bytes.Buffer // everything, once the process has exited
	done   chan struct{}
}

func startOpcert(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "OPCERT_TEST_MAIN=1"), env...)
	cmd.Stdout = io.Discard
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, lines: make(chan string, 1024), done: make(chan struct{})}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			p.stderr.WriteString(sc.Text() + "\n")
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); p.wait(t, time.Minute) })
	return p
}

// waitLine waits for a stderr line containing s.
func (p *proc) waitLine(t *testing.T, s string, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				t.Fatalf("opcert exited before saying %q", s)
			}
			if strings.Contains(line, s) {
				return
			}
		case <-deadline:
			t.Fatalf("opcert did not say %q within %s", s, within)
		}
	}
}

// wait returns the exit code, failing the test if opcert outlives within.
func (p *proc) wait(t *testing.T, within time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	default:
	}
	exited := make(chan error, 1)
	go func() {
		for range p.lines { // drain: the reader must reach EOF before Wait
		}
		exited <- p.cmd.Wait()
	}()
	select {
	case <-exited:
		close(p.done)
	case <-time.After(within):
		_ = p.cmd.Process.Kill()
		<-exited
		close(p.done)
		t.Fatalf("opcert did not exit within %s", within)
	}
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return p.cmd.ProcessState.ExitCode()
}

// children lists the live processes opcert pid launched (kube-apiserver,
// etcd and their probes carry its pid in their environment).
func children(pid int) []string {
	var out []string
	mark := []byte("OPCERT_LAUNCH_PARENT=" + strconv.Itoa(pid) + "\x00")
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !bytes.Contains(env, mark) {
			continue
		}
		st, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		if f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:])); len(f) > 0 && f[0] != "Z" {
			out = append(out, filepath.Base(d)+" "+string(st))
		}
	}
	return out
}

// noChildren waits briefly for the kernel to deliver the parent-death signal.
func noChildren(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; {
		left := children(pid)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes outlived opcert %d:\n%s", pid, strings.Join(left, "\n"))
		}
		<-time.After(50 * time.Millisecond)
	}
}

func noRunDirs(t *testing.T, tmp string) {
	t.Helper()
	if left, _ := filepath.Glob(filepath.Join(tmp, "opcert-world-*")); len(left) > 0 {
		t.Errorf("run directories left behind: %v", left)
	}
}

// reportOrUntouched: out holds the earlier report or a complete new one.
func reportOrUntouched(t *testing.T, out string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(out, "keep")); err == nil {
		checkUntouched(t, out)
		return
	}
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	var rep map[string]any
	if err != nil || json.Unmarshal(data, &rep) != nil || !ours(out) {
		t.Errorf("%s holds neither the earlier report nor a complete new one (%v)", out, err)
	}
}

func TestOutNeverReplacesWhatOpcertDidNotWrite(t *testing.T) {
	dir := t.TempDir()
	users := filepath.Join(dir, "mine")
	write(t, dir, "notes.txt", "my notes")
	if err := os.Mkdir(users, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, users, "thesis.tex", "years of work")
	if err := os.Symlink(users, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ out, want string }{
		{users, "holds files opcert did not write (thesis.tex)"},
		{filepath.Join(dir, "notes.txt"), "is a file"},
		{filepath.Join(dir, "link"), "symbolic link"},
		{".", "working directory"},
		{"..", "working directory"},
		{"/", "working directory"},
		{filepath.Join(dir, "notes.txt", "sub"), "not a directory"},
	} {
		r := opcert(t, nil, "run", "--scenario", "stale-hang", "--out", tc.out)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("--out %s: exit %d, want 2 saying %q:\n%s", tc.out, r.code, tc.want, r.stderr)
		}
		if strings.Contains(r.stderr, "starting kube-apiserver") {
			t.Errorf("--out %s was checked only after the API server started", tc.out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(users, "thesis.tex")); err != nil || string(b) != "years of work" {
		t.Errorf("the user's file was touched: %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "notes.txt")); err != nil || string(b) != "my notes" {
		t.Errorf("the user's file was touched: %q, %v", b, err)
	}
}

// A create the API server refuses is the scenario's fault: exit 2 naming
// the step's line and the server's reason, and no report.
func TestRefusedStepIsTheScenariosFault(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	dir := t.TempDir()
	sc := write(t, dir, "orphan.yaml", minimal+`steps:
  - at: 1m
    create: {apiVersion: v1, kind: ConfigMap, metadata: {name: cm, namespace: nowhere}}
`)
	out := filepath.Join(dir, "report")
	r := opcert(t, nil, "run", "--out", out, sc)
	if r.code != 2 || !strings.Contains(r.stderr, "orphan.yaml:9:") || !strings.Contains(r.stderr, `namespaces "r01-nowhere" not found`) && !strings.Contains(r.stderr, `namespaces "nowhere" not found`) {
		t.Fatalf("exit %d, want 2 with the step's line and the server's reason:\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "FAIL") {
		t.Errorf("a refused step was reported as a rule failure:\n%s", r.stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a report was written for a broken scenario")
	}

	// A namespace the scenario creates carries the run's prefix, and so do
	// the objects placed in it.
	sc = write(t, dir, "ns.yaml", minimal+`steps:
  - at: 1m
    create: {apiVersion: v1, kind: Namespace, metadata: {name: team}}
  - at: 2m
    create: {apiVersion: v1, kind: ConfigMap, metadata: {name: cm, namespace: team}}
`)
	if r := opcert(t, nil, "run", "--out", out, sc); r.code != 0 {
		t.Fatalf("objects in a created namespace: exit %d\n%s", r.code, r.stderr)
	}
}

// Signals at random points (start-up, mid-run, around the report) leave no
// process, no run directory and a valid or untouched report.
func TestSignalsLeaveNothingBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		phase := []string{"start-up", "mid-run", "near the end"}[rng.IntN(3)]
		t.Run(fmt.Sprintf("%s %s", sig, phase), func(t *testing.T) {
			tmp, out := t.TempDir(), filepath.Join(t.TempDir(), "report")
			earlierReport(t, out)
			scenario := "stale-fleet-24h"
			if phase == "near the end" {
				scenario = "stale-healthy-answer"
			}
			p := startOpcert(t, []string{"TMPDIR=" + tmp}, "run", "--out", out, "--scenario", scenario)
			delay := time.Duration(rng.Int64N(int64(time.Second)))
			if phase == "start-up" {
				p.waitLine(t, "starting kube-apiserver", time.Minute)
			} else {
				p.waitLine(t, "API server up", time.Minute)
			}
			<-time.After(delay)
			_ = p.cmd.Process.Signal(sig)
			code := p.wait(t, 30*time.Second)
			if code != 128+int(sig) && code != 0 {
				t.Errorf("exit %d, want %d (or 0 had it finished first)\n%s", code, 128+int(sig), p.stderr.String())
			}
			noChildren(t, p.cmd.Process.Pid)
			noRunDirs(t, tmp)
			reportOrUntouched(t, out)
		})
	}
}

// SIGKILL leaves no process behind (the parent-death signal), and the next
// run removes the files the killed one could not.
func TestKilledOpcertLeavesNoProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	tmp, out := t.TempDir(), filepath.Join(t.TempDir(), "report")
	earlierReport(t, out)
	p := startOpcert(t, []string{"TMPDIR=" + tmp}, "run", "--out", out, "--scenario", "stale-fleet-24h")
	p.waitLine(t, "API server up", time.Minute)
	_ = p.cmd.Process.Kill()
	p.wait(t, 10*time.Second)
	noChildren(t, p.cmd.Process.Pid)
	checkUntouchedReport(t, out)
	if certs, _ := filepath.Glob(filepath.Join(tmp, "envtest-serving-certs-*")); len(certs) > 0 {
		t.Errorf("a key outside the run directory, which nothing sweeps: %v", certs)
	}
	r := opcert(t, []string{"TMPDIR=" + tmp}, "run", "--out", out, "--scenario", "stale-hang")
	if r.code != 0 {
		t.Fatalf("the next run: exit %d\n%s", r.code, r.stderr)
	}
	noRunDirs(t, tmp)
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*tmp-*")); len(left) > 0 {
		t.Errorf("staging directories left behind: %v", left)
	}
	if keys := keyLeftovers(tmp); len(keys) > 0 {
		t.Errorf("keys left behind: %v", keys)
	}
}

// checkUntouchedReport is checkUntouched without the staging check, which
// a killed opcert cannot keep until the next run.
func checkUntouchedReport(t *testing.T, out string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(out, "keep")); err != nil {
		t.Errorf("the earlier report in %s was disturbed: %v", out, err)
	}
}

// The API server or etcd dying mid-run makes the run ERROR (exit 3) within
// 30 seconds, never PASS or FAIL.
func TestDeadAPIServerIsAnEnvironmentError(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	for _, victim := range []string{"kube-apiserver", "etcd"} {
		t.Run(victim, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "report")
			p := startOpcert(t, nil, "run", "--out", out, "--scenario", "stale-hang", "--scenario", "stale-fleet-24h")
			p.waitLine(t, "[1/2]", time.Minute)
			killChild(t, p.cmd.Process.Pid, victim)
			start := time.Now()
			code := p.wait(t, 45*time.Second)
			if took := time.Since(start); code != 3 || took > 30*time.Second {
				t.Fatalf("exit %d after %s, want 3 within 30s\n%s", code, took, p.stderr.String())
			}
			data, err := os.ReadFile(filepath.Join(out, "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			var rep struct {
				Runs []struct {
					Scenario, Stopped string
					Cases             []struct{ Status string }
				}
			}
			if err := json.Unmarshal(data, &rep); err != nil || len(rep.Runs) != 2 || rep.Runs[1].Stopped != "environment" {
				t.Fatalf("want 2 runs, the second stopped by the environment: %v\n%s", err, data)
			}
			for _, c := range rep.Runs[1].Cases {
				if c.Status == "fail" {
					t.Errorf("a run whose API server died has a failed case")
				}
			}
			noChildren(t, p.cmd.Process.Pid)
		})
	}
}

func killChild(t *testing.T, pid int, name string) {
	t.Helper()
	for _, c := range children(pid) {
		if strings.Contains(c, "("+name+")") {
			n, _ := strconv.Atoi(strings.Fields(c)[0])
			if err := syscall.Kill(n, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no %s among opcert's children: %v", name, children(pid))
}

// Binaries that hang or fail: Ctrl-C is honoured during start-up, and a
// failed start-up shows the binary's own words and leaves nothing behind.
func TestBrokenBinaries(t *testing.T) {
	assets := t.TempDir()
	write(t, assets, "kube-apiserver", "#!/bin/sh\nexec sleep 600\n")
	write(t, assets, "etcd", "#!/bin/sh\nexec sleep 600\n")
	for _, b := range []string{"kube-apiserver", "etcd"} {
		if err := os.Chmod(filepath.Join(assets, b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tmp := t.TempDir()
	env := []string{"KUBEBUILDER_ASSETS=" + assets, "TMPDIR=" + tmp}
	p := startOpcert(t, env, "run", "--out", filepath.Join(t.TempDir(), "r"), "--scenario", "stale-hang")
	p.waitLine(t, "starting kube-apiserver", 10*time.Second)
	<-time.After(time.Second)
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(t, 10*time.Second); code != 130 {
		t.Errorf("Ctrl-C during start-up: exit %d, want 130\n%s", code, p.stderr.String())
	}
	noChildren(t, p.cmd.Process.Pid)
	noRunDirs(t, tmp)

	write(t, assets, "etcd", "#!/bin/sh\ncase \"$1\" in --help|--version) echo etcd; exit 0;; esac\necho 'etcd: the disk is on fire' >&2\nexit 1\n")
	r := opcert(t, env, "run", "--out", filepath.Join(t.TempDir(), "r"), "--scenario", "stale-hang")
	if r.code != 3 || !strings.Contains(r.stderr, "the disk is on fire") {
		t.Errorf("failed start-up: exit %d, want 3 with etcd's own words:\n%s", r.code, r.stderr)
	}
	noRunDirs(t, tmp)
}

// A closed stdout (opcert run | head -1) neither kills opcert before it
// stops its children nor loses the report.
func TestClosedStdout(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	tmp, out := t.TempDir(), filepath.Join(t.TempDir(), "report")
	cmd := exec.Command(os.Args[0], "run", "--out", out, "--scenario", "stale-hang")
	cmd.Env = append(os.Environ(), "OPCERT_TEST_MAIN=1", "TMPDIR="+tmp)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader is gone before opcert writes a byte
	cmd.Stdout = w
	err = cmd.Run()
	w.Close()
	if err != nil {
		t.Fatalf("opcert with a closed stdout: %v", err)
	}
	noChildren(t, cmd.Process.Pid)
	noRunDirs(t, tmp)
	reportOrUntouched(t, out)
}
