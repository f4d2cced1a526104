package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opcert/opcert/apiserver"
)

// opcertWithin runs opcert with stdin and fails the test when it runs
// longer than within: what it reads must neither block nor be endless.
func opcertWithin(t *testing.T, within time.Duration, stdin *os.File, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), within)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "OPCERT_TEST_MAIN=1")
	cmd.WaitDelay = time.Second
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("opcert %s still running after %s\n%s", strings.Join(args, " "), within, errb.String())
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), cmd.ProcessState.ExitCode()}
}

func mkfifo(t *testing.T, path string) string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A FIFO, a device or a file larger than its reader's limit, given to any
// command that reads files, is refused at once with a message naming it
// (exit 2; in a payload, a FIFO or device .yaml is a lint error, exit 1):
// before, a FIFO blocked the open deaf to Ctrl-C and /dev/zero was read
// until memory ran out.
func TestSpecialAndLargeInputsAreRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := mkfifo(t, filepath.Join(dir, "scenario.yaml"))
	payload := filepath.Join(dir, "manifests")
	if err := os.Mkdir(payload, 0o755); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, filepath.Join(payload, "0000_50_a_01_fifo.yaml"))
	if err := os.Symlink("/dev/zero", filepath.Join(payload, "0000_50_a_02_zero.yaml")); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.Mkdir(big, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, big, "huge.yaml", strings.Repeat("# padding\n", 900_000)) // 9 MB
	report := filepath.Join(dir, "report")
	if err := os.MkdirAll(filepath.Join(report, "timelines"), 0o755); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, filepath.Join(report, "report.json"))
	timeline := write(t, filepath.Join(report, "timelines"), "01-x.jsonl", "")

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "--out", filepath.Join(dir, "r"), fifo}, 2, fifo + " is a FIFO (named pipe), not a regular file"},
		{[]string{"olm", "explain", fifo}, 2, fifo + " is a FIFO (named pipe), not a regular file"},
		{[]string{"olm", "explain", "/dev/zero"}, 2, "/dev/zero is a character device, not a regular file"},
		{[]string{"lint", "manifests", payload}, 1, "0000_50_a_01_fifo.yaml:1: error LINT-001: cannot be read: 0000_50_a_01_fifo.yaml is a FIFO"},
		{[]string{"lint", "manifests", payload}, 1, "0000_50_a_02_zero.yaml:1: error LINT-001: cannot be read: 0000_50_a_02_zero.yaml is a character device"},
		{[]string{"lint", "manifests", big}, 2, "huge.yaml is larger than 8 MiB"},
		{[]string{"analyze", "--out", filepath.Join(dir, "a"), timeline}, 2, "report.json is a FIFO (named pipe), not a regular file"},
		{[]string{"watch", "--kubeconfig", fifo, "--mechanism", "stale", "--out", filepath.Join(dir, "w")}, 2, "kubeconfig: " + fifo + " is a FIFO (named pipe), not a regular file"},
		{[]string{"run", "--kubeconfig", fifo, "--out", filepath.Join(dir, "c"), "--scenario", "stale-hang"}, 2, fifo + " is a FIFO (named pipe), not a regular file"},
	} {
		r := opcertWithin(t, 30*time.Second, nil, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stdout+r.stderr, tc.want) {
			t.Errorf("opcert %s: exit %d, want %d saying %q\n%s%s", strings.Join(tc.args, " "), r.code, tc.code, tc.want, r.stdout, r.stderr)
		}
	}
}

// olm explain reads at most 64 MiB of standard input: an endless one is
// refused (exit 2), not read until memory runs out.
func TestExplainEndlessStdin(t *testing.T) {
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip(err)
	}
	defer zero.Close()
	r := opcertWithin(t, 60*time.Second, zero, "olm", "explain")
	if r.code != 2 || !strings.Contains(r.stderr, "standard input is larger than 64 MiB") {
		t.Errorf("exit %d, want 2 saying standard input is too large\n%s", r.code, r.stderr)
	}
}

// Ctrl-C while olm explain waits on a standard input nobody writes to
// ends it at once (130).
func TestExplainCtrlCWhileReadingStdin(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cmd := exec.Command(os.Args[0], "olm", "explain")
	cmd.Env = append(os.Environ(), "OPCERT_TEST_MAIN=1")
	cmd.Stdin = r
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	time.Sleep(time.Second) // reading by now
	_ = cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
		if code := cmd.ProcessState.ExitCode(); code != 130 {
			t.Errorf("exit %d, want 130\n%s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("still reading 10s after Ctrl-C\n%s", errb.String())
	}
}

// The fault budget applies to every mechanism's random faults: stackable's
// meanTimeToFailure of 1ns (8 GB in 25 s before) or one that draws more
// than 100,000 failures is refused when the scenario is loaded, exit 2,
// as stale's chaos is.
func TestFaultBudgetForEveryMechanism(t *testing.T) {
	dir := t.TempDir()
	for mttf, want := range map[string]string{
		"1ns": "load.meanTimeToFailure: 1ns is too short; use at least 1s",
		"1s":  "load.meanTimeToFailure: 1s with 20 clusters for 24h0m0s means about 1728000 faults; a run plays at most 100000, so use a meanTimeToFailure of at least 18s (or fewer clusters, or a shorter duration)",
	} {
		file := write(t, dir, "load-"+mttf+".yaml", "name: load\nmechanism: stackable\nduration: 24h\nload: {clusters: 20, namespaces: 4, replicas: 3, meanTimeToFailure: "+mttf+", recoverAfter: 5m, seed: 4}\n")
		r := opcertWithin(t, 30*time.Second, nil, "run", "--out", filepath.Join(dir, "out"), file)
		if r.code != exitUsage || !strings.Contains(r.stderr, want) {
			t.Errorf("meanTimeToFailure %s: exit %d, want 2 saying %q\n%s", mttf, r.code, want, r.stderr)
		}
	}
}

// A control plane that never gets ready ends the start-up at its limit
// with a message naming the binary and what it said last: before, envtest
// tried five times, 60 s each, and said "exit status 1" after 303 s. The
// binaries are wrappers that answer --help and --version and then wait
// for ever: etcd first (the API server is never started), then a real
// etcd and an API server that never gets ready.
func TestStartUpThatNeverGetsReady(t *testing.T) {
	wrapper := func(dir, name string) string {
		path := write(t, dir, name, "#!/bin/sh\ncase \"$1\" in --help) echo '      --etcd-servers strings'; exit 0;; --version) echo '"+name+" v0'; exit 0;; esac\n"+
			"echo '"+name+": waiting for a disk that never answers' >&2\nexec sleep 600\n")
		if err := os.Chmod(path, 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	startWithin := func(limit time.Duration, want string) {
		t.Helper()
		start := time.Now()
		w, err := apiserver.Start(t.Context(), apiserver.Options{StartTimeout: limit})
		if err == nil {
			_ = w.Stop()
			t.Fatal("started")
		}
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "waiting for a disk that never answers") {
			t.Errorf("got %v\nwant it to say %q and the binary's last words", err, want)
		}
		if d := time.Since(start); d > limit+15*time.Second {
			t.Errorf("took %s", d.Round(time.Second))
		}
	}

	assets := t.TempDir()
	etcd := wrapper(assets, "etcd")
	wrapper(assets, "kube-apiserver")
	t.Setenv("KUBEBUILDER_ASSETS", assets)
	startWithin(3*time.Second, "etcd ("+etcd+") did not get ready within 3s; killed")

	real := filepath.Join(apiserver.CacheDir(), "etcd")
	if _, err := os.Stat(real); err != nil {
		t.Skip("no etcd built:", err)
	}
	assets = t.TempDir()
	if err := os.Symlink(real, filepath.Join(assets, "etcd")); err != nil {
		t.Fatal(err)
	}
	apiserver := wrapper(assets, "kube-apiserver")
	t.Setenv("KUBEBUILDER_ASSETS", assets)
	startWithin(15*time.Second, "kube-apiserver ("+apiserver+") did not get ready within 15s; killed")
}

// analyze --help says the truth about memory per mechanism: it promised
// memory that does not grow with the file for all, while clusteroperator
// held about 5 KB an event (BenchmarkAnalyzeHeld); its rules now judge as
// the events pass, and staticpod's readers keep what they look back along.
func TestAnalyzeHelpSaysMemoryPerMechanism(t *testing.T) {
	out, err := listCmd(t, "analyze", "--help")
	if err != nil {
		t.Fatal(err)
	}
	want := "in memory that does not grow with the file:\n    clusteroperator, stackable, stale\n  read as the events pass"
	if !strings.Contains(out, want) || !strings.Contains(out, "\n    staticpod (each ClusterOperator or mirror pod write and each node file event of a timeline that shows the nodes, a run's; of a recording, nothing)\n") ||
		strings.Contains(out, "held whole") {
		t.Errorf("analyze --help:\n%s\nwant it to say which mechanisms hold the timeline", out)
	}
}
